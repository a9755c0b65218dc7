/**
 * The sandbox dashboard: every order of the workspace live over the WebSocket, one order's journey across
 * both chains, the chains' heads and the sandbox clock. A client like any other: it uses only the public API
 * and WebSocket, with the key the sandbox hands loopback visitors (or one pasted into the page).
 */
import { ApiClient } from './api.js';
import { BlockLookup } from './chain-rpc.js';
import { type BrowserMeta, browser } from './browser.js';
import { byId, fill, h } from './dom.js';
import { formatAge, parseTime } from './format.js';
import { buildJourney } from './journey.js';
import { type EntryVerification, verifyLedgerEntries } from './ledger-verify.js';
import { type FeedEvent, type FeedState, LiveFeed } from './live-feed.js';
import { type OrderDetailData, type OrderFactsCache, loadOrderDetail } from './order-loader.js';
import { type OrderView, isTerminal, mergeOrder, orderFromDetail, orderFromEvent, orderFromSettlement } from './orders.js';
import { list, num, obj, str } from './read.js';
import type { ChainTokens } from './tokens.js';
import { type ChainStateView, renderChainsPanel } from './views/chains-panel.js';
import { type ClockPanel, mountClockPanel } from './views/clock-panel.js';
import { renderOrderDetail } from './views/order-detail.js';
import { renderOrdersTable } from './views/orders-table.js';
import { type CreditRow, renderCreditPanel } from './views/credit-panel.js';
import { type ApprovalRow, renderApprovalsPanel } from './views/approvals-panel.js';
import { type FaultRequest, type FaultRow, type FaultsPanel, faultFromWire, mountFaultsPanel } from './views/faults-panel.js';

const API_BASE = '/api/v1';
const POLL_MS = 2_000;
const KEY_STORAGE = 'sandbox-api-key';
/** Without a list route, open orders are re-read one by one; bound the work per poll. */
const MAX_OPEN_ORDER_READS = 10;
const EVENTS_PER_ORDER = 50;

type ChainState = ChainStateView & ChainTokens & { rpcUrl: string };

interface ClockReading {
  nowMs: number;
  ticking: boolean;
  /** performance.now() when read: a ticking clock moves on with the wall clock between reads. */
  readAt: number;
}

const { document, location, history, sessionStorage } = browser();

function meta(name: string): string | undefined {
  return (document.querySelector(`meta[name="${name}"]`) as BrowserMeta | null)?.content || undefined;
}

function hashParams(): URLSearchParams {
  return new URLSearchParams(location.hash.replace(/^#/, ''));
}

/** The key: handed out by the sandbox in the page, or `#key=…` once (kept for this tab only), or pasted. */
function initialKey(): string | undefined {
  const injected = meta('sandbox-api-key');
  if (injected !== undefined) return injected;
  const params = hashParams();
  const fromHash = params.get('key');
  if (fromHash) {
    sessionStorage.setItem(KEY_STORAGE, fromHash);
    params.delete('key');
    history.replaceState(null, '', `${location.pathname}${params.size > 0 ? `#${params}` : ''}`);
    return fromHash;
  }
  return sessionStorage.getItem(KEY_STORAGE) ?? undefined;
}

class Dashboard {
  private readonly api: ApiClient;
  private readonly clockPanel: ClockPanel;
  private readonly faultsPanel: FaultsPanel;
  private readonly blocks = new BlockLookup();
  private readonly facts: OrderFactsCache = new Map();
  private readonly orders = new Map<string, OrderView>();
  private readonly events = new Map<string, FeedEvent[]>();
  private readonly detailRefreshes = new Map<string, ReturnType<typeof setTimeout>>();
  private feed: LiveFeed | undefined;
  private chains: ChainState[] | undefined;
  private clock: ClockReading | undefined;
  private workspaceId: string | undefined = meta('sandbox-workspace');
  private selected: string | undefined = hashParams().get('order') ?? undefined;
  private detail: OrderDetailData | undefined;
  private verification: EntryVerification[] = [];
  private detailLoading = false;
  /** `orders` or `settlements` once a list route answered; `none` when neither exists. */
  private listRoute: 'settlements' | 'none' | undefined;
  private polling = false;
  private readonly rendered = { orders: '', detail: '', chains: '', credit: '', approvals: '', faults: '' };
  private credit: { rows?: CreditRow[]; note?: string } = {};
  private approvals: { rows?: ApprovalRow[]; note?: string } = {};
  private readonly deciding = new Set<string>();
  private faults: { rows?: FaultRow[]; note?: string } = {};
  private readonly clearingFaults = new Set<string>();

  constructor() {
    this.api = new ApiClient(API_BASE, initialKey());
    this.clockPanel = mountClockPanel(byId('clock'), (duration) => void this.advance(duration));
    this.faultsPanel = mountFaultsPanel(byId('faults'), {
      onSet: (request) => void this.faultAction(() => this.setFault(request)),
      onClear: (id) => void this.clearFault(id),
      onClearAll: () => void this.faultAction(() => this.clearAllFaults()),
      onRelease: () => void this.faultAction(() => this.releaseRelays()),
    });
  }

  async start(): Promise<void> {
    this.renderAll();
    if (!this.api.hasKey) this.askForKey();
    await this.poll();
    this.startFeed();
    setInterval(() => void this.poll(), POLL_MS);
    setInterval(() => this.tickSecond(), 1_000);
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'visible') void this.poll();
    });
  }

  // ---- clock ----

  private clockNow(): number | undefined {
    if (this.clock === undefined) return undefined;
    return this.clock.nowMs + (this.clock.ticking ? performance.now() - this.clock.readAt : 0);
  }

  private tickSecond(): void {
    const now = this.clockNow();
    this.clockPanel.showTime(now);
    if (now === undefined) return;
    // Ages move every second: update the cells in place instead of rebuilding rows under the pointer.
    for (const cell of Array.from(document.querySelectorAll('tr.order-row'))) {
      const order = this.orders.get(cell.dataset.orderId ?? '');
      const age = cell.querySelector('[data-testid="order-age"]');
      if (order?.createdAt !== undefined && age !== null) age.textContent = formatAge(now - order.createdAt);
    }
  }

  private async advance(duration: string): Promise<void> {
    if (!this.api.hasKey) {
      this.clockPanel.showResult('needs the sandbox API key', true);
      return;
    }
    this.clockPanel.setBusy(true);
    this.clockPanel.showResult(`advancing ${duration}…`);
    try {
      const result = await this.api.post('/sandbox/clock/advance', { duration });
      if (!result.ok) {
        this.clockPanel.showResult(result.message, true);
        return;
      }
      const nowMs = num(result.body, 'nowMs');
      if (nowMs !== undefined) this.clock = { nowMs, ticking: this.clock?.ticking ?? true, readAt: performance.now() };
      const jobs = num(result.body, 'jobsRun') ?? 0;
      this.clockPanel.showResult(`+${duration}: ${jobs} job${jobs === 1 ? '' : 's'} run`);
      this.clockPanel.showTime(this.clockNow());
      await this.poll(true);
    } finally {
      this.clockPanel.setBusy(false);
    }
  }

  // ---- data ----

  private async poll(force = false): Promise<void> {
    if (this.polling && !force) return;
    if (!force && document.visibilityState === 'hidden') return;
    this.polling = true;
    try {
      await Promise.all([this.readInfo(), this.readOrders(), this.readCredit(), this.readApprovals(), this.readFaults()]);
      if (this.selected !== undefined) await this.readDetail(this.selected);
      this.renderAll();
    } finally {
      this.polling = false;
    }
  }

  private async readInfo(): Promise<void> {
    const info = await this.api.get('/sandbox/info');
    if (!info.ok) {
      byId('environment').textContent = info.status === 0 ? 'service unreachable' : `info: ${info.message}`;
      return;
    }
    const clock = obj(info.body, 'clock');
    const nowMs = num(clock, 'nowMs');
    if (nowMs !== undefined) this.clock = { nowMs, ticking: (clock as { ticking?: boolean }).ticking !== false, readAt: performance.now() };
    this.workspaceId ??= str(info.body, 'workspaceId');
    byId('environment').textContent = str(info.body, 'environment') ?? '?';
    this.chains = list(info.body, 'chains').flatMap((item): ChainState[] => {
      const name = str(item, 'name');
      const chainId = num(item, 'chainId');
      if (name === undefined || chainId === undefined) return [];
      const error = str(item, 'error');
      return [
        {
          name,
          chainId,
          rpcUrl: str(item, 'rpcUrl') ?? '',
          ok: (item as { ok?: boolean }).ok === true,
          headBlock: num(item, 'headBlock') ?? null,
          chainTime: num(item, 'chainTime') ?? null,
          tokens: list(item, 'tokens').flatMap((token) => {
            const symbol = str(token, 'symbol');
            const address = str(token, 'address');
            const decimals = num(token, 'decimals');
            return symbol === undefined || address === undefined || decimals === undefined ? [] : [{ symbol, address, decimals }];
          }),
          ...(error === undefined ? {} : { error }),
        },
      ];
    });
    this.clockPanel.showTime(this.clockNow());
  }

  /** The deferred rail's credit (`GET /deferred/balance`); a service without it shows why. */
  private async readCredit(): Promise<void> {
    const result = await this.api.get('/deferred/balance');
    if (!result.ok) {
      this.credit = { note: result.missing || result.status === 404 ? 'The service has no deferred rail.' : `balance: ${result.message}` };
      return;
    }
    this.credit = {
      rows: list(result.body, 'balances').flatMap((item): CreditRow[] => {
        const chainId = num(item, 'chainId');
        const token = str(item, 'token');
        const symbol = str(item, 'symbol');
        const available = str(item, 'available');
        const held = str(item, 'held');
        if (chainId === undefined || token === undefined || symbol === undefined || available === undefined || held === undefined)
          return [];
        const chain = this.chains?.find((c) => c.chainId === chainId);
        const decimals = chain?.tokens.find((t) => t.address.toLowerCase() === token.toLowerCase())?.decimals;
        return [{ chainName: chain?.name ?? String(chainId), symbol, decimals, available, held }];
      }),
    };
  }

  /** What waits for an admin (`GET /admin/approvals?status=pending`); a key without the admin role shows why. */
  private async readApprovals(): Promise<void> {
    const result = await this.api.get('/admin/approvals?status=pending&limit=50');
    if (!result.ok) {
      this.approvals = {
        note:
          result.missing || result.status === 404
            ? 'The service has no approvals queue.'
            : result.status === 403
              ? 'Only admins see the approvals queue.'
              : `approvals: ${result.message}`,
      };
      return;
    }
    this.approvals = {
      rows: list(result.body, 'data').flatMap((item): ApprovalRow[] => {
        const id = str(item, 'id');
        const kind = str(item, 'kind');
        const summary = str(item, 'summary');
        if (id === undefined || kind === undefined || summary === undefined) return [];
        return [{ id, kind, summary, createdAtMs: parseTime(str(item, 'createdAt')) }];
      }),
    };
  }

  private async decide(id: string, decision: 'approve' | 'reject'): Promise<void> {
    this.deciding.add(id);
    this.renderAll();
    try {
      await this.api.post(`/admin/approvals/${encodeURIComponent(id)}/${decision}`, {});
      await this.poll(true);
    } finally {
      this.deciding.delete(id);
      this.renderAll();
    }
  }

  /** The fault switches (`GET /sandbox/faults`); outside the sandbox environment the routes do not exist. */
  private async readFaults(): Promise<void> {
    const result = await this.api.get('/sandbox/faults');
    if (!result.ok) {
      this.faults = {
        note: result.missing || result.status === 404 ? 'The service has no fault switches.' : `fault switches: ${result.message}`,
      };
      return;
    }
    this.faults = { rows: list(result.body, 'data').flatMap((item) => faultFromWire(item) ?? []) };
  }

  /** One form or panel button at a time: busy while it runs, then the list is re-read. */
  private async faultAction(run: () => Promise<void>): Promise<void> {
    if (!this.api.hasKey) {
      this.faultsPanel.showResult('needs the sandbox API key', true);
      return;
    }
    this.faultsPanel.setBusy(true);
    try {
      await run();
      await this.poll(true);
    } finally {
      this.faultsPanel.setBusy(false);
    }
  }

  private async setFault(request: FaultRequest): Promise<void> {
    const result = await this.api.post('/sandbox/faults', request);
    if (!result.ok) {
      this.faultsPanel.showResult(`${result.message}${result.param === undefined ? '' : ` (param: ${result.param})`}`, true);
      return;
    }
    this.faultsPanel.showResult(`set ${str(result.body, 'id') ?? 'a switch'} (${request.kind})`);
  }

  private async clearFault(id: string): Promise<void> {
    this.clearingFaults.add(id);
    this.renderAll();
    try {
      const result = await this.api.delete(`/sandbox/faults/${encodeURIComponent(id)}`);
      this.faultsPanel.showResult(result.ok ? `cleared ${id}` : result.message, !result.ok);
      await this.poll(true);
    } finally {
      this.clearingFaults.delete(id);
      this.renderAll();
    }
  }

  private async clearAllFaults(): Promise<void> {
    const result = await this.api.delete('/sandbox/faults');
    const cleared = num(result.ok ? result.body : undefined, 'cleared') ?? 0;
    this.faultsPanel.showResult(result.ok ? `cleared ${cleared} switch${cleared === 1 ? '' : 'es'}` : result.message, !result.ok);
  }

  private async releaseRelays(): Promise<void> {
    const result = await this.api.post('/sandbox/relays/release', {});
    const released = result.ok ? list(result.body, 'released').length : 0;
    this.faultsPanel.showResult(result.ok ? `released ${released} held relay${released === 1 ? '' : 's'}` : result.message, !result.ok);
  }

  /**
   * The list route if the service has one; else the open orders one by one (the WebSocket adds new ones). The
   * service lists orders at `GET /settlements` (`/orders` takes only POST): a `GET /orders` probe made every load
   * log a 405 in the browser console.
   */
  private async readOrders(): Promise<void> {
    if (this.listRoute === undefined || this.listRoute === 'settlements') {
      const result = await this.api.get('/settlements?limit=100');
      if (result.ok) {
        this.listRoute = 'settlements';
        const items = list(result.body, 'data', 'settlements');
        for (const item of items) this.upsert(orderFromSettlement(item), true);
        // Settlements lack corridor, lock type and amounts: read the detail of orders that miss them.
        await this.readOrderDetails(
          [...this.orders.values()].filter((order) => order.lockType === undefined && order.inputAmount === undefined),
        );
        return;
      }
      if (this.api.hasKey) this.listRoute = 'none';
    }
    const open = [...this.orders.values()].filter((order) => !isTerminal(order.status)).slice(0, MAX_OPEN_ORDER_READS);
    await this.readOrderDetails(open);
  }

  private async readOrderDetails(orders: readonly OrderView[]): Promise<void> {
    await Promise.all(
      orders.slice(0, MAX_OPEN_ORDER_READS).map(async (order) => {
        const result = await this.api.get(`/orders/${encodeURIComponent(order.id)}`);
        if (result.ok) this.upsert(orderFromDetail(result.body), true);
      }),
    );
  }

  private upsert(view: OrderView | undefined, authoritative = false): OrderView | undefined {
    if (view === undefined) return undefined;
    const merged = mergeOrder(this.orders.get(view.id), view, authoritative);
    merged.seenAt ??= this.clockNow();
    this.orders.set(view.id, merged);
    return merged;
  }

  private async readDetail(orderId: string): Promise<void> {
    const known = this.orders.get(orderId) ?? { id: orderId };
    const eventIds = new Set((this.events.get(orderId) ?? []).map((event) => event.id));
    const data = await loadOrderDetail(this.api, known, { workspaceId: this.workspaceId, eventIds, cache: this.facts });
    if (this.selected !== orderId) return;
    this.upsert(data.order, true);
    this.detail = data;
    this.verification = await verifyLedgerEntries(data.ledger);
    const chains = this.chains ?? [];
    const steps = buildJourney(data.order, data.timeline, chains);
    const wanted = steps.flatMap((step) => {
      const rpcUrl = chains.find((chain) => chain.chainId === step.chain?.chainId)?.rpcUrl;
      return step.txHash === undefined || step.blockNumber !== undefined || !rpcUrl ? [] : [{ txHash: step.txHash, rpcUrl }];
    });
    await this.blocks.resolve(wanted);
  }

  private scheduleDetailRefresh(orderId: string): void {
    if (this.detailRefreshes.has(orderId)) return;
    this.detailRefreshes.set(
      orderId,
      setTimeout(async () => {
        this.detailRefreshes.delete(orderId);
        if (orderId === this.selected) await this.readDetail(orderId);
        else await this.readOrderDetails([this.orders.get(orderId) ?? { id: orderId }]);
        this.renderAll();
      }, 150),
    );
  }

  // ---- live feed ----

  private startFeed(): void {
    const token = this.api.token;
    if (token === undefined) return;
    this.feed?.stop();
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    this.feed = new LiveFeed({
      url: `${scheme}://${location.host}${API_BASE}/ws`,
      token,
      topics: ['orders:*'],
      onState: (state, detail) => this.showFeedState(state, detail),
      onEvent: (event) => this.onEvent(event),
      onResubscribed: () => void this.poll(true),
      keyStillValid: async () => (await this.api.get('/sandbox/info')).status !== 401,
    });
    this.feed.start();
  }

  private showFeedState(state: FeedState, detail?: string): void {
    const badge = byId('feed');
    badge.dataset.state = state;
    const label = { connecting: 'connecting…', live: 'live', reconnecting: 'reconnecting', closed: 'closed' }[state];
    badge.textContent = detail === undefined ? label : `${label} (${detail})`;
  }

  private onEvent(event: FeedEvent): void {
    const view = this.upsert(orderFromEvent(event));
    if (view === undefined) return;
    const seen = this.events.get(view.id) ?? [];
    seen.push(event);
    if (seen.length > EVENTS_PER_ORDER) seen.shift();
    this.events.set(view.id, seen);
    this.scheduleDetailRefresh(view.id);
    this.renderAll();
  }

  // ---- rendering ----

  private select(orderId: string): void {
    if (this.selected === orderId) return;
    this.selected = orderId;
    this.detail = undefined;
    this.verification = [];
    this.detailLoading = true;
    const params = hashParams();
    params.set('order', orderId);
    history.replaceState(null, '', `#${params}`);
    this.renderAll();
    void this.readDetail(orderId).finally(() => {
      this.detailLoading = false;
      this.renderAll();
    });
  }

  private renderAll(): void {
    const now = this.clockNow();
    const chainsKey = JSON.stringify(this.chains);
    if (chainsKey !== this.rendered.chains) {
      this.rendered.chains = chainsKey;
      fill(byId('chains'), ...renderChainsPanel(this.chains, now));
    }

    const orders = [...this.orders.values()].sort(
      (a, b) => (b.createdAt ?? b.seenAt ?? 0) - (a.createdAt ?? a.seenAt ?? 0) || b.id.localeCompare(a.id),
    );
    const note =
      this.listRoute === 'none'
        ? 'The service has no order list route (GET /api/v1/orders or /api/v1/settlements): orders appear as their events arrive.'
        : undefined;
    const ordersKey = JSON.stringify([orders, this.selected, note, this.chains?.map((c) => c.tokens)]);
    if (ordersKey !== this.rendered.orders) {
      this.rendered.orders = ordersKey;
      fill(
        byId('orders'),
        ...renderOrdersTable({
          orders,
          selected: this.selected,
          chains: this.chains ?? [],
          clockNowMs: now,
          onSelect: (id) => this.select(id),
          ...(note === undefined ? {} : { note }),
        }),
      );
    }

    const creditKey = JSON.stringify([this.credit, this.chains?.map((c) => c.tokens)]);
    if (creditKey !== this.rendered.credit) {
      this.rendered.credit = creditKey;
      fill(byId('credit'), ...renderCreditPanel(this.credit.rows, this.credit.note));
    }
    const approvalsKey = JSON.stringify([this.approvals, [...this.deciding]]);
    if (approvalsKey !== this.rendered.approvals) {
      this.rendered.approvals = approvalsKey;
      fill(
        byId('approvals'),
        ...renderApprovalsPanel({
          rows: this.approvals.rows,
          note: this.approvals.note,
          clockNowMs: now,
          busy: this.deciding,
          onDecide: (id, decision) => void this.decide(id, decision),
        }),
      );
    }

    const faultsKey = JSON.stringify([this.faults, [...this.clearingFaults]]);
    if (faultsKey !== this.rendered.faults) {
      this.rendered.faults = faultsKey;
      this.faultsPanel.show({ rows: this.faults.rows, note: this.faults.note, clearing: this.clearingFaults });
    }

    const detail = this.detail;
    const order = detail === undefined ? undefined : (this.orders.get(detail.order.id) ?? detail.order);
    const model =
      detail === undefined || order === undefined
        ? undefined
        : {
            order,
            steps: buildJourney(order, detail.timeline, this.chains ?? []),
            blocks: this.blocks.snapshot(),
            quotes: detail.quotes,
            ledger: detail.ledger,
            verification: this.verification,
            deliveries: detail.deliveries,
            events: this.events.get(order.id) ?? [],
            chains: this.chains ?? [],
            clockNowMs: now,
            ...(detail.timelineNote === undefined ? {} : { timelineNote: detail.timelineNote }),
            ...(detail.quotesNote === undefined ? {} : { quotesNote: detail.quotesNote }),
            ...(detail.ledgerNote === undefined ? {} : { ledgerNote: detail.ledgerNote }),
            ...(detail.deliveriesNote === undefined ? {} : { deliveriesNote: detail.deliveriesNote }),
          };
    // The clock alone does not re-render the journey (ages tick in place); new data does.
    const detailKey = JSON.stringify([{ ...model, clockNowMs: undefined }, [...this.blocks.snapshot()], this.detailLoading, this.selected]);
    if (detailKey !== this.rendered.detail) {
      this.rendered.detail = detailKey;
      fill(byId('detail'), ...renderOrderDetail(model, this.detailLoading || (this.selected !== undefined && model === undefined)));
    }
  }

  private askForKey(): void {
    const form = byId('key-form');
    const input = h('input', { type: 'password', placeholder: 'svc_test_…', 'aria-label': 'Sandbox API key', autocomplete: 'off' });
    const use = () => {
      const key = input.value.trim();
      if (key === '') return;
      sessionStorage.setItem(KEY_STORAGE, key);
      this.api.setKey(key);
      form.hidden = true;
      this.listRoute = undefined;
      this.startFeed();
      void this.poll(true);
    };
    fill(
      form,
      h('span', {}, 'This page got no API key (it is handed out to loopback visitors only). Paste one from sandbox.json:'),
      input,
      h('button', { type: 'button', onclick: use }, 'Use key'),
    );
    form.hidden = false;
  }
}

void new Dashboard().start();
