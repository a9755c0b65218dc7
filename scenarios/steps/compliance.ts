import type { Step } from '../core/scenario.js';
import { expectEqual } from '../core/errors.js';

export interface ComplianceStatus {
  address: string;
  status: 'approved' | 'rejected';
  kyc: string;
  sanctions: 'clear' | 'hit';
  travelRule: string;
  attestation: { hash: string; issuedAt: string; expiresAt: string } | null;
}

/**
 * `GET /api/v1/compliance/status?address=`: the taker's screening and, when approved, an attestation; its hash is
 * stored under `name` for `order(…, { attestation: name })` (null when none was issued).
 */
export function attest(
  name: string,
  options: { taker: string; expect?: Partial<Pick<ComplianceStatus, 'status' | 'sanctions' | 'kyc'>> },
): Step {
  return {
    title: `compliance status ${name}: ${options.taker}`,
    async run(context) {
      const taker = context.taker(options.taker);
      const status = await context.rest.request<ComplianceStatus>('GET', `/api/v1/compliance/status?address=${taker.address}`, undefined, {
        apiKey: null,
      });
      if (options.expect !== undefined) {
        const seen = Object.fromEntries(Object.keys(options.expect).map((key) => [key, status[key as keyof ComplianceStatus]]));
        expectEqual(seen, options.expect, `compliance status of ${options.taker}`);
      }
      context.values.set(name, status.attestation?.hash ?? null);
      context.values.set(`${name}:status`, status);
      return `${status.status} (kyc ${status.kyc}, sanctions ${status.sanctions})${status.attestation ? `, attestation until ${status.attestation.expiresAt}` : ', no attestation'}`;
    },
  };
}
