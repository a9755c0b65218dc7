import type { Logger } from 'pino';
import type { Clock } from '../../clock/index.js';
import type { LedgerRepository } from '../ledger/repository.js';
import type { OrderRepository, Stage } from '../orders/order-repository.js';
import type { RelayRecord } from '../settlement/relay-repository.js';
import { ChainUnreachableError } from '../settlement/rpc-transport.js';
import { newId } from '../store/ids.js';
import type { Store } from '../store/store.js';
import { type FaultKind, faultRelayClass, type RelayAction, type RelayClass, relayActionOf, relayClassOf } from './fault-kinds.js';
import { FaultRepository, type FaultScope, type FaultSwitch, type RelayDecision } from './fault-repository.js';

/** What the relayer does with one queued relay. */
export type RelayGate =
  | { action: 'send' }
  | { action: 'hold'; faultId: string }
  | { action: 'wait'; until: number }
  | { action: 'drop'; faultId: string; notify: boolean };

export interface NewFault {
  kind: FaultKind;
  relay?: RelayClass | undefined;
  delayMs?: number | undefined;
  route?: string | undefined;
  chainId?: number | undefined;
  method?: string | undefined;
  depth?: number | undefined;
  scope?: Partial<FaultScope> | undefined;
  count?: number | undefined;
  forMs?: number | undefined;
}

export interface FaultSwitchboardDeps {
  store: Store;
  clock: Clock;
  ledger: LedgerRepository;
  logger: Logger;
  /** The orders' repository, for scopes by corridor or solver and for timeline stages; undefined without orders. */
  orders(): OrderRepository | undefined;
  /** Wakes every relayer, so a released or due relay is sent now. */
  kickRelays(): void;
  /** Other instances share the store (and may fire or clear switches). */
  shared?: boolean;
}

const STAGE: Record<RelayAction | 'release' | 'solver' | 'reorg' | 'oracle', Stage> = {
  hold: 'fault.held',
  delay: 'fault.delayed',
  drop: 'fault.dropped',
  release: 'fault.released',
  solver: 'fault.solver',
  reorg: 'fault.reorg',
  oracle: 'fault.oracle',
};

/** Routes a service fault never touches: the switches' own routes, so a maintenance switch can always be cleared. */
const UNGATED = /^\/api\/v1\/sandbox\/(faults|relays)(\/|$)/;

/**
 * The sandbox's fault switches: set, listed and cleared through the sandbox API and CLI; consulted by the relayers
 * (relay and oracle faults) and by the HTTP layer (service faults). Every firing is a ledger entry (`fault.fired`,
 * on the order's trade when there is one) and, for an order, a stage of its timeline, so a run explains itself.
 */
export class FaultSwitchboard {
  readonly repository: FaultRepository;
  private readonly timers = new Map<number, ReturnType<Clock['schedule']>>();
  /**
   * The switches not cleared, kept in memory: every request and every queued relay asks, and almost always nothing
   * is set. Refreshed whenever this process sets, clears or fires one.
   */
  private cache: FaultSwitch[] | undefined;
  /** Told after every set and clear (chain halts follow the switches). */
  private readonly changeListeners: Array<() => Promise<void> | void> = [];
  private lastChange: Promise<unknown> = Promise.resolve();
  /** Orders whose fill a chain.reorg switch is taking away: their oracle legs wait until that is done. */
  private readonly reorging = new Set<string>();

  constructor(private readonly deps: FaultSwitchboardDeps) {
    this.repository = new FaultRepository(deps.store);
  }

  set(input: NewFault): FaultSwitch {
    const now = this.deps.clock.now();
    const fault: FaultSwitch = {
      id: newId('flt'),
      kind: input.kind,
      relay: input.relay ?? null,
      delayMs: input.delayMs ?? null,
      route: input.route ?? null,
      chainId: input.chainId ?? null,
      method: input.method ?? null,
      depth: input.depth ?? null,
      scope: { orderId: input.scope?.orderId ?? null, corridor: input.scope?.corridor ?? null, solverId: input.scope?.solverId ?? null },
      remaining: input.count ?? null,
      expiresAt: input.forMs === undefined ? null : now + input.forMs,
      fired: 0,
      createdAt: now,
      clearedAt: null,
    };
    this.cache = undefined;
    this.deps.store.transaction(() => {
      this.repository.insert(fault);
      this.deps.ledger.append({
        type: 'fault.set',
        tradeId: fault.scope.orderId ?? fault.id,
        recordedAt: new Date(now).toISOString(),
        payload: { faultId: fault.id, kind: fault.kind, relay: fault.relay, route: fault.route, delayMs: fault.delayMs },
      });
    });
    this.changed();
    return fault;
  }

  onChange(listener: () => Promise<void> | void): void {
    this.changeListeners.push(listener);
  }

  /** Another instance of the store set or cleared a switch: read the switches from the store again. */
  forget(): void {
    this.cache = undefined;
  }

  /** Resolves once what the last set or clear started (a chain halted or resumed) is done. */
  applied(): Promise<unknown> {
    return this.lastChange;
  }

  private changed(): void {
    this.lastChange = Promise.all(this.changeListeners.map((listener) => listener()));
  }

  /** Live switches of one kind (not cleared, spent or expired), oldest first. */
  live(kind: FaultSwitch['kind']): FaultSwitch[] {
    return this.liveAt(this.deps.clock.now()).filter((fault) => fault.kind === kind);
  }

  /**
   * A chain action of a switch, in the ledger under the switch's id: a halt or a restart (counted as its firing;
   * false when the switch was spent already), or the resume that ends a halt.
   */
  /** `chainId` null: the service's own restart (`service.restart`). */
  recordChainAction(fault: FaultSwitch, chainId: number | null, action: 'halt' | 'resume' | 'restart'): boolean {
    const now = this.deps.clock.now();
    this.cache = undefined;
    return this.deps.store.transaction(() => {
      if (action !== 'resume' && !this.repository.fire(fault.id)) return false;
      this.deps.ledger.append({
        type: action === 'resume' ? 'fault.released' : 'fault.fired',
        tradeId: fault.id,
        recordedAt: new Date(now).toISOString(),
        payload: {
          faultId: fault.id,
          kind: fault.kind,
          ...(chainId === null ? {} : { chainId }),
          action,
          ...(action === 'restart' && fault.delayMs !== null ? { downMs: fault.delayMs } : {}),
        },
      });
      return true;
    });
  }

  list(): FaultSwitch[] {
    return this.repository.listed();
  }

  get(id: string): FaultSwitch | undefined {
    const fault = this.repository.get(id);
    return fault?.clearedAt === null ? fault : undefined;
  }

  active(fault: FaultSwitch): boolean {
    return (
      fault.clearedAt === null &&
      (fault.remaining === null || fault.remaining > 0) &&
      (fault.expiresAt === null || fault.expiresAt > this.deps.clock.now())
    );
  }

  /** Clears one switch (or all); relays it already holds stay held until released. */
  clear(id?: string): number {
    const now = this.deps.clock.now();
    this.cache = undefined;
    const cleared = this.deps.store.transaction(() => {
      const cleared = id === undefined ? this.repository.clearAll(now) : Number(this.repository.clear(id, now));
      if (cleared > 0) {
        this.deps.ledger.append({
          type: 'fault.cleared',
          tradeId: id ?? 'faults',
          recordedAt: new Date(now).toISOString(),
          payload: { faultId: id ?? null, cleared },
        });
      }
      return cleared;
    });
    if (cleared > 0) this.changed();
    return cleared;
  }

  /**
   * Decides what happens to a queued relay: once per relay (the decision is stored, so a restart keeps a held relay
   * held), by the oldest live switch that matches it.
   */
  relayGate(relay: RelayRecord): RelayGate {
    // The oracle must not carry a fill that is about to vanish to the origin chain (the escrow would pay for it).
    if (relay.orderId !== undefined && this.reorging.has(relay.orderId) && relayClassOf(relay.kind) === 'attestation') {
      return { action: 'wait', until: this.deps.clock.now() };
    }
    const decided = this.repository.decision(relay.id);
    if (decided !== undefined) return this.gateOf(decided, relay.kind);
    const relayClass = relayClassOf(relay.kind);
    if (relayClass === undefined) return { action: 'send' };
    const now = this.deps.clock.now();
    for (const fault of this.liveAt(now)) {
      const action = relayActionOf(fault.kind);
      if (
        action === undefined ||
        faultRelayClass(fault.kind, fault.relay) !== relayClass ||
        !this.matches(fault.scope, relay.orderId ?? null)
      ) {
        continue;
      }
      this.cache = undefined;
      const decision = this.deps.store.transaction(() => {
        if (!this.repository.fire(fault.id)) return undefined;
        const made = {
          relayId: relay.id,
          faultId: fault.id,
          orderId: relay.orderId ?? null,
          action,
          untilAt: action === 'delay' ? relay.createdAt + (fault.delayMs ?? 0) : null,
          decidedAt: now,
        };
        this.repository.decide(made);
        this.record(relay.orderId ?? null, action, now, {
          faultId: fault.id,
          kind: fault.kind,
          action,
          relayId: relay.id,
          relayKind: relay.kind,
          ...(made.untilAt === null ? {} : { until: new Date(made.untilAt).toISOString() }),
        });
        return { ...made, releasedAt: null };
      });
      if (decision === undefined) continue;
      this.deps.logger.info({ faultId: fault.id, relay: relay.id, kind: relay.kind, action }, 'fault fired on a relay');
      if (decision.action === 'delay') this.wakeAt(decision);
      return this.gateOf(decision, relay.kind);
    }
    return { action: 'send' };
  }

  /** Releases held relays (of one order, or all) and sends them now; returns what was released. */
  release(orderId?: string): RelayDecision[] {
    const now = this.deps.clock.now();
    const released = this.deps.store.transaction(() =>
      this.repository.held(orderId).filter((held) => {
        if (!this.repository.release(held.relayId, now)) return false;
        this.record(held.orderId, 'release', now, { faultId: held.faultId, action: 'release', relayId: held.relayId });
        return true;
      }),
    );
    if (released.length > 0) this.deps.kickRelays();
    return released;
  }

  /**
   * Whether a live switch would act on the deposit of an order with these terms: order intake then records the
   * deposit as a queued relay (for the relayer's gate) instead of sending it while the request waits.
   */
  catchesDeposit(scope: { orderId: string; corridor: string; solverId: string }): boolean {
    return this.liveAt(this.deps.clock.now()).some(
      (fault) =>
        relayActionOf(fault.kind) !== undefined &&
        faultRelayClass(fault.kind, fault.relay) === 'deposit' &&
        scopeMatches(fault.scope, scope),
    );
  }

  /**
   * Before each JSON-RPC call of the settlement engine: a `chain.rpc-slow` switch delays it, a `chain.rpc-drop`
   * switch fails it as a chain that does not answer would. Counted and recorded like every firing.
   */
  async beforeRpc(chainId: number, method: string): Promise<void> {
    const now = this.deps.clock.now();
    for (const fault of this.liveAt(now)) {
      if (!fault.kind.startsWith('chain.rpc-')) continue;
      if ((fault.chainId !== null && fault.chainId !== chainId) || (fault.method !== null && fault.method !== method)) continue;
      this.cache = undefined;
      const fired = this.deps.store.transaction(() => {
        if (!this.repository.fire(fault.id)) return false;
        this.deps.ledger.append({
          type: 'fault.fired',
          tradeId: fault.id,
          recordedAt: new Date(now).toISOString(),
          payload: { faultId: fault.id, kind: fault.kind, chainId, method },
        });
        return true;
      });
      if (!fired) continue;
      if (fault.kind === 'chain.rpc-drop') {
        throw new ChainUnreachableError(`${method}: chain ${chainId} did not answer (dropped by sandbox fault switch ${fault.id})`);
      }
      await new Promise((resolve) => setTimeout(resolve, fault.delayMs ?? 0));
      return;
    }
  }

  /**
   * A reference solver claims one firing of a solver fault before acting it out (on an order or an RFQ): counted
   * and recorded when the switch is live and its scope matches; undefined otherwise (the solver then behaves).
   */
  /** False for an order id no order has (a firing recorded against it would name nothing). */
  hasOrder(orderId: string): boolean {
    return this.deps.orders()?.get(orderId) !== undefined;
  }

  fireForSolver(
    faultId: string,
    target: { solverId: string; orderId?: string | undefined; rfqId?: string | undefined },
  ): FaultSwitch | undefined {
    const now = this.deps.clock.now();
    const fault = this.liveAt(now).find((candidate) => candidate.id === faultId);
    if (fault === undefined || !fault.kind.startsWith('solver.')) return undefined;
    // The solver is the one claiming; the corridor is its order's, when it names one.
    const order = target.orderId === undefined || fault.scope.corridor === null ? undefined : this.deps.orders()?.get(target.orderId);
    if (!scopeMatches(fault.scope, { orderId: target.orderId, corridor: order?.corridor, solverId: target.solverId })) return undefined;
    this.cache = undefined;
    const fired = this.deps.store.transaction(() => {
      if (!this.repository.fire(fault.id)) return false;
      this.record(target.orderId ?? null, 'solver', now, {
        faultId: fault.id,
        kind: fault.kind,
        solverId: target.solverId,
        ...(target.rfqId === undefined ? {} : { rfqId: target.rfqId }),
      });
      return true;
    });
    return fired ? this.repository.get(fault.id) : undefined;
  }

  /**
   * A chain.reorg switch for an order whose fill was just processed (inside the transaction that recorded it): the
   * firing is counted and recorded (`fault.reorg` stage); the caller reorganises the chain after the commit, and the
   * order's oracle legs wait until `reorgDone`.
   */
  fireReorg(
    order: { id: string; corridor: string; solverId: string },
    fill: { chainId: number; blockNumber: number; txHash: string },
  ): FaultSwitch | undefined {
    const fault = this.fireForOrder('chain.reorg', 'reorg', order, (fired) => ({
      chainId: fill.chainId,
      fillBlock: fill.blockNumber,
      fillTxHash: fill.txHash,
      ...(fired.depth === null ? {} : { depth: fired.depth }),
    }));
    if (fault !== undefined) this.reorging.add(order.id);
    return fault;
  }

  /**
   * A lying-oracle switch of `kind` for this order (inside the caller's transaction): counted and recorded (the
   * `fault.oracle` stage) when one is live and matches; the caller then makes the oracle say what it says.
   */
  fireOracleLie(
    kind: 'oracle.wrong-amount' | 'oracle.lie',
    order: { id: string; corridor: string; solverId: string },
    detail: Record<string, string | number>,
  ): FaultSwitch | undefined {
    return this.fireForOrder(kind, 'oracle', order, () => detail);
  }

  /** The oldest live switch of `kind` whose scope matches the order, fired and recorded on the order's timeline. */
  private fireForOrder(
    kind: FaultSwitch['kind'],
    action: 'reorg' | 'oracle',
    order: { id: string; corridor: string; solverId: string },
    detail: (fault: FaultSwitch) => Record<string, string | number>,
  ): FaultSwitch | undefined {
    const now = this.deps.clock.now();
    const fault = this.live(kind).find((candidate) =>
      scopeMatches(candidate.scope, { orderId: order.id, corridor: order.corridor, solverId: order.solverId }),
    );
    if (fault === undefined) return undefined;
    this.cache = undefined;
    const fired = this.deps.store.transaction(() => {
      if (!this.repository.fire(fault.id)) return false;
      this.record(order.id, action, now, { faultId: fault.id, kind: fault.kind, ...detail(fault) });
      return true;
    });
    return fired ? fault : undefined;
  }

  /** The chain.reorg of this order is done (or failed): its oracle legs go out if the order still calls for them. */
  reorgDone(orderId: string): void {
    if (this.reorging.delete(orderId)) this.deps.kickRelays();
  }

  /** After a restart: delayed relays wake at their time again. */
  restore(): void {
    for (const waiting of this.repository.waiting()) this.wakeAt(waiting);
  }

  stop(): void {
    for (const job of this.timers.values()) this.deps.clock.cancel(job);
    this.timers.clear();
  }

  /** The service fault for a request, counted and recorded when it fires; undefined when none matches. */
  requestFault(method: string, path: string): FaultSwitch | undefined {
    if (UNGATED.test(path)) return undefined;
    const now = this.deps.clock.now();
    for (const fault of this.liveAt(now)) {
      if (!fault.kind.startsWith('service.') || fault.route === null || !routeMatches(fault.route, method, path)) continue;
      if (fault.scope.orderId !== null && !path.includes(fault.scope.orderId)) continue;
      this.cache = undefined;
      const fired = this.deps.store.transaction(() => {
        if (!this.repository.fire(fault.id)) return false;
        this.deps.ledger.append({
          type: 'fault.fired',
          tradeId: fault.scope.orderId ?? fault.id,
          recordedAt: new Date(now).toISOString(),
          payload: { faultId: fault.id, kind: fault.kind, method, path },
        });
        return true;
      });
      if (fired) return fault;
    }
    return undefined;
  }

  /** Switches that can still fire at `now`, oldest first (the oldest matching switch wins). */
  private liveAt(now: number): FaultSwitch[] {
    // With several instances another one may have fired or cleared a switch since: while any is set, the store
    // decides (reading it costs nothing next to what a fault does); with none set, a set elsewhere is announced.
    if (this.cache === undefined || (this.deps.shared === true && this.cache.length > 0)) this.cache = this.repository.listed();
    return this.cache.filter(
      (fault) => (fault.remaining === null || fault.remaining > 0) && (fault.expiresAt === null || fault.expiresAt > now),
    );
  }

  private gateOf(decision: RelayDecision, kind: RelayRecord['kind']): RelayGate {
    if (decision.releasedAt !== null) return { action: 'send' };
    switch (decision.action) {
      case 'hold':
        return { action: 'hold', faultId: decision.faultId };
      case 'drop':
        // A dropped deposit rejects its order (nothing moved); an oracle leg or a refund just never happens.
        return { action: 'drop', faultId: decision.faultId, notify: kind === 'open' };
      case 'delay': {
        const until = decision.untilAt ?? 0;
        if (until > this.deps.clock.now()) return { action: 'wait', until };
        this.deps.store.transaction(() => this.repository.release(decision.relayId, this.deps.clock.now()));
        return { action: 'send' };
      }
    }
  }

  private wakeAt(decision: RelayDecision): void {
    if (decision.untilAt === null || this.timers.has(decision.relayId)) return;
    const job = this.deps.clock.schedule(
      decision.untilAt,
      () => {
        this.timers.delete(decision.relayId);
        this.deps.kickRelays();
      },
      { name: `fault delay of relay ${decision.relayId}` },
    );
    this.timers.set(decision.relayId, job);
  }

  /** A relay's order against a scope: its corridor and winning solver are read only when the scope names them. */
  private matches(scope: FaultScope, orderId: string | null): boolean {
    const needsOrder = scope.corridor !== null || scope.solverId !== null;
    const order = needsOrder && orderId !== null ? this.deps.orders()?.get(orderId) : undefined;
    return scopeMatches(scope, { orderId: orderId ?? undefined, corridor: order?.corridor, solverId: order?.solverId });
  }

  /** A `fault.fired` ledger entry and, for an order, the matching stage of its timeline. Inside a transaction. */
  private record(
    orderId: string | null,
    action: RelayAction | 'release' | 'solver' | 'reorg' | 'oracle',
    at: number,
    payload: Record<string, string | number>,
  ): void {
    const entry = this.deps.ledger.append({
      type: action === 'release' ? 'fault.released' : 'fault.fired',
      tradeId: orderId ?? String(payload.faultId),
      recordedAt: new Date(at).toISOString(),
      payload,
    });
    if (orderId === null) return;
    this.deps
      .orders()
      ?.addStage(orderId, { stage: STAGE[action], at, txHash: null, oracleHash: null, chainId: null, ledgerSequence: entry.sequence });
  }
}

/** Every field a scope names must equal the target's; a target that lacks one (unknown) does not match it. */
export function scopeMatches(
  scope: FaultScope,
  target: { orderId?: string | undefined; corridor?: string | undefined; solverId?: string | undefined },
): boolean {
  return (
    (scope.orderId === null || scope.orderId === target.orderId) &&
    (scope.corridor === null || scope.corridor === target.corridor) &&
    (scope.solverId === null || scope.solverId === target.solverId)
  );
}

/** `POST /api/v1/quotes` matches that method and path; `/api/v1/orders` matches every method, and the paths below it. */
export function routeMatches(route: string | null, method: string, path: string): boolean {
  if (route === null) return false;
  const [first, second] = route.trim().split(/\s+/);
  const wantedMethod = second === undefined ? undefined : first!.toUpperCase();
  const prefix = (second ?? first ?? '').replace(/\/+$/, '');
  if (wantedMethod !== undefined && wantedMethod !== method.toUpperCase()) return false;
  return path === prefix || path.startsWith(`${prefix}/`) || prefix === '';
}
