/**
 * Messages of the solver stream (`/ws/v1/solver/stream`) that only the service reads: authentication and
 * subscriptions. The shapes both ends share (RFQs, quotes, declines, answers, order messages) are defined once in
 * src/contracts/solver-stream.ts.
 */
import { z } from 'zod';
import {
  type DeclineMessage as DeclineMessageShape,
  DeclineMessageSchema,
  type QuoteMessage as QuoteMessageShape,
  QuoteMessageSchema,
} from '../../contracts/solver-stream.js';

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
  'order.reorged',
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

/** A solver's quote and decline: the protocol's one definition (src/contracts/solver-stream.ts). */
export const QuoteMessage = QuoteMessageSchema;
export const DeclineMessage = DeclineMessageSchema;

export type AuthMessage = z.infer<typeof AuthMessage>;
export type SubscribeMessage = z.infer<typeof SubscribeMessage>;
export type QuoteMessage = QuoteMessageShape;
export type DeclineMessage = DeclineMessageShape;

/** `rfq.*` matches `rfq.created`; `*` matches everything. */
export function channelMatches(pattern: string, type: string): boolean {
  if (pattern === '*' || pattern === type) return true;
  return pattern.endsWith('.*') && type.startsWith(pattern.slice(0, -1));
}
