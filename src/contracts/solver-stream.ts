import { z } from 'zod';

/**
 * The solver stream's message shapes that both ends share, defined once: the service (auction, orders) sends and
 * answers with them, `src/clients/solver-stream-client.ts` reads them. Zod schemas so that a client may validate
 * what it receives; the TypeScript types are inferred from them.
 */

const hex = z.custom<`0x${string}`>((value) => typeof value === 'string' && /^0x[0-9a-fA-F]*$/.test(value), 'must be 0x-prefixed hex');
const lockType = z.enum(['Permit2Escrow', 'EIP3009Escrow', 'ResourceLock']);

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
