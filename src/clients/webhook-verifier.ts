import { createHmac, timingSafeEqual } from 'node:crypto';
import { BaseError } from '../contracts/errors/base-error.js';

/**
 * Verifies webhook deliveries of the settlement service, for receivers written in TypeScript (and for our own
 * `sandbox webhooks listen`, scenarios and conformance checks). The scheme: `X-Service-Signature` is the
 * lowercase hex HMAC-SHA256 of `<X-Service-Timestamp>.<raw body>` keyed with the secret's bytes.
 *
 * Verify the raw body exactly as received: parsing and re-serialising JSON changes bytes and breaks it.
 */

export type WebhookVerificationCode =
  | 'signature_missing'
  | 'signature_malformed'
  | 'signature_mismatch'
  | 'timestamp_missing'
  | 'timestamp_invalid'
  | 'timestamp_too_old'
  | 'timestamp_in_future'
  | 'body_invalid';

export class WebhookVerificationError extends BaseError {
  override readonly name = 'WebhookVerificationError';
  /** Answer with this status: 401 for anything that fails authentication, 400 for a body that is not an event. */
  readonly status: number;
  constructor(
    override readonly code: WebhookVerificationCode,
    message: string,
  ) {
    super(message);
    this.status = code === 'body_invalid' ? 400 : 401;
  }
}

/** The envelope every event has; payload fields vary by type. */
export interface WebhookEvent {
  type: string;
  id: string;
  timestamp?: string;
  [field: string]: unknown;
}

export interface VerifiedDelivery {
  event: WebhookEvent;
  /** Unix seconds from X-Service-Timestamp. */
  timestamp: number;
  /** X-Service-DeliveryId: unique per attempt. De-duplicate processing by `event.id`. */
  deliveryId: string | undefined;
  webhookId: string | undefined;
  eventType: string | undefined;
}

export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  secret: string;
  rawBody: string | Uint8Array;
  headers: HeaderSource;
  /** Receiver's current time in Unix seconds; default the machine clock. Sandbox receivers pass the sandbox clock. */
  nowSeconds?: number;
  /** Accepted age (and lead) of the timestamp; default 300 s. */
  toleranceSeconds?: number;
}

export const SIGNATURE_HEADER = 'x-service-signature';
export const TIMESTAMP_HEADER = 'x-service-timestamp';

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

function bodyBytes(rawBody: string | Uint8Array): Buffer {
  return typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
}

/** Hex HMAC-SHA256 of `<timestamp>.<raw body>` with the secret's UTF-8 bytes as key. */
export function computeWebhookSignature(secret: string, timestamp: string | number, rawBody: string | Uint8Array): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(Buffer.concat([Buffer.from(`${timestamp}.`, 'utf8'), bodyBytes(rawBody)]))
    .digest('hex');
}

/**
 * Checks signature (constant time), timestamp age (±tolerance) and that the body is an event envelope; returns
 * the delivery or throws WebhookVerificationError (answer its `status`: 401 for a bad signature or timestamp).
 */
export function verifyWebhook(options: VerifyOptions): VerifiedDelivery {
  const tolerance = options.toleranceSeconds ?? 300;
  const signature = header(options.headers, SIGNATURE_HEADER)?.trim();
  const timestampText = header(options.headers, TIMESTAMP_HEADER)?.trim();
  if (signature === undefined || signature === '')
    throw new WebhookVerificationError('signature_missing', 'X-Service-Signature is missing.');
  if (timestampText === undefined || timestampText === '')
    throw new WebhookVerificationError('timestamp_missing', 'X-Service-Timestamp is missing.');
  if (!/^[0-9]{1,12}$/.test(timestampText))
    throw new WebhookVerificationError('timestamp_invalid', 'X-Service-Timestamp must be Unix seconds.');
  if (!/^[0-9a-f]{64}$/.test(signature))
    throw new WebhookVerificationError('signature_malformed', 'X-Service-Signature must be 64 lowercase hex digits.');

  // The signature is checked before the age, so that a forged request learns nothing about timing rules.
  const expected = Buffer.from(computeWebhookSignature(options.secret, timestampText, options.rawBody), 'hex');
  const presented = Buffer.from(signature, 'hex');
  if (!timingSafeEqual(expected, presented))
    throw new WebhookVerificationError('signature_mismatch', 'The signature does not match the body and timestamp.');

  const timestamp = Number(timestampText);
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (now - timestamp > tolerance) throw new WebhookVerificationError('timestamp_too_old', `The delivery is more than ${tolerance} s old.`);
  if (timestamp - now > tolerance)
    throw new WebhookVerificationError('timestamp_in_future', `The delivery is more than ${tolerance} s in the future.`);

  let event: unknown;
  try {
    event = JSON.parse(bodyBytes(options.rawBody).toString('utf8'));
  } catch {
    throw new WebhookVerificationError('body_invalid', 'The body is not JSON.');
  }
  if (
    typeof event !== 'object' ||
    event === null ||
    typeof (event as WebhookEvent).type !== 'string' ||
    typeof (event as WebhookEvent).id !== 'string'
  ) {
    throw new WebhookVerificationError('body_invalid', 'The body is not an event envelope {type, id, …}.');
  }
  return {
    event: event as WebhookEvent,
    timestamp,
    deliveryId: header(options.headers, 'x-service-deliveryid'),
    webhookId: header(options.headers, 'x-service-webhookid'),
    eventType: header(options.headers, 'x-service-event'),
  };
}

/**
 * Remembers processed event ids for a while (the spec advises 48 h) so at-least-once delivery becomes
 * exactly-once processing. In memory; a receiver with several instances keeps ids in its database instead.
 */
export class ProcessedEvents {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly ttlMs = 48 * 3_600_000,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** True the first time an id is seen within the TTL; false for a duplicate. */
  firstTime(eventId: string): boolean {
    const now = this.now();
    for (const [id, at] of this.seen) {
      if (now - at < this.ttlMs) break;
      this.seen.delete(id);
    }
    const at = this.seen.get(eventId);
    if (at !== undefined && now - at < this.ttlMs) return false;
    this.seen.delete(eventId);
    this.seen.set(eventId, now);
    return true;
  }
}
