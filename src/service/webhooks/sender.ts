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

/** Bytes of a receiver's answer read (and dropped) so the connection can be reused. */
const MAX_RESPONSE_BYTES = 64 * 1024;

function describeFailure(error: unknown, timeoutMs: number): string {
  const err = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return `timeout: no answer within ${Math.round(timeoutMs / 1000)} s`;
  const code = err.cause?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset by the receiver';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host does not resolve';
  return `${code ?? err.name ?? 'error'}: ${err.cause?.message ?? err.message ?? String(error)}`.slice(0, 300);
}

async function drain(body: ReadableStream<Uint8Array> | null): Promise<void> {
  if (body === null) return;
  const reader = body.getReader();
  let read = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.byteLength;
      if (read > MAX_RESPONSE_BYTES) {
        await reader.cancel();
        return;
      }
    }
  } catch {
    // The answer's status is what counts; a broken body after it changes nothing.
  }
}

/**
 * One signed POST with a real HTTP client. A delivery succeeds on a 2xx within the timeout; any other status,
 * 3xx included (redirects are not followed), a network error or the timeout is a failure.
 */
export class WebhookSender {
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
      const response = await fetch(request.url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(this.options.timeoutMs),
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': 'SettlementService-Webhooks/1',
          'X-Service-Signature': signature,
          'X-Service-Timestamp': String(request.timestampSeconds),
          'X-Service-Event': request.eventType,
          'X-Service-WebhookId': request.webhookId,
          'X-Service-DeliveryId': request.deliveryId,
        },
        body: request.body,
      });
      await drain(response.body);
      const succeeded = response.status >= 200 && response.status < 300;
      const retryAfterMs =
        response.status === 429 || response.status === 503
          ? parseRetryAfter(response.headers.get('retry-after'), response.headers.get('date'))
          : undefined;
      return {
        succeeded,
        statusCode: response.status,
        error: succeeded ? null : `HTTP ${response.status}`,
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
}
