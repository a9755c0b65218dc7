/**
 * What the rest of the service may know of the auction: the quote record and the quote book. Orders read a quote
 * and accept it; the auction module owns how quotes are collected, ranked and stored.
 */
import type { Address } from 'viem';
import type { SolverOrderMessage } from '../../contracts/solver-stream.js';
import type { LockType } from '../../contracts/order.js';
import type { SettlementPath } from '../../contracts/wire/enums.js';

export type QuoteStatus = 'open' | 'expired' | 'accepted';
/** `deferred`: the order holds the workspace's prefunded vault credit instead of an escrow deposit (docs/deferred.md). */
export type { SettlementPath } from '../../contracts/wire/enums.js';

export interface QuoteRecord {
  id: string;
  rfqId: string;
  solverId: string;
  /** Workspace of the requester when the quote request was authenticated, else null. */
  workspaceId: string | null;
  /**
   * The taker named in the quote request (`user`), when it named one: the order's user unless the order request
   * names it. Optional so that quote books that do not know it still type-check; the orders module then needs `user`.
   */
  user?: Address | null;
  status: QuoteStatus;
  corridor: string;
  originChainId: number;
  destinationChainId: number;
  inputToken: Address;
  outputToken: Address;
  /** Integer strings in the tokens' smallest units. */
  inputAmount: string;
  outputAmount: string;
  feeBps: number;
  lockType: LockType;
  settlementPath: SettlementPath;
  /** Clock milliseconds. */
  createdAt: number;
  expiresAt: number;
  /** Unix seconds, fixed at quote time because the taker signs them. */
  fillDeadline: number;
  expires: number;
  /** The winner's exclusivity (`auction.exclusivityMs`): its fill address and the unix second it ends; null: none. */
  exclusive: { solver: Address; until: number } | null;
}

/** Served by the auction module to the orders module. */
export interface QuoteBook {
  get(quoteId: string): QuoteRecord | undefined;
  /**
   * Marks an open, unexpired quote accepted by `orderId`. Call inside the order's store transaction; returns false
   * when the quote is not open any more (another order took it, or it expired).
   */
  accept(quoteId: string, orderId: string, now: number): boolean;
}

/** Server → solver messages about orders the solver won (sent on the solver stream): the protocol's one definition. */
export type { SolverOrderMessage } from '../../contracts/solver-stream.js';

/** Served by the solver stream: delivers a message to every live connection of a solver (best effort). */
export interface SolverNotifier {
  notify(solverId: string, message: SolverOrderMessage): number;
  /**
   * Calls `listener` each time a connection of a solver (on this instance) is ready: authenticated and its first
   * subscription answered. What the solver missed while it had none (a replica died under it, a message went to the
   * replica being killed) can be sent again.
   */
  onConnected?(listener: (solverId: string) => void): void;
  /** Sends an `order.available` to every authenticated connection subscribed to it; returns how many got it. */
  offer?(message: Extract<SolverOrderMessage, { type: 'order.available' }>): number;
}

/**
 * Where the auction learns the highest nonce a user has already spent in an order. The orders module owns used
 * nonces (`user_nonces`) and supplies this; until it does, the auction relies on the nonces it handed out itself.
 */
export interface NonceSource {
  highestUsedNonce(user: Address): bigint | undefined;
}

/** Resolves a Reference B solver key (`sk_test_…` / `sk_live_…`) to the solver it belongs to; issue 8 supplies it. */
export interface SolverKeyResolver {
  resolve(key: string): { solverId: string } | undefined;
}
