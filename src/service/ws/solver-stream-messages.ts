/**
 * Messages of the solver stream (`/ws/v1/solver/stream`). Client → server messages are validated here; the
 * server's messages are plain objects documented in docs/auction-and-solvers.md.
 */
import { z } from 'zod';

/** Close codes of the solver stream. */
export const SolverCloseCode = {
  normal: 1000,
  /** The service is stopping. */
  goingAway: 1001,
  /** Authentication failed, or the credential already holds the maximum number of connections. */
  policyViolation: 1008,
  /** Not authenticated within the allowed time. */
  authTimeout: 4401,
  /** No pong before the next ping was due. */
  missedPong: 4408,
} as const;

/** Channel patterns a solver may subscribe to; only RFQs are opt-in (order messages always reach their solver). */
export const SOLVER_CHANNELS = [
  'rfq.created',
  'rfq.*',
  '*',
  'order.*',
  'order.assigned',
  'order.attested',
  'order.refunded',
  'order.available',
] as const;

export const AuthMessage = z.object({
  type: z.literal('auth'),
  token: z.string().min(1).max(512),
  /** With a workspace API key: which of the workspace's solvers this connection speaks for. */
  solverId: z.string().max(100).optional(),
});

export const SubscribeMessage = z.object({
  type: z.literal('subscribe'),
  channels: z.array(z.string().max(64)).min(1).max(16),
  corridors: z.array(z.string().min(1).max(200)).max(500).optional(),
});

export const UnsubscribeMessage = z.object({
  type: z.literal('unsubscribe'),
  channels: z.array(z.string().max(64)).min(1).max(16),
});

const Amount = z.string().regex(/^[1-9][0-9]{0,77}$/, 'must be a positive integer string');
const LockTypeName = z.enum(['ResourceLock', 'Permit2Escrow', 'EIP3009Escrow']);

/**
 * A solver's answer to an RFQ. exactInput RFQs take `outputAmount` (or a `price`, output per input in whole
 * tokens); exactOutput RFQs take `inputAmount` (or `price`). Unknown fields are tolerated (Reference B solvers
 * send more).
 */
export const QuoteMessage = z.object({
  type: z.literal('quote'),
  rfqId: z.string().min(1).max(100),
  outputAmount: Amount.optional(),
  inputAmount: Amount.optional(),
  price: z
    .string()
    .regex(/^(0|[1-9][0-9]*)(\.[0-9]{1,36})?$/, 'must be a decimal string')
    .optional(),
  lockTypes: z.array(LockTypeName).min(1).max(3).optional(),
  lockType: LockTypeName.optional(),
  settlementPath: z.enum(['direct', 'compliant']).optional(),
  confidence: z.number().min(0).max(1).optional(),
  clientQuoteId: z.string().max(100).optional(),
});

export const DeclineMessage = z.object({
  type: z.literal('decline'),
  rfqId: z.string().min(1).max(100),
  reason: z.string().max(200).optional(),
});

export type AuthMessage = z.infer<typeof AuthMessage>;
export type SubscribeMessage = z.infer<typeof SubscribeMessage>;
export type QuoteMessage = z.infer<typeof QuoteMessage>;
export type DeclineMessage = z.infer<typeof DeclineMessage>;

/** `rfq.*` matches `rfq.created`; `*` matches everything. */
export function channelMatches(pattern: string, type: string): boolean {
  if (pattern === '*' || pattern === type) return true;
  return pattern.endsWith('.*') && type.startsWith(pattern.slice(0, -1));
}
