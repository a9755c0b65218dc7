import { Agent as HttpAgent, type IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import { parseRetryAfter } from './schedule.js';
import { signDelivery } from './signature.js';

export interface DeliveryRequest {
  url: string;
  secret: string;
  /** Sent byte for byte; the signature covers exactly this text. */
  body: string;
  eventType: string;
  webhookId: string;
  /** X-Service-DeliveryId: unique per attempt. */
  deliveryId: string;
  /** X-Service-Timestamp: Unix seconds of the service clock at sending. */
  timestampSeconds: number;
}

export interface DeliveryResult {
  succeeded: boolean;
  statusCode: number | null;
  error: string | null;
  /** From Retry-After on a 429 or 503. */
  retryAfterMs: number | undefined;
  /** Wall-clock duration of the request. */
  durationMs: number;
}

export interface SenderOptions {
  /** Wall-clock time the receiver has to answer (the spec's 30 s). */
  timeoutMs: number;
  /** Re-checks the target before each attempt (the URL policy); throws to refuse. */
  checkTarget?: (url: string) => Promise<void>;
}

/** Bytes of a receiver's answer read (and dropped); a longer answer is cut off there. */
const MAX_RESPONSE_BYTES = 64 * 1024;

function describeFailure(error: unknown, timeoutMs: number): string {
  const err = error as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return `timeout: no answer within ${Math.round(timeoutMs / 1000)} s`;
  const code = err.code ?? err.cause?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset by the receiver';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host does not resolve';
  return `${code ?? err.name ?? 'error'}: ${err.cause?.message ?? err.message ?? String(error)}`.slice(0, 300);
}

/** Reads (and drops) up to MAX_RESPONSE_BYTES of the answer, so a kept-alive connection can carry the next one. */
async function drain(response: IncomingMessage): Promise<void> {
  let read = 0;
  try {
    for await (const chunk of response) {
      read += (chunk as Buffer).byteLength;
      if (read > MAX_RESPONSE_BYTES) {
        response.destroy();
        return;
      }
    }
  } catch {
    // The answer's status is what counts; a broken body after it changes nothing.
  }
}

/** The first value of a response header. */
function header(response: IncomingMessage, name: string): string | null {
  const value = response.headers[name];
  return value === undefined ? null : Array.isArray(value) ? (value[0] ?? null) : value;
}

/**
 * One signed POST with a real HTTP client. A delivery succeeds on a 2xx within the timeout; any other status,
 * 3xx included (redirects are not followed), a network error or the timeout is a failure.
 *
 * Node's own `http`/`https`, one connection per attempt, not the global `fetch`: fetch's shared dispatcher (undici 6
 * in Node 20) keeps a connection pool for every origin it ever reached, also after its connections closed.
 * Receivers come and go on new ports (every scenario run, every CI job's listener), and a sandbox that lived through 5
 * catalogue runs held 201 such pools with 598 clients, heap it never gave back (docs/hardening.md, "Soak"). An agent
 * without keep-alive holds nothing for an origin once its attempt is over, and no attempt can meet a kept-alive
 * connection the receiver is closing (a retry 5 s later meets Node's default 5 s keep-alive timeout exactly).
 */
export class WebhookSender {
  private readonly agents = { http: new HttpAgent({ keepAlive: false }), https: new HttpsAgent({ keepAlive: false }) };

  constructor(private readonly options: SenderOptions) {}

  async send(request: DeliveryRequest): Promise<DeliveryResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    if (this.options.checkTarget !== undefined) {
      try {
        await this.options.checkTarget(request.url);
      } catch (error) {
        return {
          succeeded: false,
          statusCode: null,
          error: `refused: ${(error as Error).message}`,
          retryAfterMs: undefined,
          durationMs: elapsed(),
        };
      }
    }
    const signature = signDelivery(request.secret, request.timestampSeconds, request.body);
    try {
      const signal = AbortSignal.timeout(this.options.timeoutMs);
      const response = await this.post(request, signature, signal);
      await drain(response);
      const status = response.statusCode ?? 0;
      const succeeded = status >= 200 && status < 300;
      const retryAfterMs =
        status === 429 || status === 503 ? parseRetryAfter(header(response, 'retry-after'), header(response, 'date')) : undefined;
      return {
        succeeded,
        statusCode: status,
        error: succeeded ? null : `HTTP ${status}`,
        retryAfterMs,
        durationMs: elapsed(),
      };
    } catch (error) {
      return {
        succeeded: false,
        statusCode: null,
        error: describeFailure(error, this.options.timeoutMs),
        retryAfterMs: undefined,
        durationMs: elapsed(),
      };
    }
  }

  private post(request: DeliveryRequest, signature: string, signal: AbortSignal): Promise<IncomingMessage> {
    const url = new URL(request.url);
    const secure = url.protocol === 'https:';
    const body = Buffer.from(request.body);
    return new Promise((resolve, reject) => {
      const outgoing = (secure ? httpsRequest : httpRequest)(
        url,
        {
          method: 'POST',
          agent: secure ? this.agents.https : this.agents.http,
          signal,
          headers: {
            'Content-Type': 'application/json',
            'Content-Length': String(body.byteLength),
            'User-Agent': 'SettlementService-Webhooks/1',
            'X-Service-Signature': signature,
            'X-Service-Timestamp': String(request.timestampSeconds),
            'X-Service-Event': request.eventType,
            'X-Service-WebhookId': request.webhookId,
            'X-Service-DeliveryId': request.deliveryId,
          },
        },
        resolve,
      );
      // `on`, not `once`: an abort after the answer arrived errors the request again, and is the drain's to see.
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  }
}
