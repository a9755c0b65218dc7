import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The spec's webhook signature: lowercase hex HMAC-SHA256 of `<timestamp>.<raw body>`, keyed with the secret
 * string's bytes. Kept here so the certifier verifies deliveries (and signs its attack pack) with its own code.
 */
export function webhookSignature(secret: string, timestamp: string | number, rawBody: string | Buffer): string {
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(Buffer.concat([Buffer.from(`${timestamp}.`, 'utf8'), body]))
    .digest('hex');
}

/** Constant-time comparison of a received signature with the expected one. */
export function signatureMatches(secret: string, timestamp: string, rawBody: Buffer, received: string): boolean {
  const expected = Buffer.from(webhookSignature(secret, timestamp, rawBody), 'utf8');
  const given = Buffer.from(received, 'utf8');
  return expected.length === given.length && timingSafeEqual(expected, given);
}
