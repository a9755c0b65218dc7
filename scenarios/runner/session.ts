import { randomBytes } from 'node:crypto';
import { privateKeyToAccount } from 'viem/accounts';
import { ApiRequestError, RestClient } from '../../src/clients/rest-client.js';
import { referenceSolversOf } from '../actors/reference-solvers.js';
import { StreamRecorder } from '../actors/stream-recorder.js';
import { Taker } from '../actors/taker.js';
import { WebhookReceiver } from '../actors/webhook-receiver.js';
import { ScenarioContext, type TrackedOrder } from '../core/context.js';
import { InvariantFailure, ScenarioFailure, ScenarioInconclusive } from '../core/errors.js';
import { sleep } from '../core/eventually.js';
import { DEFAULT_SEED, ScenarioRandom } from '../core/random.js';
import type { Participants, Scenario } from '../core/scenario.js';
import { InvariantMonitor } from '../invariants/monitor.js';
import { terminalEvents } from '../invariants/terminal-events.js';
import { ChainObserver } from '../observe/chain-observer.js';
import type { Subscriber } from '../observe/events.js';
import { LedgerObserver } from '../observe/ledger-observer.js';
import { formatAmount, observeOrder, orderFormat } from '../observe/observe-order.js';
import type { ObservedTimeline } from '../observe/timeline.js';
import { scriptSolvers } from '../steps/solvers.js';
import { startInProcessTarget } from '../deployment/in-process.js';
import { openRemoteTarget } from '../deployment/remote.js';
import type { ScenarioTarget } from '../deployment/target.js';
import { ScenarioCleanup } from './cleanup.js';
import { effectiveRequirements, unmetRequirement } from './requirements.js';
import type { RunEvent, ScenarioResult, StepResult } from './result.js';

export interface SessionOptions {
  /** Participants and amounts are drawn from it (default 1). */
  seed?: number;
  /** sandbox.json (or its state folder) of a running sandbox; default: a fresh in-process sandbox. */
  target?: string;
  /** How long an expectation waits for the world to catch up, wall ms (default 10 s). */
  expectTimeoutMs?: number;
  onEvent?: (event: RunEvent) => void;
  /** What makes this run's participant keys its own (default: drawn fresh, so no two runs share an address). */
  runSalt?: string;
  /**
   * `sandbox`: every scenario plays in the sandbox's own workspace (the one sandbox.json's API key opens), so its
   * orders show on the dashboard and its events at `sandbox webhooks listen`. Default: a fresh workspace each.
   */
  workspace?: typeof SANDBOX_WORKSPACE;
}

/** The `--workspace` name of the sandbox's own workspace (the service calls it "Sandbox workspace"). */
export const SANDBOX_WORKSPACE = 'sandbox';

/** A target with the observers that live as long as it does. */
interface TargetHandle {
  target: ScenarioTarget;
  observer: ChainObserver;
  ledger: LedgerObserver | undefined;
  monitor: InvariantMonitor;
  referenceB: Promise<boolean> | undefined;
}

const TERMINAL_BY_GENERATION = { A: ['order.settled', 'order.failed'], B: ['settlement.complete', 'settlement.failed'] } as const;

/**
 * Runs scenarios one at a time against one shared target (started on first use and kept for the session), or a
 * target of their own when they ask for one. Each scenario gets its own workspace, takers, subscribers and
 * receivers, so scenarios sharing a sandbox cannot see each other's events; they run one after another because
 * some move the one clock.
 */
export class ScenarioSession {
  readonly seed: number;
  /** Mixed into every participant key: fresh takers per run, however long the sandbox lives. */
  readonly runSalt: string;
  /** The teardown of the scenario playing now: an interrupted run still takes back what it set. */
  private active: (() => Promise<void>) | undefined;
  private shared: Promise<TargetHandle> | undefined;
  private sharedDescription: string | undefined;

  constructor(private readonly options: SessionOptions = {}) {
    this.seed = options.seed ?? DEFAULT_SEED;
    this.runSalt = options.runSalt ?? randomBytes(8).toString('hex');
  }

  /**
   * Interrupted (SIGINT, SIGTERM): tears down the scenario playing now (its fault switches, held relays, webhooks,
   * streams, solver scripts) and closes the shared target. Safe to call at any time, and more than once.
   */
  async abort(): Promise<void> {
    await this.interrupt();
    await this.close().catch(() => undefined);
  }

  /** The teardown of the scenario playing now, at once (abort's first half; the target stays up). */
  async interrupt(): Promise<void> {
    const active = this.active;
    this.active = undefined;
    await active?.().catch(() => undefined);
  }

  /** The shared target as it described itself once started (before: what it will be). */
  get targetDescription(): string {
    return this.sharedDescription ?? (this.options.target === undefined ? 'fresh in-process sandbox' : `sandbox at ${this.options.target}`);
  }

  private emit(event: RunEvent): void {
    this.options.onEvent?.(event);
  }

  private async open(start: () => Promise<ScenarioTarget>, description: string): Promise<TargetHandle> {
    this.emit({ type: 'target.starting', description });
    const began = performance.now();
    const target = await start();
    const observer = new ChainObserver(target.manifest.chains);
    const ledger = LedgerObserver.open(target.storePath);
    const monitor = new InvariantMonitor(observer, ledger);
    // First look at the world before anything happens: the baseline every later check is held to.
    await monitor.check([], []);
    this.emit({ type: 'target.ready', description: target.description, durationMs: performance.now() - began });
    return { target, observer, ledger, monitor, referenceB: undefined };
  }

  private _sharedTarget(): Promise<TargetHandle> {
    this.shared ??= this.open(
      () => (this.options.target === undefined ? startInProcessTarget({ seed: this.seed }) : openRemoteTarget(this.options.target)),
      this.targetDescription,
    ).then((handle) => {
      this.sharedDescription = handle.target.description;
      return handle;
    });
    return this.shared;
  }

  /** The shared target (started on first use): tests and tools reach its manifest through it. */
  async sharedTarget(): Promise<ScenarioTarget> {
    return (await this._sharedTarget()).target;
  }

  private servesReferenceB(handle: TargetHandle): Promise<boolean> {
    handle.referenceB ??= (async () => {
      try {
        await new RestClient({ baseUrl: handle.target.manifest.api.url }).request('POST', '/api/v1/rfq', {});
        return true;
      } catch (error) {
        return !(error instanceof ApiRequestError && error.status === 404);
      }
    })();
    return handle.referenceB;
  }

  /** Draws the scenario's actors from the seed (before any target exists: own targets may depend on them). */
  participants(
    scenario: Scenario,
    random: ScenarioRandom,
  ): { participants: Participants; keys: Map<string, { name: string; key: `0x${string}` }> } {
    const keys = new Map<string, { name: string; key: `0x${string}` }>();
    for (const label of scenario.actors?.takers ?? []) keys.set(label, { name: random.personName(), key: random.privateKey(label) });
    const takers = Object.fromEntries(
      [...keys].map(([label, { name, key }]) => [label, { name, address: privateKeyToAccount(key).address }]),
    );
    return { participants: { takers }, keys };
  }

  async run(scenario: Scenario, position: { index: number; total: number } = { index: 1, total: 1 }): Promise<ScenarioResult> {
    const began = performance.now();
    // The shared target starts before the first scenario is announced, so its progress lines come first.
    if (!effectiveRequirements(scenario).ownTarget) await this._sharedTarget().catch(() => undefined);
    this.emit({ type: 'scenario.start', name: scenario.name, title: scenario.title, index: position.index, total: position.total });
    const random = new ScenarioRandom(this.seed, scenario.name, this.runSalt);
    const { participants, keys } = this.participants(scenario, random);
    const result: ScenarioResult = {
      name: scenario.name,
      title: scenario.title,
      tags: [...scenario.tags],
      status: 'passed',
      durationMs: 0,
      target: this.targetDescription,
      steps: scenario.steps.map((step) => ({ title: step.title, status: 'not run', durationMs: 0 })),
      invariantChecks: 0,
      notes: [],
      participants: Object.fromEntries(Object.entries(participants.takers).map(([label, p]) => [label, `${p.name} ${p.address}`])),
      orders: {},
      escrow: [],
    };
    const finish = (): ScenarioResult => {
      result.durationMs = performance.now() - began;
      this.emit({ type: 'scenario.end', result });
      return result;
    };

    const requires = effectiveRequirements(scenario);
    let handle: TargetHandle | undefined;
    let own = false;
    try {
      if (requires.ownTarget) {
        // Settings no running sandbox can take for one workspace (another environment, other compliance lists): a
        // sandbox of the scenario's own, also with --target, and the report says so.
        const settings = typeof requires.ownTarget === 'function' ? requires.ownTarget(participants) : {};
        own = true;
        const why = this.options.target === undefined ? '' : ' (settings the target does not have)';
        handle = await this.open(
          () => startInProcessTarget({ ...settings, seed: this.seed }),
          `own in-process ${settings.environment ?? 'sandbox'} for ${scenario.name}${why}`,
        );
      } else {
        handle = await this._sharedTarget();
      }
      result.target =
        own && this.options.target !== undefined
          ? `${handle.target.description} of its own, not the target (settings the target does not have)`
          : handle.target.description;
      const opened = handle;
      const unmet = await unmetRequirement(requires, opened.target, () => this.servesReferenceB(opened));
      if (unmet !== undefined) {
        result.status = 'skipped';
        result.reason = unmet;
      } else {
        await this.play(scenario, opened, random, keys, result);
      }
    } catch (error) {
      // A target that does not start fails the scenario (at setup); it does not crash the run.
      result.status = 'failed';
      result.failure ??= { step: 'setup', message: error instanceof Error ? error.message : String(error) };
    } finally {
      if (own && handle !== undefined) {
        handle.ledger?.close();
        await handle.target.stop().catch(() => undefined);
      }
    }
    return finish();
  }

  private async play(
    scenario: Scenario,
    handle: TargetHandle,
    random: ScenarioRandom,
    keys: Map<string, { name: string; key: `0x${string}` }>,
    result: ScenarioResult,
  ): Promise<void> {
    const { target, observer, ledger, monitor } = handle;
    const checksBefore = monitor.checks;
    const streams = new Map<string, StreamRecorder>();
    const receivers = new Map<string, WebhookReceiver>();
    const cleanup = new ScenarioCleanup();
    let context: ScenarioContext | undefined;
    const teardown = () => this.teardown(target, context, streams, receivers, cleanup);
    this.active = async () => {
      await teardown();
    };
    try {
      const workspace =
        this.options.workspace === SANDBOX_WORKSPACE
          ? { workspaceId: target.manifest.api.workspaceId, apiKey: target.adminKey }
          : await target.createWorkspace(`scenario ${scenario.name}`);
      const rest = new RestClient({ baseUrl: target.manifest.api.url, apiKey: workspace.apiKey, fetch: cleanup.fetch() });
      const takers = new Map([...keys].map(([label, { name, key }]) => [label, new Taker(label, name, key, target)]));
      for (const [name, spec] of Object.entries(scenario.actors?.streams ?? {})) {
        streams.set(name, await StreamRecorder.open(name, target.manifest.api.wsUrl, workspace.apiKey, spec));
      }
      for (const [name, spec] of Object.entries(scenario.actors?.webhooks ?? {})) {
        const secret = `whsec_${randomBytes(24).toString('hex')}`;
        const receiver = await WebhookReceiver.start(name, spec, secret, () => target.serviceNow());
        receivers.set(name, receiver);
        const created = await rest.request<{ webhookId: string }>('POST', '/api/v1/webhooks', {
          url: receiver.url,
          events: [...spec.events],
          secret,
        });
        receiver.webhookId = created.webhookId;
      }
      const referenceSolvers = await referenceSolversOf(target, rest);
      context = new ScenarioContext({
        scenario,
        target,
        random,
        workspace,
        rest,
        observer,
        ledger,
        monitor,
        takers,
        streams,
        receivers,
        expectTimeoutMs: this.options.expectTimeoutMs ?? 10_000,
        observe: observeOrder,
        referenceSolvers,
        onTeardown: (undo) => cleanup.defer(undo),
      });
      // Declared solver behaviours are fault switches too (cleared at teardown like any other).
      if (scenario.actors?.solvers !== undefined) await scriptSolvers(context, scenario.actors.solvers);
      context.startedAt = await target.serviceNow();
    } catch (error) {
      result.status = 'failed';
      result.failure = { step: 'setup', message: error instanceof Error ? error.message : String(error) };
      await teardown();
      this.active = undefined;
      return;
    }

    for (const [index, step] of scenario.steps.entries()) {
      this.emit({ type: 'step.start', scenario: scenario.name, index, title: step.title });
      const began = performance.now();
      const stepResult: StepResult = result.steps[index]!;
      try {
        const summary = await step.run(context);
        const violations = await monitor.check(context.subscribers, context.receivers);
        if (violations.length > 0) {
          throw new InvariantFailure(
            `invariant broken after this step: ${violations[0]!.invariant}`,
            violations.map((v) => `${v.invariant}: ${v.message}`).join('\n'),
          );
        }
        stepResult.status = 'passed';
        if (summary) stepResult.summary = summary;
      } catch (error) {
        stepResult.error = error instanceof Error ? error.message : String(error);
        if (error instanceof ScenarioInconclusive) {
          stepResult.status = 'skipped';
          result.status = 'skipped';
          result.reason = `inconclusive at "${step.title}": ${stepResult.error}`;
        } else {
          stepResult.status = 'failed';
          result.status = 'failed';
          const details = evidenceOf(error);
          result.failure = { step: step.title, message: stepResult.error, ...(details === undefined ? {} : { details }) };
        }
      }
      stepResult.durationMs = performance.now() - began;
      this.emit({ type: 'step.end', scenario: scenario.name, index, result: stepResult });
      if (result.status !== 'passed') break;
    }

    if (result.status === 'passed') {
      const began = performance.now();
      const final: StepResult = {
        title: 'every subscriber got exactly one terminal event per finished order',
        status: 'passed',
        durationMs: 0,
      };
      this.emit({ type: 'step.start', scenario: scenario.name, index: result.steps.length, title: final.title });
      try {
        final.summary = await this.finalChecks(context);
      } catch (error) {
        final.status = 'failed';
        final.error = error instanceof Error ? error.message : String(error);
        result.status = 'failed';
        result.failure = {
          step: final.title,
          message: final.error,
          ...(error instanceof ScenarioFailure && error.details ? { details: error.details } : {}),
        };
      }
      final.durationMs = performance.now() - began;
      result.steps.push(final);
      this.emit({ type: 'step.end', scenario: scenario.name, index: result.steps.length - 1, result: final });
    }
    if (result.status === 'failed' && context.orders.size > 0) result.failure!.timelines = await this.describeTimelines(context);

    for (const order of context.orders.values())
      result.orders[order.name] = { orderId: order.orderId, onchainOrderId: order.onchainOrderId };
    result.escrow = observer
      .escrowAccounts()
      .filter((account) => account.escrowed > 0n)
      .map((a) => {
        const decimals = target.manifest.chains.find((c) => c.name === a.chain)?.tokens.find((t) => t.symbol === a.symbol)?.decimals ?? 6;
        const show = (value: bigint) => formatAmount(value, decimals, a.symbol).replace('+', '');
        return `${a.chain} ${a.symbol}: escrowed ${show(a.escrowed)} = claimed ${show(a.claimed)} + refunded ${show(a.refunded)} + open ${show(a.open)}`;
      });
    result.invariantChecks = monitor.checks - checksBefore;
    result.notes = monitor.notes;
    const undone = await teardown();
    this.active = undefined;
    if (undone.cleared > 0 || undone.released > 0)
      result.notes.push(`teardown cleared ${undone.cleared} fault switch(es) and released ${undone.released} held relay(s)`);
  }

  /**
   * Liveness half of the terminal-event invariant: once an order has ended, every subscriber that listens for its
   * terminal event has exactly one (receivers expected to miss events excepted).
   */
  private async finalChecks(context: ScenarioContext): Promise<string> {
    const deadline = Date.now() + context.expectTimeoutMs;
    let checked = 0;
    for (const order of context.orders.values()) {
      const { status } = await context.rest.getOrder(order.orderId);
      if (status !== 'Claimed' && status !== 'Refunded') continue;
      // Both interfaces project every order, whichever created it: each generation a subscriber listens to ends once.
      for (const [generation, terminalTypes] of Object.entries(TERMINAL_BY_GENERATION)) {
        const listening = context.subscribers.filter((s) => !s.lossy && terminalTypes.some((type) => s.covers(type)));
        for (const subscriber of listening) {
          await exactlyOneTerminal(
            subscriber,
            `${generation}:${order.orderId}`,
            deadline,
            `Reference ${generation} terminal events for order ${order.name} (${order.orderId}, ${status})`,
          );
          checked += 1;
        }
      }
    }
    const violations = await context.monitor.check(context.subscribers, context.receivers);
    if (violations.length > 0)
      throw new InvariantFailure(`invariant broken at the end: ${violations[0]!.invariant}`, violations.map((v) => v.message).join('\n'));
    return `${checked} order × subscriber pair(s) checked`;
  }

  private async describeTimelines(context: ScenarioContext): Promise<string> {
    const parts: string[] = [];
    for (const order of context.orders.values()) {
      try {
        parts.push(formatObserved(order, await context.observe(order)));
      } catch (error) {
        parts.push(`order ${order.name} (${order.orderId}): could not be observed: ${(error as Error).message}`);
      }
    }
    return parts.join('\n');
  }

  private async teardown(
    target: ScenarioTarget,
    context: ScenarioContext | undefined,
    streams: Map<string, StreamRecorder>,
    receivers: Map<string, WebhookReceiver>,
    cleanup: ScenarioCleanup,
  ): Promise<{ cleared: number; released: number }> {
    // Switches first: an armed one would fire on the next scenario's orders (or a later run's, on a shared sandbox).
    const undone =
      context === undefined
        ? { cleared: 0, released: 0 }
        : await cleanup.run(
            context.rest,
            [...context.orders.values()].map((order) => order.orderId),
          );
    // Endpoints go first: later clock advances must not keep retrying into closed ports.
    for (const receiver of receivers.values()) {
      if (receiver.webhookId !== undefined && context !== undefined) {
        await context.rest.request('DELETE', `/api/v1/webhooks/${receiver.webhookId}`).catch(() => undefined);
      }
      await receiver.close().catch(() => undefined);
    }
    for (const stream of streams.values()) stream.close();
    return undone;
  }

  async close(): Promise<void> {
    const shared = this.shared;
    this.shared = undefined;
    if (shared === undefined) return;
    const handle = await shared.catch(() => undefined);
    handle?.ledger?.close();
    await handle?.target.stop();
  }
}

/** What to show besides the message: a scenario's own evidence, the answer the service gave, or a bug's stack. */
function evidenceOf(error: unknown): string | undefined {
  if (error instanceof ScenarioFailure) return error.details;
  if (error instanceof ApiRequestError)
    return `the service answered ${error.status}${error.requestId ? ` (${error.requestId})` : ''}: ${JSON.stringify(error.body)}`;
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/** Waits (bounded) until `subscriber` holds exactly one terminal event under `key`; more is a failure at once. */
async function exactlyOneTerminal(subscriber: Subscriber, key: string, deadline: number, what: string): Promise<void> {
  for (;;) {
    const count = terminalEvents(subscriber.events()).get(key)?.length ?? 0;
    if (count === 1) return;
    if (count > 1 || Date.now() > deadline)
      throw new ScenarioFailure(`${subscriber.channel} ${subscriber.name} has ${count} ${what}; expected exactly one`);
    await sleep(25);
  }
}

/** An order's timeline as seen, one channel per line (for failures that are not timeline mismatches). */
export function formatObserved(order: TrackedOrder, seen: ObservedTimeline): string {
  const format = orderFormat(order);
  const arrow = (items: readonly string[]) => (items.length === 0 ? '(none)' : items.join(' → '));
  const lines = [
    `timeline of order ${order.name} (${order.orderId}) as seen:`,
    `  status          ${seen.status}`,
    `  stages          ${arrow(seen.stages)}`,
    ...Object.entries(seen.ws).map(([name, events]) => `  ws ${name.padEnd(12)} ${arrow(events)}`),
    ...Object.entries(seen.webhooks).map(([name, events]) => `  webhook ${name.padEnd(7)} ${arrow(events)}`),
    `  chain           ${arrow(seen.chain)}`,
    `  ledger          ${seen.ledger === undefined ? '(not observable from here)' : arrow(seen.ledger)}`,
    `  balance input   ${format.amount('input', seen.balances.input)}`,
    `  balance output  ${format.amount('output', seen.balances.output)}`,
  ];
  return lines.join('\n');
}
