import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ProcessedEvents, verifyWebhook, WebhookVerificationError } from './webhook-verifier.js';

const secret = 'whsec_test_0123456789abcdefABCDEF0123456789';
const now = 1_900_000_000;
const body = '{"type":"order.created","id":"evt_abc","timestamp":"2030-03-17T17:46:40.000Z","order":{"id":"ord_1","amount":"25000.00"}}';

function sign(text: string, timestamp: number | string, key = secret): string {
  return createHmac('sha256', key).update(`${timestamp}.${text}`).digest('hex');
}

function headers(overrides: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    'X-Service-Signature': sign(body, now),
    'X-Service-Timestamp': String(now),
    'X-Service-Event': 'order.created',
    'X-Service-WebhookId': 'wh_1',
    'X-Service-DeliveryId': 'dlv_1',
    ...overrides,
  };
}

function failure(run: () => unknown): { code: string; status: number } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    const e = error as WebhookVerificationError;
    return { code: e.code, status: e.status };
  }
  throw new Error('expected verification to fail');
}

describe('verifyWebhook: the receiver attack pack', () => {
  it('accepts a valid delivery (plain headers or a Headers object) and returns the event', () => {
    const verified = verifyWebhook({ secret, rawBody: body, headers: headers(), nowSeconds: now });
    expect(verified).toMatchObject({
      event: { type: 'order.created', id: 'evt_abc' },
      timestamp: now,
      deliveryId: 'dlv_1',
      webhookId: 'wh_1',
      eventType: 'order.created',
    });
    const viaHeaders = new Headers(headers() as Record<string, string>);
    expect(verifyWebhook({ secret, rawBody: Buffer.from(body), headers: viaHeaders, nowSeconds: now }).event.id).toBe('evt_abc');
  });

  const cases: Array<[string, () => unknown, string]> = [
    [
      'wrong secret',
      () => verifyWebhook({ secret: `${secret}x`, rawBody: body, headers: headers(), nowSeconds: now }),
      'signature_mismatch',
    ],
    [
      'body changed by one byte',
      () => verifyWebhook({ secret, rawBody: body.replace('25000', '25001'), headers: headers(), nowSeconds: now }),
      'signature_mismatch',
    ],
    [
      're-serialised body',
      () => verifyWebhook({ secret, rawBody: JSON.stringify(JSON.parse(body), null, 1), headers: headers(), nowSeconds: now }),
      'signature_mismatch',
    ],
    [
      'truncated signature',
      () =>
        verifyWebhook({
          secret,
          rawBody: body,
          headers: headers({ 'X-Service-Signature': sign(body, now).slice(0, 63) }),
          nowSeconds: now,
        }),
      'signature_malformed',
    ],
    [
      'uppercase signature',
      () =>
        verifyWebhook({
          secret,
          rawBody: body,
          headers: headers({ 'X-Service-Signature': sign(body, now).toUpperCase() }),
          nowSeconds: now,
        }),
      'signature_malformed',
    ],
    [
      'empty signature',
      () => verifyWebhook({ secret, rawBody: body, headers: headers({ 'X-Service-Signature': '' }), nowSeconds: now }),
      'signature_missing',
    ],
    [
      'missing signature',
      () => verifyWebhook({ secret, rawBody: body, headers: headers({ 'X-Service-Signature': undefined }), nowSeconds: now }),
      'signature_missing',
    ],
    [
      'missing timestamp',
      () => verifyWebhook({ secret, rawBody: body, headers: headers({ 'X-Service-Timestamp': undefined }), nowSeconds: now }),
      'timestamp_missing',
    ],
    [
      'non-numeric timestamp',
      () => verifyWebhook({ secret, rawBody: body, headers: headers({ 'X-Service-Timestamp': 'yesterday' }), nowSeconds: now }),
      'timestamp_invalid',
    ],
    [
      'signature of another timestamp',
      () => verifyWebhook({ secret, rawBody: body, headers: headers({ 'X-Service-Timestamp': String(now - 1) }), nowSeconds: now }),
      'signature_mismatch',
    ],
    [
      'timestamp now-301 s',
      () =>
        verifyWebhook({
          secret,
          rawBody: body,
          headers: headers({ 'X-Service-Timestamp': String(now - 301), 'X-Service-Signature': sign(body, now - 301) }),
          nowSeconds: now,
        }),
      'timestamp_too_old',
    ],
    [
      'timestamp now+301 s',
      () =>
        verifyWebhook({
          secret,
          rawBody: body,
          headers: headers({ 'X-Service-Timestamp': String(now + 301), 'X-Service-Signature': sign(body, now + 301) }),
          nowSeconds: now,
        }),
      'timestamp_in_future',
    ],
    [
      'signed body that is not an event',
      () => verifyWebhook({ secret, rawBody: '[1]', headers: headers({ 'X-Service-Signature': sign('[1]', now) }), nowSeconds: now }),
      'body_invalid',
    ],
  ];
  for (const [name, run, code] of cases) {
    it(`rejects: ${name}`, () => {
      const result = failure(run);
      expect(result.code).toBe(code);
      expect(result.status).toBe(code === 'body_invalid' ? 400 : 401);
    });
  }

  it('accepts the edges: exactly 300 s old and 300 s ahead', () => {
    for (const ts of [now - 300, now + 300]) {
      expect(
        verifyWebhook({
          secret,
          rawBody: body,
          headers: headers({ 'X-Service-Timestamp': String(ts), 'X-Service-Signature': sign(body, ts) }),
          nowSeconds: now,
        }).timestamp,
      ).toBe(ts);
    }
  });

  it('de-duplicates a second delivery of one event id within 48 h, and forgets it after', () => {
    let clock = 0;
    const seen = new ProcessedEvents(48 * 3_600_000, () => clock);
    expect(seen.firstTime('evt_abc')).toBe(true);
    expect(seen.firstTime('evt_abc')).toBe(false);
    expect(seen.firstTime('evt_other')).toBe(true);
    clock = 48 * 3_600_000;
    expect(seen.firstTime('evt_abc')).toBe(true);
  });
});
