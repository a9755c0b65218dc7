import { z } from 'zod';
import { Address, IsoTimestamp, nonBlankText } from '../api/wire.js';

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

export const CounterpartyCreateRequest = z.strictObject({
  name: nonBlankText(200).meta({ description: 'Legal name (stored trimmed).' }),
  jurisdiction: z
    .string()
    .regex(/^[A-Za-z]{2}$/)
    .meta({ description: 'ISO 3166-1 alpha-2 country code (any case; stored uppercase).', example: 'DE' }),
  addresses: z.array(Address).min(1).max(50).meta({ description: 'Wallet addresses the counterparty trades from (1–50).' }),
});

export const CounterpartyParams = z.object({
  counterpartyId: z
    .string()
    .regex(/^cpty_[A-Za-z0-9]+$/)
    .meta({ description: 'Counterparty id (`cpty_…`).', example: 'cpty_0example' }),
});

export const CounterpartyView = z.object({
  object: z.literal('counterparty'),
  id: z.string(),
  workspaceId: z.string(),
  name: z.string(),
  jurisdiction: z.string(),
  addresses: z.array(z.string()),
  screening: z.object({
    status: z.enum(['approved', 'failed']).meta({
      description: 'Screened once at registration: `failed` refuses its addresses on the compliant rail (403).',
    }),
    reason: z.string(),
    ledgerSequence: z.number().int().nonnegative().meta({ description: 'The evidence ledger entry of the screening.' }),
  }),
  createdAt: IsoTimestamp,
});
