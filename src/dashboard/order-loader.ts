/**
 * Reads everything the service tells about one order, each from its public route, in parallel. A route the
 * service does not have becomes a note naming it, so the page shows what exists and says what is missing.
 */
import type { ApiClient, ApiResult } from './api.js';
import { type DeliveryView, deliveriesFrom } from './deliveries.js';
import { type TimelineEntry, timelineFromSettlement } from './journey.js';
import type { LedgerEntryView } from './ledger-verify.js';
import { ledgerEntriesFrom, mergeLedgerEntries } from './ledger-view.js';
import { type OrderView, mergeOrder, orderFromDetail, orderFromSettlement } from './orders.js';
import { type QuoteView, mergeQuotes, quotesFrom } from './quotes.js';
import { isObject, str } from './read.js';

export interface OrderDetailData {
  order: OrderView;
  timeline: TimelineEntry[];
  timelineNote?: string;
  quotes: QuoteView[];
  quotesNote?: string;
  ledger: LedgerEntryView[];
  ledgerNote?: string;
  deliveries: DeliveryView[];
  deliveriesNote?: string;
}

function note(result: ApiResult, route: string, what: string): string | undefined {
  if (result.ok) return undefined;
  if (result.missing) return `${what}: not available (the service has no ${route} yet).`;
  if (result.status === 404) return `${what}: none recorded.`;
  return `${what}: ${route} answered ${result.status} ${result.code ?? ''} ${result.message}`.trim();
}

/** RFQ and quote ids named in ledger payloads, for services whose order detail does not carry them. */
function idsFromLedger(entries: readonly LedgerEntryView[]): { rfqId?: string; quoteId?: string } {
  const found: { rfqId?: string; quoteId?: string } = {};
  for (const entry of entries) {
    if (entry.tradeId.startsWith('rfq_')) found.rfqId ??= entry.tradeId;
    const rfqId = str(entry.payload, 'rfqId');
    if (rfqId !== undefined) found.rfqId ??= rfqId;
    const quoteId = str(entry.payload, 'quoteId');
    if (quoteId !== undefined) found.quoteId ??= quoteId;
  }
  return found;
}

/** Quotes listed by the RFQ's ledger entries (`quotes.collected` and the like). */
function quotesFromLedger(entries: readonly LedgerEntryView[]): QuoteView[] {
  return mergeQuotes(...entries.filter((entry) => isObject(entry.payload)).map((entry) => quotesFrom(entry.payload)));
}

/** Quote sets that never change once the order exists: read them once per order. */
export type QuoteCache = Map<string, QuoteView[]>;

export async function loadOrderDetail(
  api: ApiClient,
  known: OrderView,
  workspaceId: string | undefined,
  quoteCache: QuoteCache,
): Promise<OrderDetailData> {
  const id = encodeURIComponent(known.id);
  const [detail, settlement, audit, deliveries] = await Promise.all([
    api.get(`/orders/${id}`),
    workspaceId === undefined
      ? Promise.resolve(undefined)
      : api.get(`/workspaces/${encodeURIComponent(workspaceId)}/settlements/${id}`),
    api.get(`/audit/${id}`),
    api.get(`/webhooks/deliveries?orderId=${id}&limit=100`),
  ]);

  let order = known;
  if (settlement?.ok === true) {
    const fromSettlement = orderFromSettlement(settlement.body);
    if (fromSettlement !== undefined) order = mergeOrder(order, fromSettlement, true);
  }
  if (detail.ok) {
    const fromDetail = orderFromDetail(detail.body);
    if (fromDetail !== undefined) order = mergeOrder(order, fromDetail, true);
  }

  const data: OrderDetailData = { order, timeline: [], quotes: [], ledger: [], deliveries: [] };

  if (settlement === undefined) data.timelineNote = 'Timeline: no workspace known for the key, so the settlement timeline cannot be read.';
  else if (settlement.ok) data.timeline = timelineFromSettlement(settlement.body);
  else data.timelineNote = note(settlement, 'GET /api/v1/workspaces/{ws}/settlements/{orderId}', 'Settlement timeline');

  let ledger = audit.ok ? ledgerEntriesFrom(audit.body) : [];
  const ids = idsFromLedger(ledger);
  const rfqId = order.rfqId ?? ids.rfqId;
  const quoteId = order.quoteId ?? ids.quoteId;
  if (data.order.quoteId === undefined && quoteId !== undefined) data.order = { ...data.order, quoteId };
  if (data.order.rfqId === undefined && rfqId !== undefined) data.order = { ...data.order, rfqId };

  // The RFQ's own entries (request, collected quotes) are recorded under the RFQ id, before the order existed.
  if (rfqId !== undefined && audit.ok) {
    const rfqAudit = await api.get(`/audit/${encodeURIComponent(rfqId)}`);
    if (rfqAudit.ok) ledger = mergeLedgerEntries(ledger, ledgerEntriesFrom(rfqAudit.body));
  }
  data.ledger = ledger;
  if (!audit.ok) data.ledgerNote = note(audit, 'GET /api/v1/audit/{tradeId}', 'Evidence ledger');

  data.quotes = await loadQuotes(api, data.order, rfqId, quoteId, ledger, quoteCache, data);

  if (deliveries.ok) data.deliveries = deliveriesFrom(deliveries.body);
  else data.deliveriesNote = note(deliveries, 'GET /api/v1/webhooks/deliveries?orderId=…', 'Webhook deliveries');
  return data;
}

async function loadQuotes(
  api: ApiClient,
  order: OrderView,
  rfqId: string | undefined,
  quoteId: string | undefined,
  ledger: readonly LedgerEntryView[],
  cache: QuoteCache,
  data: OrderDetailData,
): Promise<QuoteView[]> {
  const cached = cache.get(order.id);
  if (cached !== undefined) return cached;
  const sets: QuoteView[][] = [quotesFromLedger(ledger)];
  const notes: string[] = [];
  let complete = false;
  if (rfqId !== undefined) {
    // Reference B: all solver responses of an RFQ.
    const all = await api.get(`/quotes/${encodeURIComponent(rfqId)}`);
    if (all.ok) {
      sets.unshift(quotesFrom(all.body));
      complete = true;
    } else notes.push(note(all, 'GET /api/v1/quotes/{rfqId}', 'Quote set') ?? '');
  }
  if (quoteId !== undefined && !complete) {
    const taken = await api.get(`/quotes/${encodeURIComponent(quoteId)}`);
    if (taken.ok && isObject(taken.body)) sets.push(quotesFrom([{ quoteId, ...taken.body }]).map((q) => ({ ...q, rank: Number.MAX_SAFE_INTEGER })));
  }
  const quotes = mergeQuotes(...sets).map((quote, i) => (quote.rank === Number.MAX_SAFE_INTEGER ? { ...quote, rank: i + 1 } : quote));
  if (!complete && rfqId === undefined) notes.push('Quote set: the order names no RFQ, so only the taken quote is shown.');
  if (notes.length > 0) data.quotesNote = notes.filter((text) => text !== '').join(' ');
  if (complete) cache.set(order.id, quotes);
  return quotes;
}
