/** What waits for an admin (large withdrawals, deferred confirmations), with the buttons that decide it. */
import { type Child, h } from '../dom.js';
import { formatAge } from '../format.js';

export interface ApprovalRow {
  id: string;
  kind: string;
  summary: string;
  createdAtMs: number | undefined;
}

export interface ApprovalsPanelInput {
  rows: readonly ApprovalRow[] | undefined;
  /** Why the queue cannot be shown (no admin role, no route). */
  note: string | undefined;
  clockNowMs: number | undefined;
  busy: ReadonlySet<string>;
  onDecide(id: string, decision: 'approve' | 'reject'): void;
}

export function renderApprovalsPanel(input: ApprovalsPanelInput): Child[] {
  const title = h('h2', {}, 'Approvals');
  if (input.note !== undefined) return [title, h('p', { className: 'empty' }, input.note)];
  if (input.rows === undefined) return [title, h('p', { className: 'empty' }, 'Loading…')];
  if (input.rows.length === 0) return [title, h('p', { className: 'empty' }, 'Nothing waits for an admin.')];
  return [
    title,
    h(
      'ul',
      { className: 'approvals' },
      input.rows.map((row) => {
        const busy = input.busy.has(row.id);
        const age =
          row.createdAtMs === undefined || input.clockNowMs === undefined
            ? ''
            : ` · ${formatAge(Math.max(0, input.clockNowMs - row.createdAtMs))} ago`;
        return h(
          'li',
          { 'data-approval': row.id },
          h('span', { className: 'badge' }, row.kind === 'withdrawal' ? 'withdrawal' : 'deferred order'),
          ' ',
          h('span', {}, row.summary),
          h('span', { className: 'muted' }, age),
          ' ',
          h('button', { type: 'button', disabled: busy, onclick: () => input.onDecide(row.id, 'approve') }, 'Approve'),
          ' ',
          h('button', { type: 'button', disabled: busy, onclick: () => input.onDecide(row.id, 'reject') }, 'Reject'),
        );
      }),
    ),
  ];
}
