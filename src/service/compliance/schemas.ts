import { z } from 'zod';
import { Address, IsoTimestamp } from '../api/wire.js';

export const ComplianceStatusQuery = z.object({ address: Address.meta({ description: 'The participant to screen.' }) });

export const ComplianceAttestation = z.object({
  hash: z
    .string()
    .regex(/^0x[0-9a-f]{64}$/)
    .meta({ description: 'Send as `X-Service-Attestation` on compliance-sensitive requests.' }),
  issuedAt: IsoTimestamp,
  expiresAt: IsoTimestamp,
});

export const ComplianceStatus = z.object({
  address: Address,
  environment: z.enum(['sandbox', 'production']),
  mocked: z.boolean().meta({ description: 'True in the sandbox: checks are mocked and deterministic.' }),
  status: z.enum(['approved', 'rejected']),
  kyc: z.enum(['approved', 'rejected']).meta({ description: 'KYC/KYB state.' }),
  sanctions: z.enum(['clear', 'hit']).meta({ description: 'Sanctions screening result.' }),
  travelRule: z.enum(['ready', 'not_ready']).meta({ description: 'Travel Rule readiness.' }),
  attestation: ComplianceAttestation.nullable().meta({ description: 'A fresh attestation for an approved participant, else null.' }),
});
export type ComplianceStatus = z.infer<typeof ComplianceStatus>;
