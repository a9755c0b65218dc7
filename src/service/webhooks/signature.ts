import { createHmac } from 'node:crypto';

/**
 * `X-Service-Signature`: lowercase hex HMAC-SHA256 over `<timestamp>.<raw body>`, keyed with the bytes of the
 * endpoint's secret string (the whole `whsec_…` text, as the conventions' test vector uses it).
 */
export function signDelivery(secret: string, timestampSeconds: number, body: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestampSeconds}.${body}`, 'utf8').digest('hex');
}
