/**
 * Read-only looks into a service's store (WAL lets a reader work beside the running service; on Postgres a
 * connection of our own). The campaigns judge the service by what it committed, so they read the tables directly:
 * orders, events, ledger.
 */
import { LedgerReader, type LedgerSql } from '../../src/contracts/ledger/reader.js';
import { type StoreSource, withReadOnlyStore } from '../../src/sandbox/store-access.js';

/** What the reader needs of either store: prepared statements (the ledger reader's needs cover the rest). */
type Readable = LedgerSql;

export interface StoredOrder {
  id: string;
  quoteId: string;
  status: string;
  lockType: string;
  settlementPath: string;
  onchainOrderId: string;
  originChainId: number;
  userAddress: string;
  rejectReason: string | null;
}

export class StoreReader {
  /** A SQLite file path, or a Postgres store (`{ url }`). */
  constructor(private readonly source: StoreSource) {}

  private open<T>(read: (db: Readable) => T): T {
    return withReadOnlyStore(this.source, read);
  }

  orders(): StoredOrder[] {
    return this.open((db) =>
      (
        db
          .prepare(
            `SELECT id, quote_id, status, lock_type, settlement_path, onchain_order_id, origin_chain_id, user_address, reject_reason FROM orders`,
          )
          .all() as Array<Record<string, unknown>>
      ).map((row) => ({
        id: row.id as string,
        quoteId: row.quote_id as string,
        status: row.status as string,
        lockType: row.lock_type as string,
        settlementPath: row.settlement_path as string,
        onchainOrderId: (row.onchain_order_id as string).toLowerCase(),
        originChainId: row.origin_chain_id as number,
        userAddress: row.user_address as string,
        rejectReason: (row.reject_reason as string | null) ?? null,
      })),
    );
  }

  orderForQuote(quoteId: string): StoredOrder | undefined {
    return this.orders().find((order) => order.quoteId === quoteId);
  }

  /** Events a webhook of `workspaceId` registered at `since` (service clock ms) must receive. */
  eventsFor(workspaceId: string, since: number): Array<{ id: string; type: string; orderId: string | null }> {
    return this.open(
      (db) =>
        db
          .prepare('SELECT id, type, order_id AS "orderId" FROM events WHERE workspace_id = ? AND created_at >= ? ORDER BY seq')
          .all(workspaceId, since) as Array<{ id: string; type: string; orderId: string | null }>,
    );
  }

  terminalEventCounts(): Map<string, number> {
    return this.open((db) => {
      const rows = db
        .prepare(
          `SELECT order_id AS "orderId", COUNT(*) AS n FROM events
           WHERE order_id IS NOT NULL AND type IN ('order.settled', 'order.failed') GROUP BY order_id`,
        )
        .all() as Array<{ orderId: string; n: number }>;
      return new Map(rows.map((row) => [row.orderId, row.n]));
    });
  }

  /** Ledger transitions into a terminal status, per order. */
  terminalTransitionCounts(): Map<string, number> {
    return this.open((db) => {
      const counts = new Map<string, number>();
      for (const entry of new LedgerReader(db).ofType('order.transition')) {
        const to = entry.payload.to;
        if (to === 'Claimed' || to === 'Refunded') counts.set(entry.tradeId, (counts.get(entry.tradeId) ?? 0) + 1);
      }
      return counts;
    });
  }

  webhookCreatedAt(webhookId: string): number {
    return this.open((db) => (db.prepare('SELECT created_at AS at FROM webhooks WHERE id = ?').get(webhookId) as { at: number }).at);
  }
}
