import type { QuoteBook } from '../auction/types.js';
import type { LedgerRepository } from '../ledger/repository.js';
import type { OrderRecord, OrderRepository } from '../orders/order-repository.js';
import { orderIdOf, settlementIdOf } from './settlement-ids.js';

/** One trade as Reference B addresses it: an RFQ, its quotes, and the order (settlement) one of them became. */
export interface Trade {
  /** The ledger's trade id of the trade's own entries: the order id, or the RFQ id while no order exists. */
  tradeId: string;
  rfqId: string;
  quoteIds: string[];
  order: OrderRecord | undefined;
  settlementId: string | undefined;
  workspaceId: string | null;
}

export interface TradeLookupDeps {
  ledger: LedgerRepository;
  orders(): OrderRepository;
  quoteBook(): QuoteBook;
}

/**
 * Finds a trade from any of its ids (`stl_`, `ord_`, `rfq_`, `qt_`). The RFQ's quotes come from its
 * `quotes.collected` ledger entry, so the lookup rests on the evidence itself.
 */
export class TradeLookup {
  constructor(private readonly deps: TradeLookupDeps) {}

  find(id: string): Trade | undefined {
    const orders = this.deps.orders();
    if (id.startsWith('stl_') || id.startsWith('ord_')) {
      const orderId = id.startsWith('stl_') ? orderIdOf(id) : id;
      const order = orderId === undefined ? undefined : orders.get(orderId);
      return order === undefined ? undefined : this.fromRfq(order.rfqId, order);
    }
    if (id.startsWith('qt_')) {
      const quote = this.deps.quoteBook().get(id);
      return quote === undefined ? undefined : this.fromRfq(quote.rfqId, undefined);
    }
    if (id.startsWith('rfq_')) return this.fromRfq(id, undefined);
    return undefined;
  }

  private fromRfq(rfqId: string, known: OrderRecord | undefined): Trade | undefined {
    const rfqEntries = this.deps.ledger.forTrade(rfqId);
    const opened = rfqEntries.find((entry) => entry.type === 'rfq.created');
    if (opened === undefined && known === undefined) return undefined;
    const collected = rfqEntries.find((entry) => entry.type === 'quotes.collected');
    const quoteIds = Array.isArray(collected?.payload.quotes)
      ? collected.payload.quotes.flatMap((quote) =>
          quote !== null && typeof quote === 'object' && 'quoteId' in quote && typeof quote.quoteId === 'string' ? [quote.quoteId] : [],
        )
      : [];
    const order = known ?? this.orderOf(quoteIds);
    const rfqWorkspace = typeof opened?.payload.workspaceId === 'string' ? opened.payload.workspaceId : null;
    return {
      tradeId: order?.id ?? rfqId,
      rfqId,
      quoteIds: order !== undefined && !quoteIds.includes(order.quoteId) ? [...quoteIds, order.quoteId] : quoteIds,
      order,
      settlementId: order === undefined ? undefined : settlementIdOf(order.id),
      workspaceId: order?.workspaceId ?? rfqWorkspace,
    };
  }

  /** One quote per RFQ can become an order; a deposit that reverted leaves a Rejected order, shown only if alone. */
  private orderOf(quoteIds: readonly string[]): OrderRecord | undefined {
    const orders = quoteIds.flatMap((quoteId) => {
      const order = this.deps.orders().byQuote(quoteId);
      return order === undefined ? [] : [order];
    });
    return orders.find((order) => order.status !== 'Rejected') ?? orders[0];
  }
}
