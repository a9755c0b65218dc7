import type { Command } from 'commander';
import { type ListenedDelivery, startWebhookListener } from '../../api/webhook-listener.js';
import { parseDuration } from '../../clock/index.js';
import { action, type GlobalOptions, type Output, UsageError } from '../output.js';
import { stableListenSecret } from '../listen-secret.js';
import { sandboxApi } from '../sandbox-api.js';
import type { DeliveryAttempt } from '../../contracts/wire/webhooks.js';

const DOCS = 'docs/realtime-and-webhooks.md';

/**
 * `sandbox webhooks …`: `listen` runs a local receiver (src/api/webhook-listener.ts, which `sandbox demo retries`
 * runs too) that verifies and prints every delivery (like `stripe
 * listen`), registering itself with the running sandbox unless told otherwise; the other subcommands manage
 * endpoints over the API.
 */

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

type DeliveryItem = DeliveryAttempt;

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
