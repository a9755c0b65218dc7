/** The chains beside the service: head block and chain time, against the service clock. */
import { type Child, h } from '../dom.js';
import { formatAge, formatClock } from '../format.js';

export interface ChainStateView {
  name: string;
  chainId: number;
  ok: boolean;
  headBlock: number | null;
  /** Unix seconds. */
  chainTime: number | null;
  error?: string;
}

export function renderChainsPanel(chains: readonly ChainStateView[] | undefined, clockNowMs: number | undefined): Child[] {
  const title = h('h2', {}, 'Chains');
  if (chains === undefined) return [title, h('p', { className: 'empty' }, 'Loading…')];
  if (chains.length === 0) return [title, h('p', { className: 'empty' }, 'The service runs without chains.')];
  const rows = chains.map((chain) => {
    const timeMs = chain.chainTime === null ? undefined : chain.chainTime * 1_000;
    const drift = timeMs !== undefined && clockNowMs !== undefined ? timeMs - clockNowMs : undefined;
    return h(
      'tr',
      { 'data-chain': chain.name, 'data-head-block': chain.headBlock ?? '' },
      h('td', {}, h('b', {}, chain.name)),
      h('td', { className: 'num mono' }, chain.chainId),
      h('td', { className: 'num mono', 'data-testid': 'head-block' }, chain.headBlock === null ? '—' : `#${chain.headBlock}`),
      h('td', { className: 'mono' }, formatClock(timeMs)),
      h(
        'td',
        { className: 'muted' },
        chain.ok
          ? drift === undefined
            ? ''
            : Math.abs(drift) < 2_000
              ? 'in step with the clock'
              : // A chain mines only when there is something to mine: an older head block is an idle chain, not a late one.
                drift > 0
                ? `${formatAge(drift)} ahead of the clock`
                : `idle: last block ${formatAge(-drift)} ago`
          : h('span', { className: 'verify-bad' }, `unreachable: ${chain.error ?? ''}`),
      ),
    );
  });
  return [
    title,
    h(
      'table',
      {},
      h('thead', {}, h('tr', {}, h('th', {}, 'Chain'), h('th', {}, 'Id'), h('th', {}, 'Head'), h('th', {}, 'Chain time'), h('th', {}, ''))),
      h('tbody', {}, rows),
    ),
  ];
}
