import { requirement } from '../catalogue/index.js';
import type { Target } from '../deployment/discover.js';
import { API_PREFIX } from '../deployment/discover.js';
import { HttpClient, WireError, type WireRequest, type WireResponse } from '../wire/http.js';
import { WebhookReceiver } from '../wire/receiver.js';
import { isRefusal, WsSession, type WsOpenOptions, type WsRefusal } from '../wire/ws.js';
import { CheckFailed, CheckSkipped, type Evidence, type Profile } from './types.js';

/** One response as the observer checks see it after the run. */
export interface ObservedResponse {
  method: string;
  path: string;
  status: number;
  headers: Record<string, string>;
  json: unknown;
  /** Check that made the request. */
  check: string;
  /** Requests made on purpose to burst the limiter carry this so observers can tell them apart. */
  label?: string;
}

/** State shared by every check of one run: the target, one receiver, memoised fixtures, the observed traffic. */
export class RunState {
  readonly target: Target;
  readonly seed: number;
  readonly http: HttpClient;
  readonly observed: ObservedResponse[] = [];
  readonly fixtures = new Map<string, Promise<unknown>>();
  /** Small values the flows keep across checks (e.g. each taker's last nonce). */
  readonly values = new Map<string, unknown>();
  private readonly cleanups: Array<() => Promise<void>> = [];
  private _receiver: Promise<WebhookReceiver> | undefined;
  currentCheck = '';
  /** Taker WebSocket connections held open for the whole run with the main key (they count against its limit). */
  persistentSockets = 0;
  private readonly persistent: Array<() => Promise<void>> = [];

  /** A connection kept across checks; `releasePersistent` closes it early. */
  keepOpen(close: () => Promise<void>): void {
    this.persistent.push(close);
  }

  /**
   * Closes the connections kept across checks. Long clock advances run one heartbeat job per connection every
   * 30 s of clock time; without them a day passes in a fraction of the time.
   */
  async releasePersistent(): Promise<void> {
    for (const close of this.persistent.splice(0)) await close().catch(() => undefined);
    this.persistentSockets = 0;
  }

  /** Settings of a certify mode (the receiver's secret, the solver under test…). */
  readonly params: Record<string, unknown>;

  constructor(target: Target, seed: number, params: Record<string, unknown> = {}) {
    this.target = target;
    this.seed = seed;
    this.params = params;
    this.http = new HttpClient(target.url);
    this.http.observe((response, request) => {
      const path = new URL(response.evidence.request.url).pathname;
      this.observed.push({
        method: request.method.toUpperCase(),
        path,
        status: response.status,
        headers: response.headers,
        json: response.status >= 400 ? response.json : undefined,
        check: this.currentCheck,
        ...(request.label === undefined ? {} : { label: request.label }),
      });
    });
  }

  receiver(): Promise<WebhookReceiver> {
    this._receiver ??= WebhookReceiver.start().then((receiver) => {
      this.cleanups.push(() => receiver.stop());
      return receiver;
    });
    return this._receiver;
  }

  /** Runs at the end of the run, last registered first (e.g. delete the webhooks the run created). */
  onFinish(cleanup: () => Promise<void>): void {
    this.cleanups.push(cleanup);
  }

  async finish(): Promise<void> {
    await this.releasePersistent();
    for (const cleanup of this.cleanups.reverse()) {
      await cleanup().catch(() => undefined);
    }
  }
}

export interface Finding {
  requirement?: string;
  level: 'fail' | 'warn';
  message: string;
}

/**
 * What a check works with: the wire (HTTP, WebSocket, receiver), assertions that name the requirement they
 * hold the target to, evidence, the sandbox clock, and fixtures shared across checks.
 */
export class CheckContext {
  readonly evidence: Evidence[] = [];
  readonly findings: Finding[] = [];
  readonly notes: string[] = [];
  private readonly _state: RunState;
  private readonly deferred: Array<() => Promise<void>> = [];
  private readonly sessions: WsSession[] = [];
  readonly checkId: string;

  constructor(state: RunState, checkId: string) {
    this._state = state;
    this.checkId = checkId;
  }

  get target(): Target {
    return this._state.target;
  }
  get profile(): Profile {
    return this._state.target.profile;
  }
  get seed(): number {
    return this._state.seed;
  }
  get state(): RunState {
    return this._state;
  }
  /** The API key, or a skip when none was given. */
  get key(): string {
    const key = this._state.target.apiKey;
    if (key === undefined) this.skip(this._state.target.missing.apiKey ?? 'no API key');
    return key;
  }

  /** An HTTP request recorded as evidence; a target that does not answer fails the check. */
  async request(spec: WireRequest & { record?: boolean }): Promise<WireResponse> {
    try {
      const response = await this._state.http.request(spec);
      if (spec.record !== false) this.evidence.push(response.evidence);
      return response;
    } catch (error) {
      if (error instanceof WireError) {
        this.evidence.push(error.evidence);
        this.fail(`no answer: ${error.message}`);
      }
      throw error;
    }
  }

  /** `request` under `/api/v1`. */
  api(method: string, path: string, spec: Omit<WireRequest, 'method' | 'path'> & { record?: boolean } = {}): Promise<WireResponse> {
    return this.request({ ...spec, method, path: `${API_PREFIX}${path}` });
  }

  async ws(url: string, options: WsOpenOptions = {}): Promise<WsSession | WsRefusal> {
    const session = await WsSession.open(url, options);
    if (isRefusal(session)) {
      this.note(`WebSocket ${url.replace(/token=[^&]+/, 'token=…')} refused: ${session.error}`, session);
      return session;
    }
    this.sessions.push(session);
    this.evidence.push(session.evidence);
    return session;
  }

  receiver(): Promise<WebhookReceiver> {
    return this._state.receiver();
  }

  /** Runs a fixture once per run and shares its outcome (a failure or skip too) with every check asking for it. */
  fixture<T>(name: string, build: () => Promise<T>): Promise<T> {
    let promise = this._state.fixtures.get(name) as Promise<T> | undefined;
    if (promise === undefined) {
      promise = build();
      this._state.fixtures.set(name, promise);
    }
    return promise;
  }

  /** Moves the sandbox clock (service and chains) forward; skips when the target has no clock control. */
  async advanceClock(seconds: number): Promise<{ nowMs: number; jobsRun: number }> {
    if (!this.target.capabilities.has('clock')) this.skip(this.target.missing.clock ?? 'no sandbox clock');
    const response = await this.api('POST', '/sandbox/clock/advance', {
      auth: this.key,
      body: { seconds },
      label: `advance the sandbox clock ${seconds} s`,
    });
    if (response.status !== 200) this.fail(`advancing the sandbox clock answered ${response.status}`);
    const body = response.json as { nowMs?: number; jobsRun?: number };
    return { nowMs: body.nowMs ?? 0, jobsRun: body.jobsRun ?? 0 };
  }

  /** The sandbox clock now (ms), or the wall clock when the target has none. */
  async clockNow(): Promise<number> {
    if (!this.target.capabilities.has('clock')) return Date.now();
    const response = await this.api('GET', '/sandbox/clock', { record: false });
    return ((response.json ?? {}) as { nowMs?: number }).nowMs ?? Date.now();
  }

  note(text: string, data?: unknown): void {
    this.notes.push(text);
    this.evidence.push({ kind: 'note', text, ...(data === undefined ? {} : { data }) });
  }

  /**
   * Holds the target to one requirement: when `condition` is false the finding is a failure for a MUST and a
   * warning for a SHOULD. The check goes on, so one run reports every deviation it sees.
   */
  expect(requirementId: string, condition: unknown, message: string): boolean {
    if (condition) return true;
    const level = requirement(requirementId)?.level;
    this.findings.push({ requirement: requirementId, level: level === 'MUST' ? 'fail' : 'warn', message });
    return false;
  }

  /** A deviation that makes the rest of the check meaningless. */
  fail(message: string): never {
    throw new CheckFailed(message);
  }

  /** Like `expect`, but stops the check. */
  require(requirementId: string, condition: unknown, message: string): asserts condition {
    if (!this.expect(requirementId, condition, message)) throw new CheckFailed(message, true);
  }

  warn(message: string): void {
    this.findings.push({ level: 'warn', message });
  }

  skip(reason: string): never {
    throw new CheckSkipped(reason);
  }

  defer(cleanup: () => Promise<void>): void {
    this.deferred.push(cleanup);
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  /** Closes sessions and runs deferred clean-ups. */
  async dispose(): Promise<void> {
    for (const cleanup of this.deferred.reverse()) await cleanup().catch(() => undefined);
    await Promise.all(this.sessions.map((s) => s.close().catch(() => undefined)));
  }
}
