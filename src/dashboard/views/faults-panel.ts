/**
 * The sandbox's fault switches (`/api/v1/sandbox/faults`): the switches set, a form to set one, and the buttons
 * that clear them and release held relays. The form is built once and kept, so a poll does not wipe what is typed.
 */
import { FAULT_KIND_TABLE, type FaultKindSpec, type FaultParamName, faultKindSpec } from '../../contracts/fault-kinds.js';
import type { BrowserElement, BrowserInput } from '../browser.js';
import { type Child, fill, h } from '../dom.js';
import { formatAge, formatClock, parseTime } from '../format.js';
import { num, obj, str } from '../read.js';

/** Parameters the form has a field for; the others are set from the API or the CLI. */
const FORM_PARAMS: ReadonlySet<FaultParamName> = new Set(['relay', 'delay', 'route']);

/** The kinds the form offers: the service's table (src/contracts), in its order. */
export const FAULT_KIND_OPTIONS: readonly string[] = FAULT_KIND_TABLE.map((row) => row.kind);

/** What a kind needs, in the form's words: `relay, delay`, `nothing (chain and for from the API or CLI)`. */
export function faultNeeds(spec: FaultKindSpec): string {
  const inForm = spec.params.filter((param) => param.required && FORM_PARAMS.has(param.name));
  const elsewhere = spec.params.filter((param) => !FORM_PARAMS.has(param.name)).map((param) => param.name);
  const needs =
    inForm.length === 0
      ? 'nothing'
      : inForm.map((param) => (param.note === undefined ? param.name : `${param.name} (${param.note})`)).join(', ');
  return elsewhere.length === 0 ? needs : `${needs} (${elsewhere.join(' and ')} from the API or CLI)`;
}

const RELAYS = ['deposit', 'attestation', 'refund'] as const;

export interface FaultRow {
  id: string;
  kind: string;
  relay: string | undefined;
  delayMs: number | undefined;
  route: string | undefined;
  scope: { orderId: string | undefined; corridor: string | undefined; solverId: string | undefined };
  remaining: number | undefined;
  expiresAtMs: number | undefined;
  fired: number;
  active: boolean;
}

/** The body of `POST /sandbox/faults`: only what the form has a value for, so the service names what is missing. */
export interface FaultRequest {
  kind: string;
  relay?: string;
  delay?: string;
  route?: string;
  scope?: { orderId: string };
  count?: number;
}

/** One `FaultSwitch` of `GET /sandbox/faults`; undefined when it lacks an id or kind. */
export function faultFromWire(item: unknown): FaultRow | undefined {
  const id = str(item, 'id');
  const kind = str(item, 'kind');
  if (id === undefined || kind === undefined) return undefined;
  const scope = obj(item, 'scope');
  return {
    id,
    kind,
    relay: str(item, 'relay'),
    delayMs: num(item, 'delayMs'),
    route: str(item, 'route'),
    scope: { orderId: str(scope, 'orderId'), corridor: str(scope, 'corridor'), solverId: str(scope, 'solverId') },
    remaining: num(item, 'remaining'),
    expiresAtMs: parseTime(str(item, 'expiresAt')),
    fired: num(item, 'fired') ?? 0,
    active: (item as { active?: unknown }).active !== false,
  };
}

export interface FaultsPanelHandlers {
  onSet(request: FaultRequest): void;
  onClear(id: string): void;
  onClearAll(): void;
  onRelease(): void;
}

export interface FaultsPanelState {
  rows: readonly FaultRow[] | undefined;
  /** Why the switches cannot be shown (no such routes outside the sandbox, an error). */
  note: string | undefined;
  /** Switch ids being cleared. */
  clearing: ReadonlySet<string>;
}

export interface FaultsPanel {
  show(state: FaultsPanelState): void;
  showResult(text: string, error?: boolean): void;
  setBusy(busy: boolean): void;
}

export function mountFaultsPanel(region: BrowserElement, handlers: FaultsPanelHandlers): FaultsPanel {
  const kind = h(
    'select',
    { 'aria-label': 'Fault kind', 'data-testid': 'fault-kind' },
    FAULT_KIND_OPTIONS.map((name) => h('option', { value: name }, name)),
  ) as BrowserInput;
  const relay = h(
    'select',
    { 'aria-label': 'Relay', 'data-testid': 'fault-relay' },
    h('option', { value: '' }, 'relay: —'),
    RELAYS.map((name) => h('option', { value: name }, name)),
  ) as BrowserInput;
  const field = (label: string, testId: string, placeholder: string, className?: string) =>
    h('input', { type: 'text', placeholder, 'aria-label': label, 'data-testid': testId, spellcheck: 'false', className });
  const delay = field('Delay', 'fault-delay', 'delay: 10m');
  const route = field('Route', 'fault-route', 'route: POST /api/v1/quotes', 'wide');
  const orderId = field('Order id', 'fault-order', 'order: ord_…', 'wide');
  const count = h('input', { type: 'number', min: 1, placeholder: 'count', 'aria-label': 'Count', 'data-testid': 'fault-count' });
  const needs = h('p', { className: 'note', 'data-testid': 'fault-needs' });
  const showNeeds = () => {
    const chosen = faultKindSpec(kind.value) ?? FAULT_KIND_TABLE[0];
    needs.textContent = `${chosen.kind}: ${chosen.summary}; needs ${faultNeeds(chosen)}.`;
  };
  kind.addEventListener('change', showNeeds);
  showNeeds();

  const set = () => {
    const request: FaultRequest = { kind: kind.value };
    const text = (input: BrowserInput) => input.value.trim();
    if (text(relay) !== '') request.relay = text(relay);
    if (text(delay) !== '') request.delay = text(delay);
    if (text(route) !== '') request.route = text(route);
    if (text(orderId) !== '') request.scope = { orderId: text(orderId) };
    // A count the service refuses (0, 1.5) is sent as typed, so its answer names the parameter.
    if (text(count) !== '') request.count = Number(text(count));
    handlers.onSet(request);
  };
  for (const input of [delay, route, orderId, count]) {
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') set();
    });
  }
  const setButton = h('button', { type: 'button', 'data-fault-action': 'set', onclick: set }, 'Set switch');
  const clearAll = h('button', { type: 'button', 'data-fault-action': 'clear-all', onclick: () => handlers.onClearAll() }, 'Clear all');
  const release = h(
    'button',
    { type: 'button', 'data-fault-action': 'release', onclick: () => handlers.onRelease() },
    'Release held relays',
  );
  const result = h('p', { className: 'fault-result', 'data-testid': 'fault-result', role: 'status' });
  const switches = h('div', { 'data-testid': 'fault-list' });
  const note = h('p', { className: 'empty', 'data-testid': 'faults-note' }, 'Loading…');
  const body = h(
    'div',
    { className: 'fault-body' },
    switches,
    h('div', { className: 'fault-form' }, kind, relay, delay, route, orderId, count, setButton),
    needs,
    h('div', { className: 'fault-actions' }, clearAll, release),
    result,
  );
  body.hidden = true;
  fill(region, h('h2', {}, 'Fault switches'), note, body);

  return {
    show(state) {
      if (state.note !== undefined || state.rows === undefined) {
        note.textContent = state.note ?? 'Loading…';
        note.hidden = false;
        body.hidden = true;
        return;
      }
      note.hidden = true;
      body.hidden = false;
      fill(switches, renderSwitches(state.rows, state.clearing, handlers));
    },
    showResult(text, error = false) {
      result.textContent = text;
      result.toggleAttribute('data-error', error);
    },
    setBusy(busy) {
      for (const button of [setButton, clearAll, release]) button.disabled = busy;
    },
  };
}

function renderSwitches(rows: readonly FaultRow[], clearing: ReadonlySet<string>, handlers: FaultsPanelHandlers): Child {
  if (rows.length === 0) return h('p', { className: 'empty', 'data-testid': 'faults-empty' }, 'No fault switch is set.');
  return h(
    'ul',
    { className: 'fault-list' },
    rows.map((row) =>
      h(
        'li',
        { 'data-fault': row.id, 'data-kind': row.kind, 'data-active': String(row.active) },
        h('span', { className: 'badge' }, row.kind),
        ' ',
        h('span', { className: 'mono muted' }, row.id),
        h(
          'span',
          { className: 'fault-facts' },
          row.relay !== undefined && h('span', {}, `relay ${row.relay}`),
          row.delayMs !== undefined && h('span', {}, `delay ${formatAge(row.delayMs)}`),
          row.route !== undefined && h('span', { className: 'mono' }, row.route),
          row.scope.orderId !== undefined && h('span', { className: 'mono' }, `order ${row.scope.orderId}`),
          row.scope.corridor !== undefined && h('span', {}, `corridor ${row.scope.corridor}`),
          row.scope.solverId !== undefined && h('span', {}, `solver ${row.scope.solverId}`),
          h('span', { 'data-testid': 'fault-fired' }, `fired ${row.fired}`),
          row.remaining !== undefined && h('span', {}, `${row.remaining} left`),
          row.expiresAtMs !== undefined && h('span', {}, `until ${formatClock(row.expiresAtMs)}`),
          h('span', { className: row.active ? 'fault-state' : 'fault-state spent' }, row.active ? 'active' : 'spent'),
        ),
        h('button', { type: 'button', disabled: clearing.has(row.id), onclick: () => handlers.onClear(row.id) }, 'Clear'),
      ),
    ),
  );
}
