/** The workspace's deferred-rail credit in DeferredVault: available and held, per chain and token. */
import { type Child, h } from '../dom.js';
import { formatAmount } from '../format.js';

export interface CreditRow {
  chainName: string;
  symbol: string;
  decimals: number | undefined;
  available: string;
  held: string;
}

export function renderCreditPanel(rows: readonly CreditRow[] | undefined, note: string | undefined): Child[] {
  const title = h('h2', {}, 'Deferred credit');
  if (note !== undefined) return [title, h('p', { className: 'empty' }, note)];
  if (rows === undefined) return [title, h('p', { className: 'empty' }, 'Loading…')];
  const token = (row: CreditRow) => (row.decimals === undefined ? undefined : { symbol: row.symbol, decimals: row.decimals });
  const funded = rows.filter((row) => row.available !== '0' || row.held !== '0');
  if (funded.length === 0) return [title, h('p', { className: 'empty' }, 'No credit yet: POST /api/v1/deferred/deposit funds it.')];
  return [
    title,
    h(
      'table',
      {},
      h('thead', {}, h('tr', {}, h('th', {}, 'Chain'), h('th', {}, 'Token'), h('th', {}, 'Available'), h('th', {}, 'Held'))),
      h(
        'tbody',
        {},
        funded.map((row) =>
          h(
            'tr',
            { 'data-credit': `${row.chainName}:${row.symbol}` },
            h('td', {}, row.chainName),
            h('td', {}, row.symbol),
            h('td', { className: 'num mono', 'data-testid': 'credit-available' }, formatAmount(row.available, token(row))),
            h('td', { className: 'num mono', 'data-testid': 'credit-held' }, formatAmount(row.held, token(row))),
          ),
        ),
      ),
    ),
  ];
}
