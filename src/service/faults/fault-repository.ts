import type { Store } from '../store/store.js';
import type { FaultKind, RelayAction, RelayClass } from './fault-kinds.js';

export interface FaultScope {
  orderId: string | null;
  corridor: string | null;
  solverId: string | null;
}

export interface FaultSwitch {
  id: string;
  kind: FaultKind;
  relay: RelayClass | null;
  delayMs: number | null;
  route: string | null;
  /** Chain faults: the chain (null: every chain) and the JSON-RPC method (null: every method). */
  chainId: number | null;
  method: string | null;
  /** chain.reorg: blocks replaced below the head (null: down to the fill's block). */
  depth: number | null;
  scope: FaultScope;
  /** Firings left; null = unlimited. */
  remaining: number | null;
  /** Clock time the switch turns itself off; null = until cleared. */
  expiresAt: number | null;
  fired: number;
  createdAt: number;
  clearedAt: number | null;
}

export interface RelayDecision {
  relayId: number;
  faultId: string;
  orderId: string | null;
  action: RelayAction;
  untilAt: number | null;
  decidedAt: number;
  releasedAt: number | null;
}

interface SwitchRow {
  id: string;
  kind: FaultKind;
  relay: RelayClass | null;
  delay_ms: number | null;
  route: string | null;
  chain_id: number | null;
  rpc_method: string | null;
  depth: number | null;
  scope_order_id: string | null;
  scope_corridor: string | null;
  scope_solver_id: string | null;
  remaining: number | null;
  expires_at: number | null;
  fired: number;
  created_at: number;
  cleared_at: number | null;
}

interface DecisionRow {
  relay_id: number;
  fault_id: string;
  order_id: string | null;
  action: RelayAction;
  until_at: number | null;
  decided_at: number;
  released_at: number | null;
}

function fromRow(row: SwitchRow): FaultSwitch {
  return {
    id: row.id,
    kind: row.kind,
    relay: row.relay,
    delayMs: row.delay_ms,
    route: row.route,
    chainId: row.chain_id,
    method: row.rpc_method,
    depth: row.depth ?? null,
    scope: { orderId: row.scope_order_id, corridor: row.scope_corridor, solverId: row.scope_solver_id },
    remaining: row.remaining,
    expiresAt: row.expires_at,
    fired: row.fired,
    createdAt: row.created_at,
    clearedAt: row.cleared_at,
  };
}

function decisionOf(row: DecisionRow): RelayDecision {
  return {
    relayId: row.relay_id,
    faultId: row.fault_id,
    orderId: row.order_id,
    action: row.action,
    untilAt: row.until_at,
    decidedAt: row.decided_at,
    releasedAt: row.released_at,
  };
}

export class FaultRepository {
  constructor(private readonly store: Store) {}

  insert(fault: FaultSwitch): void {
    this.store.db
      .prepare(
        `INSERT INTO fault_switches (id, kind, relay, delay_ms, route, chain_id, rpc_method, depth, scope_order_id, scope_corridor,
           scope_solver_id, remaining, expires_at, fired, created_at, cleared_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, NULL)`,
      )
      .run(
        fault.id,
        fault.kind,
        fault.relay,
        fault.delayMs,
        fault.route,
        fault.chainId,
        fault.method,
        fault.depth,
        fault.scope.orderId,
        fault.scope.corridor,
        fault.scope.solverId,
        fault.remaining,
        fault.expiresAt,
        fault.createdAt,
      );
  }

  get(id: string): FaultSwitch | undefined {
    const row = this.store.db.prepare('SELECT * FROM fault_switches WHERE id = ?').get(id) as SwitchRow | undefined;
    return row === undefined ? undefined : fromRow(row);
  }

  /** Switches not cleared, oldest first (a spent or expired one is listed until cleared, marked inactive). */
  listed(): FaultSwitch[] {
    return (
      this.store.db.prepare('SELECT * FROM fault_switches WHERE cleared_at IS NULL ORDER BY created_at, id').all() as SwitchRow[]
    ).map(fromRow);
  }

  /** Switches that can still fire at `now`, oldest first: the oldest matching switch wins. */
  live(now: number): FaultSwitch[] {
    return (
      this.store.db
        .prepare(
          `SELECT * FROM fault_switches WHERE cleared_at IS NULL AND (remaining IS NULL OR remaining > 0)
             AND (expires_at IS NULL OR expires_at > ?) ORDER BY created_at, id`,
        )
        .all(now) as SwitchRow[]
    ).map(fromRow);
  }

  /** Counts one firing; false when the switch was spent meanwhile. */
  fire(id: string): boolean {
    return (
      this.store.db
        .prepare(
          `UPDATE fault_switches SET fired = fired + 1, remaining = CASE WHEN remaining IS NULL THEN NULL ELSE remaining - 1 END
             WHERE id = ? AND cleared_at IS NULL AND (remaining IS NULL OR remaining > 0)`,
        )
        .run(id).changes > 0
    );
  }

  clear(id: string, now: number): boolean {
    return this.store.db.prepare('UPDATE fault_switches SET cleared_at = ? WHERE id = ? AND cleared_at IS NULL').run(now, id).changes > 0;
  }

  clearAll(now: number): number {
    return this.store.db.prepare('UPDATE fault_switches SET cleared_at = ? WHERE cleared_at IS NULL').run(now).changes;
  }

  decision(relayId: number): RelayDecision | undefined {
    const row = this.store.db.prepare('SELECT * FROM fault_relays WHERE relay_id = ?').get(relayId) as DecisionRow | undefined;
    return row === undefined ? undefined : decisionOf(row);
  }

  decide(decision: Omit<RelayDecision, 'releasedAt'>): void {
    this.store.db
      .prepare(
        'INSERT INTO fault_relays (relay_id, fault_id, order_id, action, until_at, decided_at, released_at) VALUES (?, ?, ?, ?, ?, ?, NULL)',
      )
      .run(decision.relayId, decision.faultId, decision.orderId, decision.action, decision.untilAt, decision.decidedAt);
  }

  /** Held relays not yet released, of one order or of all. */
  held(orderId?: string): RelayDecision[] {
    const rows =
      orderId === undefined
        ? this.store.db.prepare("SELECT * FROM fault_relays WHERE action = 'hold' AND released_at IS NULL ORDER BY relay_id").all()
        : this.store.db
            .prepare("SELECT * FROM fault_relays WHERE action = 'hold' AND released_at IS NULL AND order_id = ? ORDER BY relay_id")
            .all(orderId);
    return (rows as DecisionRow[]).map(decisionOf);
  }

  /** Delayed relays still waiting, for re-scheduling after a restart. */
  waiting(): RelayDecision[] {
    return (
      this.store.db
        .prepare("SELECT * FROM fault_relays WHERE action = 'delay' AND released_at IS NULL ORDER BY relay_id")
        .all() as DecisionRow[]
    ).map(decisionOf);
  }

  release(relayId: number, now: number): boolean {
    return (
      this.store.db.prepare('UPDATE fault_relays SET released_at = ? WHERE relay_id = ? AND released_at IS NULL').run(now, relayId)
        .changes > 0
    );
  }
}
