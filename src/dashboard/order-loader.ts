/**
 * Reads everything the service tells about one order, each from its public route, in parallel. A route the
 * service does not have becomes a note naming it, so the page shows what exists and says what is missing.
 */
import type { ApiClient, ApiResult } from './api.js';
import { type DeliveryView, deliveriesFromAttempts } from './deliveries.js';
import { type TimelineEntry, timelineFromSettlement } from './journey.js';
import type { LedgerEntryView } from './ledger-verify.js';
import { ledgerEntriesFrom, mergeLedgerEntries } from './ledger-view.js';
import { type OrderView, mergeOrder, orderFromDetail, orderFromSettlement } from './orders.js';
import { type QuoteView, mergeQuotes, quotesFrom } from './quotes.js';
import { isObject, list, str } from './read.js';

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

/** What never changes once the order exists (its RFQ's quotes, the quote it took): read once per order. */
export interface OrderFacts {
  quotes?: QuoteView[];
  /** Fields of the quote detail the order detail may lack (corridor, lock type, tokens, RFQ). */
  fromQuote?: OrderView;
}
export type OrderFactsCache = Map<string, OrderFacts>;

/** Bounds the per-refresh work of the deliveries lookup (endpoints × events). */
const MAX_DELIVERY_READS = 30;

export async function loadOrderDetail(
  api: ApiClient,
  known: OrderView,
  context: { workspaceId: string | undefined; eventIds: ReadonlySet<string>; cache: OrderFactsCache },
): Promise<OrderDetailData> {
  const id = encodeURIComponent(known.id);
  const { workspaceId, eventIds, cache } = context;
  const facts = cache.get(known.id) ?? {};
  cache.set(known.id, facts);
  const [detail, settlement, audit, deliveries] = await Promise.all([
    api.get(`/orders/${id}`),
    workspaceId === undefined ? Promise.resolve(undefined) : api.get(`/workspaces/${encodeURIComponent(workspaceId)}/settlements/${id}`),
    api.get(`/audit/${id}`),
    loadDeliveries(api, eventIds),
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

  const data: OrderDetailData = { order, timeline: [], quotes: [], ledger: [], deliveries: deliveries.deliveries };
  if (deliveries.note !== undefined) data.deliveriesNote = deliveries.note;

  if (settlement === undefined) data.timelineNote = 'Settlement timeline: no workspace known for the key.';
  else if (settlement.ok) data.timeline = timelineFromSettlement(settlement.body);
  else data.timelineNote = note(settlement, 'GET /api/v1/workspaces/{ws}/settlements/{orderId}', 'Settlement timeline');

  let ledger = audit.ok ? ledgerEntriesFrom(audit.body) : [];
  if (!audit.ok) data.ledgerNote = note(audit, 'GET /api/v1/audit/{tradeId}', 'Evidence ledger');

  // The quote the order took names its RFQ, corridor, lock type and tokens (read once).
  const ids = idsFromLedger(ledger);
  // The audit answer may name the trade's RFQ itself (Reference B lists every id of the trade).
  const auditRfq = audit.ok ? str(audit.body, 'rfqId') : undefined;
  if (auditRfq !== undefined) ids.rfqId = auditRfq;
  const quoteId = order.quoteId ?? ids.quoteId;
  if (facts.fromQuote === undefined && quoteId !== undefined) {
    const quote = await api.get(`/quotes/${encodeURIComponent(quoteId)}`);
    const view =
      quote.ok && isObject(quote.body)
        ? orderFromDetail({ ...quote.body, orderId: known.id, status: undefined, createdAt: undefined })
        : undefined;
    if (view !== undefined) facts.fromQuote = view;
  }
  if (facts.fromQuote !== undefined) order = mergeOrder(facts.fromQuote, order, true);
  if (order.quoteId === undefined && quoteId !== undefined) order = { ...order, quoteId };
  const rfqId = order.rfqId ?? ids.rfqId;
  if (order.rfqId === undefined && rfqId !== undefined) order = { ...order, rfqId };
  data.order = order;

  // The RFQ's own entries (request, collected quotes) are recorded under the RFQ id, before the order existed.
  if (rfqId !== undefined && audit.ok && !ledger.some((entry) => entry.tradeId === rfqId)) {
    const rfqAudit = await api.get(`/audit/${encodeURIComponent(rfqId)}`);
    if (rfqAudit.ok) ledger = mergeLedgerEntries(ledger, ledgerEntriesFrom(rfqAudit.body));
  }
  data.ledger = ledger;

  if (facts.quotes !== undefined) data.quotes = facts.quotes;
  else data.quotes = await loadQuotes(api, rfqId, ledger, facts, data);
  return data;
}

async function loadQuotes(
  api: ApiClient,
  rfqId: string | undefined,
  ledger: readonly LedgerEntryView[],
  facts: OrderFacts,
  data: OrderDetailData,
): Promise<QuoteView[]> {
  const fromLedger = quotesFromLedger(ledger);
  if (rfqId === undefined) {
    data.quotesNote = 'Quote set: the service names no RFQ for this order (order detail without rfqId or quoteId).';
    return fromLedger;
  }
  // Reference B: the RFQ with every invited solver's response.
  const rfq = await api.get(`/quotes/${encodeURIComponent(rfqId)}`);
  if (!rfq.ok) {
    data.quotesNote = note(rfq, 'GET /api/v1/quotes/{rfqId}', 'Quote set');
    return fromLedger;
  }
  const quotes = mergeQuotes(quotesFrom(rfq.body), fromLedger);
  facts.quotes = quotes;
  return quotes;
}

/**
 * The service lists delivery attempts per endpoint and event, not per order: the page asks for the order's
 * events it saw on the WebSocket.
 */
async function loadDeliveries(api: ApiClient, eventIds: ReadonlySet<string>): Promise<{ deliveries: DeliveryView[]; note?: string }> {
  const hooks = await api.get('/webhooks?limit=100');
  if (!hooks.ok) return { deliveries: [], note: note(hooks, 'GET /api/v1/webhooks', 'Webhook deliveries') ?? '' };
  const endpoints = list(hooks.body, 'data').flatMap((item) => {
    const webhookId = str(item, 'webhookId', 'id');
    const url = str(item, 'url');
    return webhookId === undefined ? [] : [{ webhookId, ...(url === undefined ? {} : { url }) }];
  });
  if (endpoints.length === 0) return { deliveries: [], note: 'No webhook endpoints registered in this workspace.' };
  if (eventIds.size === 0) {
    return {
      deliveries: [],
      note: 'Deliveries are matched through the order’s events seen on the WebSocket since the page opened; none seen yet.',
    };
  }
  const reads = endpoints.flatMap((endpoint) => [...eventIds].map((eventId) => ({ endpoint, eventId }))).slice(0, MAX_DELIVERY_READS);
  const pages = await Promise.all(
    reads.map(async ({ endpoint, eventId }) => {
      const page = await api.get(
        `/webhooks/${encodeURIComponent(endpoint.webhookId)}/deliveries?eventId=${encodeURIComponent(eventId)}&limit=100`,
      );
      return page.ok ? deliveriesFromAttempts(endpoint, page.body, eventIds) : [];
    }),
  );
  return { deliveries: pages.flat() };
}
