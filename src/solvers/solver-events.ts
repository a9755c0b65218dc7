/** What a reference solver reports: its events (as they happen) and its running counters. */
import type { Hex } from 'viem';

export type SolverEvent =
  | { type: 'rfq'; rfqId: string; corridor: string }
  | { type: 'quoted'; rfqId: string; quoteId: string }
  | { type: 'declined'; rfqId: string; reason: string }
  | { type: 'rejected'; rfqId: string; code: string; reason: string }
  | { type: 'assigned'; orderId: string; onchainOrderId: Hex }
  | { type: 'filled'; orderId: string; txHash: Hex; timestamp: number }
  | { type: 'skipped'; orderId: string; reason: string }
  | { type: 'claimed'; orderId: string; txHash: Hex }
  | { type: 'refunded'; orderId: string }
  | { type: 'reorged'; orderId: string; txHash: Hex }
  /** Inventory moved from a chain where claims piled it up to one where it fills (see inventory.ts). */
  | { type: 'rebalanced'; symbol: string; fromChainId: number; toChainId: number; amount: string; txHash: Hex }
  /** It cannot deliver on a chain: it declines (or skips) with this reason until its balance there recovers. */
  | { type: 'short'; chainId: number; symbol: string; reason: string }
  /** Its solver stream dropped (it reconnects with backoff), or came back and subscribed again. */
  | { type: 'disconnected'; code: number; reason: string }
  | { type: 'reconnected' }
  | { type: 'error'; orderId?: string; rfqId?: string; message: string };

export interface SolverCounters {
  rfqs: number;
  quoted: number;
  declined: number;
  rejected: number;
  assigned: number;
  filled: number;
  claimed: number;
  refunded: number;
  errors: number;
}
