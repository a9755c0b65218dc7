import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import { parseDuration } from '../../clock/index.js';
import { ProcessedEvents, verifyWebhook, WebhookVerificationError, type WebhookEvent } from '../../clients/webhook-verifier.js';
import { action, type GlobalOptions, type Output, UsageError } from '../output.js';
import { stableListenSecret } from '../listen-secret.js';
import { sandboxApi } from '../sandbox-api.js';

const DOCS = 'docs/realtime-and-webhooks.md';

/**
 * `sandbox webhooks …`: `listen` runs a local receiver that verifies and prints every delivery (like `stripe
 * listen`), registering itself with the running sandbox unless told otherwise; the other subcommands manage
 * endpoints over the API.
 */

export interface ListenedDelivery {
  receivedAt: string;
  verified: boolean;
  /** Why verification failed (`signature_mismatch`, `timestamp_too_old`…). */
  failure?: string;
  duplicate: boolean;
  eventType?: string;
  eventId?: string;
  deliveryId?: string;
  webhookId?: string;
  /** Status answered to the service. */
  answered: number;
  event?: WebhookEvent;
}

export interface ListenOptions {
  /** sandbox.json folder; needed to register and to read the sandbox clock. */
  stateDir?: string;
  host?: string;
  port?: number;
  events?: string[];
  /** Verify with this secret (and register with it, when registering). */
  secret?: string;
  /** Register with the sandbox (default true; needs stateDir). */
  register?: boolean;
  /** Answer every verified delivery with this status (e.g. 500 to watch the retry schedule). */
  status?: number;
  /** Also POST each verified delivery, headers and raw body unchanged, to this URL and answer with its status. */
  forwardTo?: string;
  toleranceSeconds?: number;
  onDelivery?: (delivery: ListenedDelivery) => void;
}

export interface Listener {
  url: string;
  secret: string;
  webhookId: string | undefined;
  /** Deletes the registered endpoint (unless `keep`) and stops the server. */
  close(options?: { keep?: boolean }): Promise<void>;
}

interface ClockState {
  nowMs: number;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * How far the sandbox's clock runs ahead of the wall clock (ms), or undefined when no sandbox answers. The one
 * clock rule for webhooks: a delivery is signed and judged by the clock of the service that sends it — the sandbox
 * clock for a sandbox (it runs ahead after `sandbox clock advance`), the wall clock elsewhere. `webhooks listen`
 * judges by it and `certify webhook-receiver` signs by it, so the two agree before and after an advance.
 */
export async function sandboxClockOffset(stateDir: string | undefined): Promise<number | undefined> {
  if (stateDir === undefined) return undefined;
  try {
    const { data } = await sandboxApi<ClockState>(stateDir, 'GET', '/api/v1/sandbox/clock');
    return typeof data.nowMs === 'number' ? data.nowMs - Date.now() : undefined;
  } catch {
    return undefined;
  }
}

/** The listener's clock: the sandbox clock when it can read it (see `sandboxClockOffset`), in Unix seconds. */
function sandboxNow(stateDir: string | undefined): () => Promise<number> {
  let offset = 0;
  return async () => {
    // Keep the last known offset (or none) when the sandbox does not answer: a stopped sandbox still lets it verify.
    offset = (await sandboxClockOffset(stateDir)) ?? offset;
    return Math.floor((Date.now() + offset) / 1000);
  };
}

export async function startWebhookListener(options: ListenOptions): Promise<Listener> {
  const register = options.register ?? options.stateDir !== undefined;
  if (register && options.stateDir === undefined) throw new UsageError('registering needs the sandbox state folder (--state-dir)', DOCS);
  if (!register && options.secret === undefined)
    throw new UsageError('without registering, pass the endpoint secret to verify with (--secret whsec_…)', DOCS);
  const now = sandboxNow(options.stateDir);
  const seen = new ProcessedEvents();
  let secret = options.secret ?? '';

  const server: Server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      const delivery: ListenedDelivery = { receivedAt: new Date().toISOString(), verified: false, duplicate: false, answered: 401 };
      try {
        const verified = verifyWebhook({
          secret,
          rawBody: raw,
          headers: req.headers,
          nowSeconds: await now(),
          ...(options.toleranceSeconds === undefined ? {} : { toleranceSeconds: options.toleranceSeconds }),
        });
        Object.assign(delivery, {
          verified: true,
          eventType: verified.event.type,
          eventId: verified.event.id,
          deliveryId: verified.deliveryId,
          webhookId: verified.webhookId,
          event: verified.event,
          duplicate: !seen.firstTime(verified.event.id),
          answered: options.status ?? 200,
        });
        if (options.forwardTo !== undefined) {
          const forwarded = await fetch(options.forwardTo, {
            method: 'POST',
            headers: Object.fromEntries(
              Object.entries(req.headers).filter(([name]) => /^(content-type|x-service-)/i.test(name)) as Array<[string, string]>,
            ),
            body: raw,
            signal: AbortSignal.timeout(30_000),
          }).catch(() => undefined);
          delivery.answered = forwarded?.status ?? 502;
        }
      } catch (error) {
        if (!(error instanceof WebhookVerificationError)) throw error;
        delivery.failure = error.code;
        delivery.answered = error.status;
      }
      res.writeHead(delivery.answered, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(delivery.verified ? { received: true } : { error: delivery.failure }));
      options.onDelivery?.(delivery);
    })().catch(() => {
      res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${options.host ?? '127.0.0.1'}:${port}/webhooks`;
  const stop = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };

  let webhookId: string | undefined;
  if (register) {
    try {
      const { data } = await sandboxApi<{ webhookId: string; signingKey: string }>(options.stateDir!, 'POST', '/api/v1/webhooks', {
        url,
        events: options.events ?? ['*'],
        ...(options.secret === undefined ? {} : { secret: options.secret }),
      });
      webhookId = data.webhookId;
      secret = data.signingKey;
    } catch (error) {
      await stop();
      throw error;
    }
  }
  return {
    url,
    secret,
    webhookId,
    async close(closeOptions = {}) {
      if (webhookId !== undefined && closeOptions.keep !== true) {
        await sandboxApi(options.stateDir!, 'DELETE', `/api/v1/webhooks/${webhookId}`).catch(() => undefined);
      }
      await stop();
    },
  };
}

function describeDelivery(delivery: ListenedDelivery): string {
  const time = delivery.receivedAt.slice(11, 19);
  if (!delivery.verified) return `${time}  <-- [${delivery.answered}] rejected: ${delivery.failure}`;
  const duplicate = delivery.duplicate ? '  (duplicate event id: process once)' : '';
  return `${time}  --> ${delivery.eventType} [${delivery.eventId}]  delivery ${delivery.deliveryId}  <-- [${delivery.answered}]${duplicate}`;
}

interface WebhookListItem {
  webhookId: string;
  url: string;
  events: string[];
  status: string;
  failureStreak: number;
  pendingMessages: number;
}

interface DeliveryItem {
  deliveryId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  sentAt: string;
  statusCode: number | null;
  succeeded: boolean;
  error: string | null;
  nextAttemptAt: string | null;
}

/** `--since 2h` (ago) or an ISO time. */
function sinceOption(text: string): string {
  if (/^\d{4}-\d{2}-\d{2}T/.test(text)) return new Date(text).toISOString();
  try {
    return new Date(Date.now() - parseDuration(text)).toISOString();
  } catch {
    throw new UsageError(`--since: expected an ISO time or a duration such as 2h, got ${text}`, DOCS);
  }
}

interface ListenFlags {
  events: string[];
  port?: number;
  secret?: string;
  register: boolean;
  status?: number;
  forwardTo?: string;
  keep?: boolean;
}

interface ReplayFlags {
  since?: string;
  until?: string;
  event?: string[];
  all?: boolean;
}

export function register(program: Command): void {
  const webhooks = program.command('webhooks').description('webhook endpoints of the sandbox, and a local receiver to watch deliveries');
  const run = <A extends unknown[]>(command: (output: Output, globals: GlobalOptions, ...args: A) => Promise<void>) =>
    action(command, { docsPath: DOCS });

  webhooks
    .command('listen')
    .description('run a local receiver that verifies and prints every delivery (registers itself with the sandbox)')
    .option('--events <patterns...>', 'event types or globs to receive', ['*'])
    .option('--port <port>', 'local port (default: a free one)', (v) => Number(v))
    .option('--secret <whsec>', "signing secret to use (default: the state folder's own, the same on every run)")
    .option('--no-register', 'do not register; only verify deliveries with --secret')
    .option('--status <code>', 'answer verified deliveries with this status (e.g. 500 to watch retries)', (v) => Number(v))
    .option('--forward-to <url>', 'forward verified deliveries to your app and answer with its status')
    .option('--keep', 'keep the registered endpoint when the listener stops')
    .action(run(listen));

  webhooks.command('list').description("list the workspace's webhook endpoints").action(run(list));
  webhooks.command('test').description('send a signed webhook.test event to an endpoint now').argument('<webhookId>').action(run(test));
  webhooks.command('enable').description('re-activate a paused or disabled endpoint').argument('<webhookId>').action(run(enable));
  webhooks
    .command('replay')
    .description('send stored events again (kept 7 days): those a window missed, or named ones')
    .argument('<webhookId>')
    .option('--since <time>', 'ISO time or duration ago (e.g. 2h)')
    .option('--until <time>', 'ISO time (default now)')
    .option('--event <ids...>', 'event ids to resend')
    .option('--all', 'also resend events already delivered')
    .action(run(replay));
  webhooks.command('deliveries').description('recent delivery attempts of an endpoint').argument('<webhookId>').action(run(deliveries));
}

/** A stream, not one result: each delivery is a line on stdout (one JSON object a line with --json). */
async function listen(output: Output, globals: GlobalOptions, flags: ListenFlags): Promise<void> {
  const line = (text: string) => process.stdout.write(`${text}\n`);
  const listener = await startWebhookListener({
    stateDir: globals.stateDir,
    events: flags.events,
    register: flags.register,
    ...(flags.port === undefined ? {} : { port: flags.port }),
    // Registering without --secret: the state folder's own secret, the same on every run.
    ...(flags.secret !== undefined ? { secret: flags.secret } : flags.register ? { secret: stableListenSecret(globals.stateDir) } : {}),
    ...(flags.status === undefined ? {} : { status: flags.status }),
    ...(flags.forwardTo === undefined ? {} : { forwardTo: flags.forwardTo }),
    onDelivery: (delivery) => line(output.json ? JSON.stringify(delivery) : describeDelivery(delivery)),
  });
  if (output.json) line(JSON.stringify({ ready: true, url: listener.url, webhookId: listener.webhookId ?? null, secret: listener.secret }));
  else {
    process.stderr.write(
      `Ready! Listening on ${listener.url}` +
        (listener.webhookId === undefined ? '' : ` as webhook ${listener.webhookId} (events: ${flags.events.join(', ')})`) +
        `\nYour webhook signing secret is ${listener.secret}\nPress Ctrl-C to stop${listener.webhookId === undefined || flags.keep ? '' : ' (the endpoint is deleted)'}.\n`,
    );
  }
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void listener.close({ keep: flags.keep === true }).then(resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

async function list(output: Output, globals: GlobalOptions): Promise<void> {
  const items = (await sandboxApi<{ data: WebhookListItem[] }>(globals.stateDir, 'GET', '/api/v1/webhooks?limit=100')).data.data;
  output.result(
    () =>
      items.length === 0
        ? 'No webhook endpoints.'
        : items
            .map(
              (w) =>
                `${w.webhookId}  ${w.status.padEnd(8)}  ${w.url}  [${w.events.join(', ')}]  pending ${w.pendingMessages}, failure streak ${w.failureStreak}`,
            )
            .join('\n'),
    items,
  );
}

async function test(output: Output, globals: GlobalOptions, webhookId: string): Promise<void> {
  const { data } = await sandboxApi<{ eventId: string; delivery: DeliveryItem }>(
    globals.stateDir,
    'POST',
    `/api/v1/webhooks/${webhookId}/test`,
  );
  output.result(
    () =>
      `Sent ${data.eventId}: ${data.delivery.succeeded ? 'delivered' : 'failed'} (${data.delivery.statusCode ?? data.delivery.error}) in ${data.delivery.sentAt}`,
    data,
  );
}

async function enable(output: Output, globals: GlobalOptions, webhookId: string): Promise<void> {
  const { data } = await sandboxApi<WebhookListItem>(globals.stateDir, 'POST', `/api/v1/webhooks/${webhookId}/enable`);
  output.result(() => `${data.webhookId} is ${data.status}; ${data.pendingMessages} held event(s) resume.`, data);
}

async function replay(output: Output, globals: GlobalOptions, webhookId: string, flags: ReplayFlags): Promise<void> {
  const body = {
    ...(flags.since === undefined ? {} : { since: sinceOption(flags.since) }),
    ...(flags.until === undefined ? {} : { until: new Date(flags.until).toISOString() }),
    ...(flags.event === undefined ? {} : { eventIds: flags.event }),
    ...(flags.all === true ? { includeDelivered: true } : {}),
  };
  const { data } = await sandboxApi<{ replayed: number; skipped: number; truncated: boolean }>(
    globals.stateDir,
    'POST',
    `/api/v1/webhooks/${webhookId}/replay`,
    body,
  );
  output.result(
    () =>
      `Queued ${data.replayed} event(s) again; ${data.skipped} already delivered or on their way${data.truncated ? '; more remain: run again from nextSince' : ''}.`,
    data,
  );
}

async function deliveries(output: Output, globals: GlobalOptions, webhookId: string): Promise<void> {
  const items = (await sandboxApi<{ data: DeliveryItem[] }>(globals.stateDir, 'GET', `/api/v1/webhooks/${webhookId}/deliveries?limit=100`))
    .data.data;
  output.result(
    () =>
      items
        .map(
          (d) =>
            `${d.sentAt}  ${d.eventType} [${d.eventId}] attempt ${d.attempt}: ${d.succeeded ? 'ok' : 'failed'} (${d.statusCode ?? d.error})` +
            (d.nextAttemptAt === null ? '' : `, next at ${d.nextAttemptAt}`),
        )
        .join('\n') || 'No attempts yet.',
    items,
  );
}
