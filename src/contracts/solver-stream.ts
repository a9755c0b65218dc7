import { z } from 'zod';
import { LockType, SettlementPath, SwapType } from './wire/vocabulary.js';

/**
 * The solver stream's message shapes that both ends share, defined once: the service (auction, orders) sends and
 * answers with them, `src/clients/solver-stream-client.ts` reads them. Zod schemas so that a client may validate
 * what it receives; the TypeScript types are inferred from them.
 */

const hex = z.custom<`0x${string}`>((value) => typeof value === 'string' && /^0x[0-9a-fA-F]*$/.test(value), 'must be 0x-prefixed hex');
const lockType = LockType;

const mandateOutputWire = z.object({
  oracle: z.string(),
  settler: z.string(),
  chainId: z.number(),
  token: z.string(),
  amount: z.string(),
  recipient: z.string(),
  callbackData: z.string(),
  context: z.string(),
});

/** The StandardOrder in JSON form (see standard-order-wire.ts): bigints as decimal strings. */
export const StandardOrderWireSchema = z.object({
  user: z.string(),
  nonce: z.string(),
  originChainId: z.number(),
  expires: z.number(),
  fillDeadline: z.number(),
  inputOracle: z.string(),
  inputs: z.array(z.tuple([z.string(), z.string()])),
  outputs: z.array(mandateOutputWire),
});

const amount = z.string().regex(/^[1-9][0-9]{0,77}$/, 'must be a positive integer string');
const settlementPath = SettlementPath;
const swapType = SwapType;

/** The RFQ a solver is invited to price (`rfq.created`'s `rfq`): Reference B's fields and Reference A's inside. */
export const RfqDetailsSchema = z.object({
  id: z.string(),
  pair: z.string(),
  side: z.enum(['buy', 'sell']),
  /** Decimal string of whole tokens (the fixed side). */
  amount: z.string(),
  corridor: z.string(),
  /** Unix seconds by which quotes must arrive. */
  deadline: z.number(),
  complianceAttestation: z.string().nullable(),
  originChainId: z.number(),
  destinationChainId: z.number(),
  inputToken: z.string(),
  outputToken: z.string(),
  inputDecimals: z.number(),
  outputDecimals: z.number(),
  /** exactInput RFQs. */
  inputAmount: z.string().optional(),
  /** exactOutput RFQs. */
  outputAmount: z.string().optional(),
  swapType,
  lockTypes: z.array(lockType),
  lockType,
  settlementPath,
  fillDeadline: z.number(),
  expires: z.number(),
  /** ISO time the auction window ends. */
  respondBy: z.string(),
  minOutputAmount: z.string().optional(),
  maxInputAmount: z.string().optional(),
});
export type RfqDetails = z.infer<typeof RfqDetailsSchema>;

/** The Reference B `rfq.created` envelope a solver receives, with the Reference A fields inside `rfq`. */
export const RfqBroadcastSchema = z.object({
  type: z.literal('rfq.created'),
  id: z.string(),
  timestamp: z.string(),
  rfq: RfqDetailsSchema,
});
export type RfqBroadcast = z.infer<typeof RfqBroadcastSchema>;

/**
 * A solver's answer to an RFQ. exactInput RFQs take `outputAmount` (or a `price`, output per input in whole
 * tokens); exactOutput RFQs take `inputAmount` (or `price`). Unknown fields are tolerated (Reference B solvers
 * send more).
 */
export const QuoteMessageSchema = z.object({
  type: z.literal('quote'),
  rfqId: z.string().min(1).max(100),
  outputAmount: amount.optional(),
  inputAmount: amount.optional(),
  price: z
    .string()
    .regex(/^(0|[1-9][0-9]*)(\.[0-9]{1,36})?$/, 'must be a decimal string')
    .optional(),
  lockTypes: z.array(lockType).min(1).max(3).optional(),
  lockType: lockType.optional(),
  settlementPath: settlementPath.optional(),
  confidence: z.number().min(0).max(1).optional(),
  clientQuoteId: z.string().max(100).optional(),
});
export type QuoteMessage = z.infer<typeof QuoteMessageSchema>;

/** A solver passing on an RFQ. */
export const DeclineMessageSchema = z.object({
  type: z.literal('decline'),
  rfqId: z.string().min(1).max(100),
  reason: z.string().max(200).optional(),
});
export type DeclineMessage = z.infer<typeof DeclineMessageSchema>;

export const QuoteRejectionCodeSchema = z.enum([
  'malformed',
  'rfq_unknown',
  'rfq_expired',
  'not_invited',
  'duplicate_quote',
  'below_minimum',
  'above_maximum',
  'lock_type_unsupported',
  'settlement_path_unsupported',
]);
export type QuoteRejectionCode = z.infer<typeof QuoteRejectionCodeSchema>;

export const QuoteRejectionSchema = z.object({
  type: z.literal('quote.rejected'),
  rfqId: z.string().nullable(),
  code: QuoteRejectionCodeSchema,
  reason: z.string(),
  clientQuoteId: z.string().optional(),
});
export type QuoteRejection = z.infer<typeof QuoteRejectionSchema>;

export const QuoteAckSchema = z.object({
  type: z.literal('quote.ack'),
  rfqId: z.string(),
  quoteId: z.string(),
  clientQuoteId: z.string().optional(),
});

/** The service's answer to a solver's `quote` message. */
export const QuoteAnswerSchema = z.discriminatedUnion('type', [QuoteAckSchema, QuoteRejectionSchema]);
export type QuoteAnswer = z.infer<typeof QuoteAnswerSchema>;

/** The service's answer to a solver's `decline` message. */
export const DeclineAnswerSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('decline.ack'), rfqId: z.string() }),
  QuoteRejectionSchema,
]);
export type DeclineAnswer = z.infer<typeof DeclineAnswerSchema>;

/** Server → solver messages about orders the solver won (and, `order.available`, orders nobody won). */
export const SolverOrderMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('order.assigned'),
    orderId: z.string(),
    quoteId: z.string(),
    /** bytes32 order id on the origin chain. */
    onchainOrderId: hex,
    lockType,
    originChainId: z.number(),
    destinationChainId: z.number(),
    standardOrder: StandardOrderWireSchema,
    fillDeadline: z.number(),
  }),
  z.object({
    type: z.literal('order.attested'),
    orderId: z.string(),
    onchainOrderId: hex,
    lockType,
    originChainId: z.number(),
    standardOrder: StandardOrderWireSchema,
    /** What `finalise` needs besides the order: solve params in output order, and for ResourceLock the claim signatures. */
    solveParams: z.array(z.object({ timestamp: z.number(), solver: hex })),
    compactSignatures: hex.optional(),
  }),
  z.object({ type: z.literal('order.refunded'), orderId: z.string(), onchainOrderId: hex }),
  /**
   * A chain reorganisation took away this order's fill (`txHash` on `chainId`): the order is Deposited again. The
   * solver's transactions in the replaced blocks are gone too, so nonces it keeps for that chain are stale.
   */
  z.object({ type: z.literal('order.reorged'), orderId: z.string(), onchainOrderId: hex, chainId: z.number(), txHash: hex }),
  /**
   * An order nobody won: opened directly on chain (OIF-native intake), offered to every connected solver subscribed
   * to `order.*` (or `order.available`). First come, first served: whoever fills output 0 owns it.
   */
  z.object({
    type: z.literal('order.available'),
    orderId: z.string(),
    onchainOrderId: hex,
    lockType,
    originChainId: z.number(),
    destinationChainId: z.number(),
    standardOrder: StandardOrderWireSchema,
    fillDeadline: z.number(),
  }),
]);
export type SolverOrderMessage = z.infer<typeof SolverOrderMessageSchema>;

/** An error frame on the stream. */
export const StreamErrorSchema = z.object({
  type: z.literal('error'),
  code: z.string(),
  message: z.string(),
  param: z.string().optional(),
});
export type StreamError = z.infer<typeof StreamErrorSchema>;
