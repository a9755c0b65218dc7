import type { LedgerEntry } from '../../contracts/ledger/chain.js';
import type { OrderRecord, OrderStatus, StageRecord } from './order-repository.js';

/**
 * Domain events of the order lifecycle, delivered inside the transaction that makes the change: Reference A
 * events are written here; Reference B (`quote.accepted`, `settlement.*`) projects these through `onDomainEvent`.
 */
export type OrderDomainEvent =
  | { type: 'order.created'; order: OrderRecord; entry: LedgerEntry; at: number }
  | {
      type: 'order.transitioned';
      order: OrderRecord;
      from: OrderStatus;
      to: OrderStatus;
      stage: StageRecord;
      entry: LedgerEntry;
      at: number;
    }
  | { type: 'order.rejected'; order: OrderRecord; reason: string; entry: LedgerEntry; at: number };

export type OrderDomainListener = (event: OrderDomainEvent) => void;
