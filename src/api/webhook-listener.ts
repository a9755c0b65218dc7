import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProcessedEvents, verifyWebhook, WebhookVerificationError, type WebhookEvent } from '../clients/webhook-verifier.js';
import { BaseError } from '../contracts/errors/base-error.js';
import { stateDirApi } from './state-dir-api.js';

/**
 * A local webhook receiver for a running sandbox (what `sandbox webhooks listen` runs, and `sandbox demo retries`
 * with an endpoint that fails on purpose): it verifies every delivery with the endpoint's secret, by the sandbox's
 * clock, answers with the status it is told to, and registers itself with the sandbox of a state folder unless
 * told otherwise.
 */

const DOCS = 'docs/realtime-and-webhooks.md';

/** Options that cannot work together (register without a state folder, verify without a secret): exit code 2. */
export class WebhookListenerOptionsError extends BaseError {
  override readonly name = 'WebhookListenerOptionsError';
  override readonly code = 'usage_error';
  constructor(message: string) {
    super(message, { docsPath: DOCS });
  }
}

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
  /**
   * The status to answer a verified delivery of `event` with: an endpoint that fails an event's first attempts and
   * then recovers, to show a retry series. Wins over `status`.
   */
  answer?: (event: WebhookEvent) => number;
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
    const { data } = await stateDirApi<ClockState>(stateDir, 'GET', '/api/v1/sandbox/clock');
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
  if (register && options.stateDir === undefined)
    throw new WebhookListenerOptionsError('registering needs the sandbox state folder (--state-dir)');
  if (!register && options.secret === undefined)
    throw new WebhookListenerOptionsError('without registering, pass the endpoint secret to verify with (--secret whsec_…)');
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
          answered: options.answer?.(verified.event) ?? options.status ?? 200,
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
      const { data } = await stateDirApi<{ webhookId: string; signingKey: string }>(options.stateDir!, 'POST', '/api/v1/webhooks', {
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
        await stateDirApi(options.stateDir!, 'DELETE', `/api/v1/webhooks/${webhookId}`).catch(() => undefined);
      }
      await stop();
    },
  };
}
