import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { computeWebhookSignature } from '../../clients/webhook-verifier.js';
import { signDelivery } from './signature.js';

describe('X-Service-Signature', () => {
  // The test vector of conventions.md: key as ASCII bytes, content `<timestamp>.<body>`.
  const key = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const expected = '2e37df5d4a028c51a7f3133d64ae1e300d2c2c900f1b1d49d4369ad2530f8964';

  it('matches the conventions test vector (service signer, client verifier, and node:crypto directly)', () => {
    expect(signDelivery(key, 1614265330, '{"test": 2432232314}')).toBe(expected);
    expect(computeWebhookSignature(key, '1614265330', '{"test": 2432232314}')).toBe(expected);
    expect(computeWebhookSignature(key, 1614265330, Buffer.from('{"test": 2432232314}'))).toBe(expected);
    expect(createHmac('sha256', key).update('1614265330.{"test": 2432232314}').digest('hex')).toBe(expected);
  });

  it('changes with every input: body byte, timestamp, key', () => {
    expect(signDelivery(key, 1614265330, '{"test": 2432232315}')).not.toBe(expected);
    expect(signDelivery(key, 1614265331, '{"test": 2432232314}')).not.toBe(expected);
    expect(signDelivery(`${key}x`, 1614265330, '{"test": 2432232314}')).not.toBe(expected);
    // Re-serialised JSON is different text, hence a different signature.
    expect(signDelivery(key, 1614265330, JSON.stringify(JSON.parse('{"test": 2432232314}')))).not.toBe(expected);
  });

  it('signs non-ASCII bodies as UTF-8', () => {
    const body = '{"memo":"Zürich → 東京"}';
    expect(signDelivery(key, 1, body)).toBe(
      createHmac('sha256', key)
        .update(Buffer.from(`1.${body}`, 'utf8'))
        .digest('hex'),
    );
  });
});
