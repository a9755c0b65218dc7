import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import type { CheckContext } from '../core/context.js';
import { buildReport, exitCodeOf, type ConformanceReport } from '../core/report.js';
import { runChecks, type Check } from '../core/runner.js';
import type { Selection } from '../core/selection.js';
import { Redactor } from '../core/redact.js';
import { signDocument, type SigningKey } from '../core/signing.js';
import type { CheckResult } from '../core/types.js';
import { check } from '../checks/support/define.js';
import type { Target } from '../deployment/discover.js';
import { TargetUnreachable, UsageError } from '../deployment/discover.js';
import type { WireResponse } from '../wire/http.js';
import { webhookSignature } from '../wire/webhook-signature.js';

/**
 * `sandbox certify webhook-receiver --url … --secret …`: the harness plays the service and sends the attack pack
 * of conventions.md to the receiver under test. Only the valid delivery (and the duplicate of it, which a
 * receiver acknowledges without processing twice) may get a 2xx.
 */

export interface ReceiverParams {
  url: string;
  secret: string;
  /**
   * The clock the deliveries are signed by, in ms: the clock of the service the certifier stands in for. A sandbox's
   * clock runs ahead of the wall clock after `sandbox clock advance`, and its receivers judge by it; default wall time.
   */
  nowMs?: () => number;
}

interface Delivery {
  body: string;
  headers: Record<string, string>;
}

const BOTH_PROFILES = ['A', 'B'] as const;

function params(ctx: CheckContext): ReceiverParams {
  return ctx.state.params as unknown as ReceiverParams;
}

/** Unix seconds now, by the clock the certifier signs with. */
function nowSeconds(ctx: CheckContext): number {
  return Math.floor((params(ctx).nowMs?.() ?? Date.now()) / 1000);
}

function sampleEvent(nowMs: number): { id: string; body: string } {
  const id = `evt_${randomBytes(12).toString('hex')}`;
  const event = {
    type: 'order.created',
    id,
    timestamp: new Date(nowMs).toISOString(),
    order: {
      id: `ord_${randomBytes(12).toString('hex')}`,
      pair: 'USDC/USDC',
      side: 'sell',
      amount: '25000.00',
      corridor: 'alpha:USDC-beta:USDC',
      fillDeadline: Math.floor(nowMs / 1000) + 600,
      status: 'pending',
    },
  };
  return { id, body: JSON.stringify(event) };
}

/** A delivery as the service sends it, signed with `secret` at `timestamp` over `signedBody` (default the body). */
function delivery(
  secret: string,
  now: number,
  options: { body?: string; timestamp?: string; signedBody?: string; eventId?: string } = {},
): Delivery & { eventId: string } {
  const event = options.body === undefined ? sampleEvent(now * 1000) : { id: options.eventId ?? 'evt_given', body: options.body };
  const timestamp = options.timestamp ?? String(now);
  return {
    eventId: event.id,
    body: event.body,
    headers: {
      'Content-Type': 'application/json',
      'X-Service-Signature': webhookSignature(secret, timestamp, options.signedBody ?? event.body),
      'X-Service-Timestamp': timestamp,
      'X-Service-Event': 'order.created',
      'X-Service-WebhookId': 'wh_conformance',
      'X-Service-DeliveryId': `dlv_${randomBytes(12).toString('hex')}`,
      'User-Agent': 'settlement-conformance-certifier',
    },
  };
}

async function send(ctx: CheckContext, d: Delivery, label: string): Promise<WireResponse> {
  return ctx.request({ method: 'POST', path: params(ctx).url, raw: d.body, headers: d.headers, label, timeoutMs: 30_000 });
}

const is2xx = (status: number) => status >= 200 && status < 300;

/** One attack: built from a valid delivery, it must not be answered 2xx (and, for a bad signature, 401). */
function attack(
  id: string,
  title: string,
  requirements: string[],
  build: (secret: string, now: number) => Delivery,
  expect401: boolean,
): Check {
  return check({
    id: `receiver.${id}`,
    title,
    requirements,
    profiles: BOTH_PROFILES,
    tags: ['certify', 'webhook-receiver'],
    async run(ctx: CheckContext) {
      const response = await send(ctx, build(params(ctx).secret, nowSeconds(ctx)), title);
      const requirement = requirements[0]!;
      ctx.expect(requirement, !is2xx(response.status), `the receiver accepted it with ${response.status}`);
      if (expect401) ctx.expect('X-WHR-002', response.status === 401, `answered ${response.status}; an invalid signature is a 401`);
      else
        ctx.expect(
          requirement,
          response.status >= 400 && response.status < 500,
          `answered ${response.status}; a rejected delivery is a 4xx`,
        );
    },
  });
}

function withHeader(d: Delivery, name: string, value: string | undefined): Delivery {
  const headers = { ...d.headers };
  if (value === undefined) delete headers[name];
  else headers[name] = value;
  return { ...d, headers };
}

export const receiverChecks: Check[] = [
  check({
    id: 'receiver.valid-delivery',
    title: 'A correctly signed, fresh delivery is accepted with 2xx',
    requirements: ['X-WHR-007'],
    profiles: BOTH_PROFILES,
    tags: ['certify', 'webhook-receiver'],
    async run(ctx: CheckContext) {
      const response = await send(ctx, delivery(params(ctx).secret, nowSeconds(ctx)), 'valid delivery');
      ctx.expect('X-WHR-007', is2xx(response.status), `a valid delivery was answered ${response.status}`);
    },
  }),
  attack(
    'wrong-secret',
    'Signed with another secret → 401',
    ['X-WHR-002'],
    (_secret, now) => delivery(`whsec_${randomBytes(16).toString('hex')}`, now),
    true,
  ),
  attack(
    'body-changed',
    'Body changed by one byte after signing → 401',
    ['X-WHR-006', 'X-WHR-002'],
    (secret, now) => {
      const d = delivery(secret, now);
      const i = d.body.indexOf('25000');
      return { ...d, body: `${d.body.slice(0, i)}95000${d.body.slice(i + 5)}` };
    },
    true,
  ),
  attack(
    'body-reserialised',
    'Body re-serialised (same JSON, other bytes) → 401: the raw body is what is signed',
    ['X-WHR-006', 'X-WHR-002'],
    (secret, now) => {
      const d = delivery(secret, now);
      return { ...d, body: JSON.stringify(JSON.parse(d.body), null, 2) };
    },
    true,
  ),
  attack(
    'signature-truncated',
    'Signature truncated → 401',
    ['X-WHR-002'],
    (secret, now) => {
      const d = delivery(secret, now);
      return withHeader(d, 'X-Service-Signature', d.headers['X-Service-Signature']!.slice(0, 32));
    },
    true,
  ),
  attack(
    'signature-empty',
    'Empty signature → rejected',
    ['X-WHR-005', 'X-WHR-002'],
    (secret, now) => withHeader(delivery(secret, now), 'X-Service-Signature', ''),
    false,
  ),
  attack(
    'signature-missing',
    'No signature header → rejected',
    ['X-WHR-005'],
    (secret, now) => withHeader(delivery(secret, now), 'X-Service-Signature', undefined),
    false,
  ),
  attack(
    'timestamp-missing',
    'No timestamp header → rejected',
    ['X-WHR-005'],
    (secret, now) => withHeader(delivery(secret, now), 'X-Service-Timestamp', undefined),
    false,
  ),
  attack(
    'timestamp-not-numeric',
    'A non-numeric timestamp (signed as sent) → rejected',
    ['X-WHR-005'],
    (secret, now) => delivery(secret, now, { timestamp: 'yesterday' }),
    false,
  ),
  attack(
    'timestamp-stale',
    'Timestamp 301 s old (correctly signed) → rejected',
    ['X-WHR-001'],
    (secret, now) => delivery(secret, now, { timestamp: String(now - 301) }),
    false,
  ),
  attack(
    'timestamp-future',
    'Timestamp 301 s ahead (correctly signed) → rejected',
    ['X-WHR-005'],
    (secret, now) => delivery(secret, now, { timestamp: String(now + 301) }),
    false,
  ),
  check({
    id: 'receiver.duplicate-event',
    title: 'The same event delivered twice (new delivery id): acknowledged, not an error; de-duplicated by event id',
    requirements: ['X-WHR-004', 'X-WHR-007'],
    profiles: BOTH_PROFILES,
    tags: ['certify', 'webhook-receiver'],
    async run(ctx: CheckContext) {
      const first = delivery(params(ctx).secret, nowSeconds(ctx));
      const a = await send(ctx, first, 'first delivery of the event');
      ctx.expect('X-WHR-007', is2xx(a.status), `the first delivery was answered ${a.status}`);
      const again = delivery(params(ctx).secret, nowSeconds(ctx), { body: first.body, eventId: first.eventId });
      const b = await send(ctx, again, 'the same event again');
      ctx.expect(
        'X-WHR-004',
        is2xx(b.status) || b.status === 409,
        `the duplicate was answered ${b.status}: answer 2xx (or 409) so the service stops retrying`,
      );
      ctx.note(`duplicate answered ${b.status}${a.text === b.text ? ' (same body)' : ''}`);
    },
  }),
];

export interface ReceiverCertification {
  report: ConformanceReport;
  results: CheckResult[];
  /** 0 certified, 1 a check failed, 3 checks were skipped (INCOMPLETE). */
  exitCode: 0 | 1 | 3;
}

/** Runs the attack pack against a receiver; the report has the conformance report's shape and can be signed. */
export async function certifyWebhookReceiver(
  options: ReceiverParams & {
    /** Which clock `nowMs` reads, for the report (`wall`, or `sandbox <url>`). */
    clock?: string;
    signingKey?: SigningKey;
    selection?: Selection;
    onResult?(result: CheckResult, index: number, total: number): void;
  },
): Promise<ReceiverCertification> {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new UsageError(`--url must be the receiver's http(s) URL, got ${JSON.stringify(options.url)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--url must be http(s), got ${options.url}`);
  if (options.secret.length === 0) throw new UsageError('--secret is the signing secret the receiver verifies with');
  await ensureReachable(url);
  const target: Target = {
    url: options.url,
    apiBase: options.url,
    wsUrl: '',
    solverStreamUrl: '',
    profile: 'A',
    environment: 'unknown',
    capabilities: new Set(),
    missing: {},
    corridors: [],
    sandboxRoutes: [],
    documentedOperations: new Set(),
    discovery: [],
  };
  const outcome = await runChecks({
    target,
    checks: receiverChecks,
    params: { url: options.url, secret: options.secret, ...(options.nowMs === undefined ? {} : { nowMs: options.nowMs }) },
    redactor: new Redactor([options.secret]),
    ...(options.selection === undefined ? {} : { selection: options.selection }),
    ...(options.onResult === undefined ? {} : { onResult: options.onResult }),
    timeoutMs: 40_000,
  });
  let report = buildReport({ target, outcome, checks: receiverChecks, onlyCovered: true });
  report = new Redactor([options.secret]).value({ ...report, subject: 'webhook-receiver', clock: options.clock ?? 'wall' });
  if (options.signingKey) report = signDocument(report, options.signingKey);
  return { report, results: outcome.results, exitCode: exitCodeOf(report.summary.verdict) };
}

/**
 * Pre-flight: a receiver nobody listens for cannot be certified, and twelve "no answer" failures would bury the one
 * thing to fix. A TCP connection (no request, so the receiver sees nothing it must judge) tells a closed port, an
 * unknown host or a silent network apart from a receiver that answers: those end the run with exit code 2.
 */
async function ensureReachable(url: URL, timeoutMs = 5_000): Promise<void> {
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const failure = await new Promise<string | undefined>((resolve) => {
    const socket = connect({ host, port });
    const done = (reason: string | undefined) => {
      socket.destroy();
      resolve(reason);
    };
    socket.setTimeout(timeoutMs, () => done(`no answer within ${timeoutMs / 1000} s`));
    socket.once('connect', () => done(undefined));
    socket.once('error', (error: NodeJS.ErrnoException) =>
      done(error.code === 'ECONNREFUSED' ? 'connection refused' : (error.code ?? error.message)),
    );
  });
  if (failure !== undefined) {
    throw new TargetUnreachable(`the webhook receiver at ${url.href} does not answer (${failure}): start it, or check --url`, {
      docsPath: 'docs/conformance.md',
    });
  }
}
