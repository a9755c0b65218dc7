/**
 * One order's journey: the stages across both chains (chain, block, transaction, clock time), the RFQ's
 * competing quotes, the evidence ledger entries with the page's own hash check, the webhook deliveries of its
 * events, and the events seen live.
 */
import type { DeliveryView } from '../deliveries.js';
import type { BrowserElement, BrowserNode } from '../browser.js';
import { type Child, h } from '../dom.js';
import { formatAge, formatAmount, formatClock, shortHash, shortId } from '../format.js';
import { STAGE_LABEL, type JourneyStep } from '../journey.js';
import type { EntryVerification, LedgerEntryView } from '../ledger-verify.js';
import type { FeedEvent } from '../live-feed.js';
import type { OrderView } from '../orders.js';
import type { QuoteView } from '../quotes.js';
import { type ChainTokens, corridorOf, inputTokenOf, outputTokenOf } from '../tokens.js';

export interface OrderDetailModel {
  order: OrderView;
  steps: readonly JourneyStep[];
  timelineNote?: string;
  /** Block numbers of transactions, looked up on the chains (null: not a transaction there). */
  blocks: ReadonlyMap<string, number | null>;
  quotes: readonly QuoteView[];
  quotesNote?: string;
  ledger: readonly LedgerEntryView[];
  verification: readonly EntryVerification[];
  ledgerNote?: string;
  deliveries: readonly DeliveryView[];
  deliveriesNote?: string;
  events: readonly FeedEvent[];
  chains: readonly ChainTokens[];
  clockNowMs: number | undefined;
}

function fact(label: string, value: BrowserNode | string | undefined): BrowserElement | null {
  if (value === undefined || value === '') return null;
  return h('span', {}, `${label} `, typeof value === 'string' ? h('b', {}, value) : value);
}

function hashCode(value: string): BrowserElement {
  return h('code', { title: value }, shortHash(value));
}

function stepItem(step: JourneyStep, model: OrderDetailModel): BrowserElement {
  const block = step.blockNumber ?? (step.txHash === undefined ? undefined : (model.blocks.get(step.txHash) ?? undefined));
  return h(
    'li',
    {
      className: 'step',
      'data-stage': step.stage,
      'data-state': step.state,
      'data-chain': step.chain?.name,
      'data-tx': step.txHash,
      'data-block': block,
    },
    h('span', {}),
    h(
      'div',
      {},
      h(
        'div',
        { className: 'step-title' },
        STAGE_LABEL[step.stage],
        step.state === 'done' ? '' : h('span', { className: 'muted' }, ` · ${step.state}`),
      ),
      h(
        'div',
        { className: 'step-facts' },
        fact(
          'chain',
          step.chain === undefined ? (step.stage === 'rfq' ? 'service' : undefined) : `${step.chain.name} (${step.chain.chainId})`,
        ),
        fact('block', block === undefined ? undefined : `#${block}`),
        fact('tx', step.txHash === undefined ? undefined : hashCode(step.txHash)),
        fact('oracle', step.oracleHash === undefined ? undefined : hashCode(step.oracleHash)),
        fact('at', step.at === undefined ? undefined : formatClock(step.at)),
      ),
      step.note === undefined ? null : h('div', { className: 'note' }, step.note),
    ),
  );
}

function quotesSection(model: OrderDetailModel): Child[] {
  const quoted = model.quotes.filter((quote) => quote.quoteId !== undefined).length;
  const heading = h('h3', {}, `RFQ: competing quotes (${quoted})`);
  const note = model.quotesNote === undefined ? null : h('p', { className: 'note' }, model.quotesNote);
  if (model.quotes.length === 0) return [heading, note ?? h('p', { className: 'note' }, 'No quotes known.')];
  const output = outputTokenOf(model.order, model.chains);
  return [
    heading,
    note ?? '',
    h(
      'table',
      { 'data-testid': 'quotes' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['#', 'Solver', 'Answer', 'Out', 'Fee', 'Latency', 'Expires'].map((label) => h('th', {}, label)),
        ),
      ),
      h(
        'tbody',
        {},
        model.quotes.map((quote) => {
          const taken = quote.quoteId !== undefined && quote.quoteId === model.order.quoteId;
          return h(
            'tr',
            { 'data-quote': quote.key, 'data-outcome': quote.outcome ?? 'quoted', 'data-winner': taken ? 'true' : 'false' },
            h('td', { className: 'num' }, quote.quoteId === undefined ? '' : quote.rank),
            h('td', { title: quote.solverId ?? '' }, quote.solverName ?? (quote.solverId === undefined ? '—' : shortId(quote.solverId))),
            h(
              'td',
              { title: quote.reason ?? quote.quoteId ?? '' },
              quote.quoteId === undefined ? (quote.outcome ?? '—') : h('code', {}, shortId(quote.quoteId)),
              taken ? h('span', { className: 'winner' }, ' ✓ taken') : '',
            ),
            h('td', { className: 'num' }, quote.outputAmount === undefined ? '—' : formatAmount(quote.outputAmount, output)),
            h('td', { className: 'num' }, quote.feeBps === undefined ? '—' : `${quote.feeBps} bps`),
            h('td', { className: 'num' }, quote.latencyMs === undefined ? '—' : `${Math.round(quote.latencyMs)} ms`),
            h('td', { className: 'mono' }, formatClock(quote.expiresAt)),
          );
        }),
      ),
    ),
  ];
}

function verificationCell(result: EntryVerification | undefined): BrowserElement {
  if (result === undefined) return h('span', { className: 'verify-unknown' }, '…');
  if (result.hashOk === false || result.linkOk === false) {
    return h('span', { className: 'verify-bad', 'data-verified': 'false', title: result.reason ?? '' }, `✗ ${result.reason ?? 'invalid'}`);
  }
  if (result.hashOk === null)
    return h('span', { className: 'verify-unknown', 'data-verified': 'unknown', title: result.reason ?? '' }, '? unchecked');
  const link = result.linkOk === true ? ' · linked' : '';
  return h(
    'span',
    { className: 'verify-ok', 'data-verified': 'true', title: 'SHA-256 over the canonical JSON, recomputed in this browser' },
    `✓ hash${link}`,
  );
}

function ledgerSection(model: OrderDetailModel): Child[] {
  const heading = h('h3', {}, `Evidence ledger (${model.ledger.length})`);
  const note = model.ledgerNote === undefined ? null : h('p', { className: 'note' }, model.ledgerNote);
  if (model.ledger.length === 0) return [heading, note ?? h('p', { className: 'note' }, 'No entries yet.')];
  const bySequence = new Map(model.verification.map((result) => [result.sequence, result]));
  return [
    heading,
    note ?? '',
    h(
      'table',
      { 'data-testid': 'ledger' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Seq', 'Type', 'Recorded', 'Hash', 'Check'].map((label) => h('th', {}, label)),
        ),
      ),
      h(
        'tbody',
        {},
        model.ledger.map((entry) =>
          h(
            'tr',
            { 'data-sequence': entry.sequence, 'data-type': entry.type },
            h('td', { className: 'num' }, entry.sequence),
            h('td', {}, h('details', {}, h('summary', {}, entry.type), h('pre', {}, JSON.stringify(entry.payload, null, 2)))),
            h('td', { className: 'mono' }, formatClock(Date.parse(entry.recordedAt))),
            h('td', { className: 'nowrap' }, hashCode(entry.hash)),
            h('td', {}, verificationCell(bySequence.get(entry.sequence))),
          ),
        ),
      ),
    ),
  ];
}

function attemptText(attempt: DeliveryView['attempts'][number]): string {
  const answer = attempt.status === undefined ? (attempt.error ?? 'no answer') : String(attempt.status);
  return `#${attempt.attempt} ${answer}${attempt.at === undefined ? '' : ` @ ${formatClock(attempt.at).slice(11, 19)}`}`;
}

function deliveriesSection(model: OrderDetailModel): Child[] {
  const heading = h('h3', {}, `Webhook deliveries (${model.deliveries.length})`);
  const note = model.deliveriesNote === undefined ? null : h('p', { className: 'note' }, model.deliveriesNote);
  if (model.deliveries.length === 0) return [heading, note ?? h('p', { className: 'note' }, 'No deliveries for this order.')];
  return [
    heading,
    note ?? '',
    h(
      'table',
      { 'data-testid': 'deliveries' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Event', 'Endpoint', 'State', 'Attempts and answers', 'Next retry'].map((label) => h('th', {}, label)),
        ),
      ),
      h(
        'tbody',
        {},
        model.deliveries.map((delivery) =>
          h(
            'tr',
            { 'data-delivery': delivery.key, 'data-state': delivery.state },
            h('td', { title: delivery.eventId }, delivery.eventType ?? shortId(delivery.eventId)),
            h('td', { className: 'mono nowrap', title: delivery.url ?? '' }, shortId(delivery.webhookId)),
            h('td', {}, delivery.state),
            h('td', { className: 'mono' }, delivery.attempts.map(attemptText).join(', ')),
            h(
              'td',
              { className: 'mono', 'data-testid': 'next-retry' },
              delivery.nextRetryAt === undefined
                ? '—'
                : `${formatClock(delivery.nextRetryAt)}${model.clockNowMs === undefined ? '' : ` (in ${formatAge(delivery.nextRetryAt - model.clockNowMs)})`}`,
            ),
          ),
        ),
      ),
    ),
  ];
}

function eventsSection(model: OrderDetailModel): Child[] {
  const heading = h('h3', {}, `Live events (${model.events.length})`);
  if (model.events.length === 0) return [heading, h('p', { className: 'note' }, 'None seen on the WebSocket since the page opened.')];
  return [
    heading,
    h(
      'ul',
      { className: 'events', 'data-testid': 'events' },
      model.events.map((event) =>
        h(
          'li',
          { 'data-event-type': event.type },
          h('b', {}, event.type),
          ' ',
          h('code', { className: 'muted' }, event.id),
          event.timestamp === undefined ? '' : ` · ${formatClock(Date.parse(event.timestamp))}`,
        ),
      ),
    ),
  ];
}

export function renderOrderDetail(model: OrderDetailModel | undefined, loading: boolean): Child[] {
  if (model === undefined) {
    return [
      h('h2', {}, 'Order journey'),
      h('p', { className: 'empty' }, loading ? 'Loading…' : 'Select an order to see its journey across both chains.'),
    ];
  }
  const { order } = model;
  return [
    h(
      'h2',
      { 'data-testid': 'detail-title', 'data-order-id': order.id },
      h('span', { className: 'mono' }, order.id),
      ' ',
      h('span', { className: 'status', 'data-status': order.status ?? '' }, order.status ?? '…'),
    ),
    h(
      'div',
      { className: 'step-facts' },
      fact('corridor', corridorOf(order, model.chains)),
      fact('lock', order.lockType),
      fact('rail', order.rail),
      fact('in', order.inputAmount === undefined ? undefined : formatAmount(order.inputAmount, inputTokenOf(order, model.chains))),
      fact('out', order.outputAmount === undefined ? undefined : formatAmount(order.outputAmount, outputTokenOf(order, model.chains))),
      fact('fill deadline', order.fillDeadline === undefined ? undefined : formatClock(order.fillDeadline)),
    ),
    h('h3', {}, 'Journey'),
    model.timelineNote === undefined ? '' : h('p', { className: 'note' }, model.timelineNote),
    h(
      'ol',
      { className: 'steps', 'data-testid': 'journey' },
      model.steps.map((step) => stepItem(step, model)),
    ),
    ...quotesSection(model),
    ...ledgerSection(model),
    ...deliveriesSection(model),
    ...eventsSection(model),
  ];
}
