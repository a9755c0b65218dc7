/** Every order of the workspace, latest first: status, corridor, lock type, rail, amounts and age. */
import type { BrowserEvent } from '../browser.js';
import { type Child, h } from '../dom.js';
import { formatAge, formatAmount, shortId } from '../format.js';
import type { OrderView } from '../orders.js';
import { type ChainTokens, corridorOf, inputTokenOf, outputTokenOf } from '../tokens.js';

export interface OrdersTableModel {
  orders: readonly OrderView[];
  selected: string | undefined;
  chains: readonly ChainTokens[];
  clockNowMs: number | undefined;
  /** Where the list comes from, or why it may be incomplete. */
  note?: string;
  onSelect(orderId: string): void;
}

export function renderOrdersTable(model: OrdersTableModel): Child[] {
  const title = h('h2', {}, `Orders (${model.orders.length})`);
  const note = model.note === undefined ? null : h('p', { className: 'note' }, model.note);
  if (model.orders.length === 0) {
    return [
      title,
      note ?? '',
      h(
        'p',
        { className: 'empty', 'data-testid': 'orders-empty' },
        'No orders yet. Request quotes (POST /api/v1/quotes), sign one and create an order (POST /api/v1/orders), or run a scenario: it appears here live.',
      ),
    ];
  }
  const rows = model.orders.map((order) => {
    const age = order.createdAt !== undefined && model.clockNowMs !== undefined ? formatAge(model.clockNowMs - order.createdAt) : '—';
    return h(
      'tr',
      {
        className: 'order-row',
        'data-order-id': order.id,
        'data-status': order.status ?? '',
        'aria-selected': order.id === model.selected ? 'true' : 'false',
        tabindex: 0,
        onclick: () => model.onSelect(order.id),
        onkeydown: (event: BrowserEvent) => {
          if (event.key === 'Enter') model.onSelect(order.id);
        },
      },
      h('td', { className: 'mono nowrap', title: order.id }, shortId(order.id)),
      h('td', {}, h('span', { className: 'status', 'data-status': order.status ?? '' }, order.status ?? '…')),
      h('td', { className: 'mono wrap' }, corridorOf(order, model.chains) ?? '—'),
      h('td', { className: 'optional' }, order.lockType ?? '—'),
      h('td', { className: 'optional' }, order.rail ?? '—'),
      h('td', { className: 'num' }, formatAmount(order.inputAmount, inputTokenOf(order, model.chains))),
      h('td', { className: 'num' }, formatAmount(order.outputAmount, outputTokenOf(order, model.chains))),
      h('td', { className: 'num', 'data-testid': 'order-age' }, age),
    );
  });
  return [
    title,
    note ?? '',
    h(
      'table',
      { 'data-testid': 'orders-table' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          // Lock and Rail give way first on a narrow screen (the order's detail shows both): no column is clipped.
          ['Order', 'Status', 'Corridor', 'Lock', 'Rail', 'In', 'Out', 'Age'].map((label) =>
            h('th', label === 'Lock' || label === 'Rail' ? { className: 'optional' } : {}, label),
          ),
        ),
      ),
      h('tbody', {}, rows),
    ),
  ];
}
