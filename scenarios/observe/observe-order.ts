import { formatUnits } from 'viem';
import { tokenOf } from '../actors/chain-clients.js';
import type { ScenarioContext, TrackedOrder } from '../core/context.js';
import type { RecordedEvent } from './events.js';
import type { ObservedTimeline, TimelineFormat } from './timeline.js';

/** Balances of the taker that an order moves: input on origin (lock balance for ResourceLock), output on destination. */
export async function orderBalances(order: Pick<TrackedOrder, 'quote'>): Promise<{ input: bigint; output: bigint }> {
  const { taker, origin, destination, inputSymbol, outputSymbol, quote } = order.quote;
  const [input, output] = await Promise.all([
    quote.lockType === 'ResourceLock' ? taker.lockBalance(origin, inputSymbol) : taker.balance(origin, inputSymbol),
    taker.balance(destination, outputSymbol),
  ]);
  return { input, output };
}

/** Reads every channel's view of one order. */
export async function observeOrder(context: ScenarioContext, order: TrackedOrder): Promise<ObservedTimeline> {
  const [detail, settlement, balances] = await Promise.all([
    context.rest.getOrder(order.orderId),
    context.rest.request<{ timeline: { stage: string }[] }>(
      'GET',
      `/api/v1/workspaces/${context.workspace.workspaceId}/settlements/${order.orderId}`,
    ),
    orderBalances(order),
    context.observer.sync(),
  ]);
  // An order's events: those naming it, and the Reference B events of its RFQ before it existed (rfq.created, quote.received).
  const rfqId = order.quote.response.rfqId;
  const typesFor = (events: readonly RecordedEvent[]) =>
    events.filter((e) => e.orderId === order.orderId || (e.orderId === undefined && e.rfqId === rfqId)).map((e) => e.type);
  return {
    status: detail.status,
    stages: settlement.timeline.map((stage) => stage.stage),
    ws: Object.fromEntries(context.streams.map((stream) => [stream.name, typesFor(stream.events())])),
    webhooks: Object.fromEntries(context.receivers.map((receiver) => [receiver.name, typesFor(receiver.events())])),
    chain: context.observer.factsOf(order.onchainOrderId).map((fact) => fact.kind),
    ledger: context.ledger?.labelsOf(order.orderId),
    balances: { input: balances.input - order.before.input, output: balances.output - order.before.output },
  };
}

/** `−20,000.00 USDC`, `+19,995.23 USDC`, `0 USDC`. */
export function formatAmount(value: bigint, decimals: number, symbol: string): string {
  const sign = value < 0n ? '−' : value > 0n ? '+' : '';
  const magnitude = formatUnits(value < 0n ? -value : value, decimals);
  const [whole, fraction = ''] = magnitude.split('.');
  const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}${grouped}${fraction === '' ? '' : `.${fraction.padEnd(2, '0')}`} ${symbol}`;
}

export function orderFormat(order: TrackedOrder): TimelineFormat {
  const input = tokenOf(order.quote.origin, order.quote.inputSymbol);
  const output = tokenOf(order.quote.destination, order.quote.outputSymbol);
  return {
    amount: (field, value) =>
      field === 'input' ? formatAmount(value, input.decimals, input.symbol) : formatAmount(value, output.decimals, output.symbol),
  };
}
