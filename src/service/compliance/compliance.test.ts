import { afterEach, describe, expect, it } from 'vitest';
import { privateKeyToAddress } from 'viem/accounts';
import { ComplianceError } from '../errors/api-errors.js';
import { startTestService, type TestService } from '../../../test/support/service/service.js';
import type { ComplianceModule } from './module.js';

const alice = privateKeyToAddress('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const bob = privateKeyToAddress('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a');
const HOUR = 3_600_000;

let running: TestService | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

describe('compliance status and attestations', () => {
  it('issues a fresh attestation to an approved participant, the same one while more than half its life remains', async () => {
    running = await startTestService();
    const first = await running.request('GET', `/api/v1/compliance/status?address=${alice}`, { key: null });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      address: alice,
      environment: 'sandbox',
      mocked: true,
      status: 'approved',
      kyc: 'approved',
      sanctions: 'clear',
      travelRule: 'ready',
    });
    const hash = first.body.attestation.hash as string;
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(Date.parse(first.body.attestation.expiresAt) - Date.parse(first.body.attestation.issuedAt)).toBe(HOUR);

    await running.clock.advance(HOUR / 2 - 1);
    const again = await running.request('GET', `/api/v1/compliance/status?address=${alice}`, { key: null });
    expect(again.body.attestation.hash).toBe(hash);
    await running.clock.advance(2);
    const renewed = await running.request('GET', `/api/v1/compliance/status?address=${alice}`, { key: null });
    expect(renewed.body.attestation.hash).not.toBe(hash);
  });

  it('refuses a missing, malformed, unknown, expired or foreign attestation with attestation_expired on the header', async () => {
    running = await startTestService();
    const compliance = running.service.module<ComplianceModule>('compliance');
    const hash = (await running.request('GET', `/api/v1/compliance/status?address=${alice}`)).body.attestation.hash as string;
    expect(compliance.requireAttestation(hash, alice).hash).toBe(hash);
    expect(compliance.requireAttestation(hash.toUpperCase().replace('0X', '0x'), alice).hash).toBe(hash);
    const refusals: Array<[string | undefined, string]> = [
      [undefined, 'needs a fresh'],
      ['', 'needs a fresh'],
      ['0x1234', '32-byte'],
      [`0x${'ab'.repeat(32)}`, 'not an attestation this service issued'],
    ];
    for (const [header, text] of refusals) {
      const error = (() => {
        try {
          compliance.requireAttestation(header, alice);
        } catch (e) {
          return e as ComplianceError;
        }
        throw new Error('accepted');
      })();
      expect(error).toBeInstanceOf(ComplianceError);
      expect(error).toMatchObject({ status: 403, code: 'attestation_expired', param: 'X-Service-Attestation' });
      expect(error.message).toContain(text);
    }
    expect(() => compliance.requireAttestation(hash, bob)).toThrow(/another address/);
    await running.clock.advance(HOUR - 1);
    expect(compliance.requireAttestation(hash, alice).hash).toBe(hash);
    await running.clock.advance(1);
    expect(() => compliance.requireAttestation(hash, alice)).toThrow(/expired/);
  });

  it('screens deterministically: sandbox approves all but the sanctioned, production only the allow list', async () => {
    running = await startTestService({ compliance: { sanctioned: [bob.toLowerCase()] } });
    const hit = await running.request('GET', `/api/v1/compliance/status?address=${bob}`, { key: null });
    expect(hit.body).toMatchObject({ status: 'rejected', sanctions: 'hit', kyc: 'approved', attestation: null });
    await running.stop();

    running = await startTestService({ environment: 'production', compliance: { allowList: [alice] } });
    const approved = await running.request('GET', `/api/v1/compliance/status?address=${alice}`, { key: null });
    expect(approved.body).toMatchObject({ environment: 'production', mocked: false, status: 'approved', kyc: 'approved' });
    expect(approved.body.attestation.hash).toMatch(/^0x[0-9a-f]{64}$/);
    const unknown = await running.request('GET', `/api/v1/compliance/status?address=${bob}`, { key: null });
    expect(unknown.body).toMatchObject({ status: 'rejected', kyc: 'rejected', travelRule: 'not_ready', attestation: null });
  });

  it('answers a bad address with a 400 in Format B (compliance status is a Reference B route)', async () => {
    running = await startTestService();
    const response = await running.request('GET', '/api/v1/compliance/status?address=0x12', { key: null });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'INVALID_REQUEST' });
    expect(response.body.error.message).toContain('address');
  });
});
