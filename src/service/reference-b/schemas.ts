/**
 * Wire shapes of the Reference B routes. The spec names their purpose but not their fields; these are our design,
 * documented in docs/reference-b.md and the OpenAPI document.
 */
import { z } from 'zod';
import { Preference, Quote, SettlementPath, SwapType } from '../auction/schemas.js';
import { LockType } from '../corridors/schemas.js';
import { ORDER_STATUSES } from '../../contracts/wire/enums.js';
import { Address, ChainId, IsoTimestamp, PositiveUintString, UintString } from '../api/wire.js';
import { CallbackUrl } from '../../contracts/wire/auction.js';
import { EMAIL_PATTERN, WEB_URL_PATTERN } from '../../contracts/wire/urls.js';

const Hash = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 32-byte hex hash');
const DecimalPrice = z.string().meta({ description: 'Output per input in whole tokens (decimal string).' });

// ---- POST /rfq --------------------------------------------------------------------------------------------------

export const RfqQuote = Quote.extend({
  price: DecimalPrice,
  ttl: z.number().int().nonnegative().meta({ description: 'Seconds the quote stays valid from its creation.' }),
});

export const RfqResponse = z.object({
  rfqId: z.string(),
  rfq: z.object({
    id: z.string(),
    pair: z.string(),
    side: z.enum(['buy', 'sell']),
    amount: z.string().meta({ description: 'Decimal string of whole tokens, as requested.' }),
    corridor: z.string(),
    deadline: z.number().int().meta({ description: 'Unix seconds: the end of the auction window.' }),
  }),
  quotes: z.array(RfqQuote).meta({ description: 'Every quote received within the auction window, best first.' }),
  uccpBps: z.number(),
  corridor: z.string(),
  requestId: z.string(),
  preference: Preference,
  swapType: SwapType,
  fillDeadline: z.number().int().meta({ description: 'Unix seconds; the solver must fill by then.' }),
  expires: z.number().int().meta({ description: 'Unix seconds; the escrow refunds after it.' }),
});

// ---- POST /accept -----------------------------------------------------------------------------------------------

const Nonce = z
  .union([z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER), UintString])
  .meta({ description: "The nonce of the signed order: the quote's `nonce` (monotonic per user)." });

export const AcceptRequest = z
  .strictObject({
    rfqId: z.string().min(1).max(100).meta({ description: 'The RFQ the quote answers.' }),
    quoteId: z.string().min(1).max(100).meta({ description: "The solver's quote to accept (one of the RFQ's)." }),
    signature: z
      .string()
      .regex(/^0x(?:[0-9a-fA-F]{2}){64,4096}$/, 'must be a 64- or 65-byte signature (or an ERC-1271 blob)')
      .meta({
        description: "EIP-712 signature over the quote's typed data (GET /api/v1/quotes/{quoteId}?user=…).",
      }),
    nonce: Nonce,
    user: Address.optional().meta({ description: 'The signer; needed unless the RFQ named the user.' }),
  })
  .meta({ description: "Accept a solver's quote: starts settlement with the escrow deposit on the origin chain." });
export type AcceptRequest = z.output<typeof AcceptRequest>;

const EscrowLocked = z.object({
  status: z.literal('locked'),
  chainId: ChainId,
  settler: Address.nullable().meta({ description: 'The input settler (escrow or resource-lock settler) on the origin chain.' }),
  lockType: LockType,
  onchainOrderId: Hash,
  token: Address,
  amount: UintString,
  depositTxHash: Hash.meta({ description: 'The relayed deposit (openFor); for ResourceLock the EIP-712 digest of the signed compact.' }),
});

export const AcceptResponse = z.object({
  settlementId: z.string(),
  orderId: z.string(),
  rfqId: z.string(),
  quoteId: z.string(),
  solverId: z.string(),
  status: z.literal('pending'),
  price: DecimalPrice,
  inputAmount: UintString,
  outputAmount: UintString,
  escrow: EscrowLocked,
  fillDeadline: z.number().int().meta({ description: 'Unix seconds.' }),
  expires: z.number().int().meta({ description: 'Unix seconds; refunds are possible after it.' }),
  createdAt: IsoTimestamp,
});

// ---- GET /settlements/{id} --------------------------------------------------------------------------------------

export const SettlementIdParams = z.object({
  id: z.string().regex(/^(stl|ord)_[0-9a-z]{1,64}$/, 'must be a settlement id (stl_…) or an order id (ord_…)'),
});

export const SettlementDetail = z.object({
  settlementId: z.string(),
  orderId: z.string(),
  rfqId: z.string(),
  quoteId: z.string(),
  status: z.enum(['pending', 'complete', 'failed']),
  // Inline in the document (a schema of its own, not the named component), as it always was.
  orderStatus: z.enum(ORDER_STATUSES),
  corridor: z.string(),
  lockType: LockType,
  settlementPath: SettlementPath,
  escrow: z.object({
    status: z.enum(['locked', 'released', 'refunded']),
    chainId: ChainId,
    settler: Address.nullable(),
    onchainOrderId: Hash,
    token: Address,
    amount: UintString,
    depositTxHash: Hash,
    lockedAt: IsoTimestamp,
    expires: IsoTimestamp,
    releaseTxHash: Hash.nullable().meta({ description: "The solver's claim (finalise) that released the escrow." }),
    refundTxHash: Hash.nullable().meta({ description: 'The refund; null for a ResourceLock (the taker withdraws).' }),
  }),
  proof: z.object({
    status: z.enum(['awaiting_fill', 'filled', 'verified']),
    verified: z.boolean().meta({ description: "True once the oracle's attestation of the fill is recorded on the origin chain." }),
    destinationChainId: ChainId,
    fillTxHash: Hash.nullable(),
    filledAt: IsoTimestamp.nullable(),
    attestationChainId: ChainId.nullable(),
    attestationTxHash: Hash.nullable(),
    payloadHash: Hash.nullable().meta({ description: 'keccak256 of the fill description the oracle pair carried.' }),
    attestedAt: IsoTimestamp.nullable(),
  }),
  settlementHash: Hash.nullable().meta({ description: 'The final settlement transaction: the claim (complete) or the refund (failed).' }),
  error: z.string().nullable(),
  evidence: z.object({ hash: Hash, sequence: z.number().int().positive() }).nullable().meta({
    description: "The trade's latest WORM ledger entry (GET /api/v1/audit/{tradeId} lists them all).",
  }),
  originTxHash: Hash,
  destinationTxHash: Hash.nullable(),
  inputAmount: UintString,
  outputAmount: UintString,
  fillDeadline: z.number().int(),
  createdAt: IsoTimestamp,
  settledAt: IsoTimestamp.nullable(),
  refundedAt: IsoTimestamp.nullable(),
});

// ---- GET /audit/{tradeId} ---------------------------------------------------------------------------------------

export const TradeIdParams = z.object({
  tradeId: z.string().regex(/^(stl|ord|rfq|qt)_[0-9a-z]{1,64}$/, 'must be a settlement, order, RFQ or quote id'),
});

const EntryHeader = z.object({ sequence: z.number().int().positive(), hash: Hash, prevHash: Hash });

export const AuditEntryWire = z.object({
  sequence: z.number().int().positive(),
  prevHash: Hash,
  hash: Hash,
  type: z.string(),
  tradeId: z.string(),
  recordedAt: z.string(),
  payload: z.record(z.string(), z.unknown()),
  neighbours: z.object({ previous: EntryHeader.nullable(), next: EntryHeader.nullable() }),
});

export const AuditResponse = z.object({
  tradeId: z.string(),
  settlementId: z.string().nullable(),
  orderId: z.string().nullable(),
  rfqId: z.string(),
  quoteIds: z.array(z.string()),
  entries: z.array(AuditEntryWire),
  head: EntryHeader.nullable().meta({ description: "The whole ledger's latest entry when this answer was made." }),
  verification: z.object({
    algorithm: z.literal('sha256'),
    hash: z.string(),
    preimage: z.string(),
    link: z.string(),
    genesisHash: Hash,
    selfCheck: z
      .object({
        ok: z.boolean(),
        invalid: z.array(z.number().int()),
        linkedPairs: z.number().int().nonnegative(),
      })
      .meta({ description: "The service's own recomputation; clients recompute themselves." }),
  }),
});

// ---- POST /solver/register --------------------------------------------------------------------------------------

const Jurisdiction = z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 country code, e.g. "GB"');

export const SolverRegistrationRequestB = z
  .strictObject({
    name: z.string().trim().min(1).max(100),
    corridors: z.array(z.string().min(1).max(200)).min(1).max(500),
    kyb: z
      .strictObject({
        legalName: z.string().trim().min(1).max(200),
        jurisdiction: Jurisdiction,
        registrationNumber: z.string().trim().min(1).max(100).optional(),
        registeredAddress: z.string().trim().min(1).max(500).optional(),
        contactEmail: z.string().max(254).regex(EMAIL_PATTERN, 'must be an e-mail address').optional(),
        website: z.string().max(2048).regex(WEB_URL_PATTERN, 'must be an absolute http(s) URL').optional(),
      })
      .meta({ description: 'The legal entity behind the solver (KYB).' }),
    pricing: z
      .strictObject({
        engine: z.string().trim().min(1).max(64).meta({ description: 'The pricing engine, e.g. `static`, `inventory`, `external`.' }),
        marginBps: z.number().int().min(0).max(10_000).optional(),
        minNotional: PositiveUintString.optional(),
        maxNotional: PositiveUintString.optional(),
        quoteTtlMs: z.number().int().positive().max(86_400_000).optional(),
        maxLatencyMs: z.number().int().positive().max(60_000).optional(),
        parameters: z.record(z.string().max(64), z.union([z.string().max(500), z.number(), z.boolean()])).optional(),
      })
      .meta({ description: 'Pricing-engine configuration, kept with the registration; the solver prices on its stream.' }),
    address: Address.optional().meta({
      description: 'EVM address the solver fills and claims with; screened for sanctions (needed in production).',
    }),
    callbackUrl: CallbackUrl.optional(),
  })
  .meta({ description: 'Reference B solver registration.' });
export type SolverRegistrationRequestB = z.output<typeof SolverRegistrationRequestB>;

export const SolverRegistrationResponseB = z.object({
  solverId: z.string(),
  name: z.string(),
  corridors: z.array(z.string()),
  solverKey: z
    .string()
    .meta({ description: 'Solver key (`sk_test_…` / `sk_live_…`), shown once: send it in the solver stream `auth` message.' }),
  wsUrl: z.string(),
  kyb: SolverRegistrationRequestB.shape.kyb,
  pricing: SolverRegistrationRequestB.shape.pricing,
  address: Address.nullable(),
  compliance: z.object({
    status: z.enum(['approved', 'rejected']),
    mocked: z.boolean(),
    kyb: z.enum(['approved', 'rejected']),
    sanctions: z.enum(['clear', 'hit']),
    travelRule: z.enum(['ready', 'not_ready']),
    verifiedAt: IsoTimestamp,
    reasons: z.array(z.string()),
    evidenceHash: Hash,
    evidenceSequence: z.number().int().positive(),
  }),
  createdAt: IsoTimestamp,
});

/** `rfq_…` on the shared path `GET /quotes/{id}` (the rest of the id after the prefix). */
export const RfqSuffixParams = z.object({
  rfqIdSuffix: z.string().regex(/^[0-9a-z]{1,64}$/, 'must be the rest of an RFQ id (rfq_…)'),
});

/** `user` is accepted (the quote detail of the same path takes it) and has no effect on an RFQ's view. */
export const RfqViewQuery = z.strictObject({ user: Address.optional() });
