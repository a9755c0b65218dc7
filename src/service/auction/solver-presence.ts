/**
 * Which solver stream connections each service instance holds, for several instances on one Postgres store: a quote
 * request received by one instance invites the solvers connected to the others too, and a message to a solver is
 * routed to the instance holding its connection.
 *
 * Rows are written by the instance that holds the connection and removed when it closes. An instance that dies
 * cannot remove its rows, so every read keeps only rows of live instances: those whose instance bus session is
 * still in `pg_stat_activity` (the bus connects with `application_name = 'settlement-sandbox bus <instanceId>'`,
 * src/service/cluster/instance-bus.ts). Postgres ends a dead process's sessions, so its solvers stop counting
 * without a heartbeat of ours; `pruneDead` removes the rows. Postgres only: never built on SQLite (one instance).
 */
import { instanceAlive } from '../cluster/instance-bus.js';
import type { Store } from '../store/store.js';

/** `p` is a solver_presence row of a live instance. */
const LIVE = instanceAlive('p.instance_id');

/** A connection held by another instance that receives RFQs on `rfqCorridors`. */
export interface RemoteListener {
  instanceId: string;
  solverId: string;
  rfqCorridors: string[];
}

export class SolverPresenceRepository {
  private readonly _insert;
  private readonly _update;
  private readonly _remove;
  private readonly _removeInstance;
  private readonly _listenersElsewhere;
  private readonly _connectionsElsewhere;
  private readonly _pruneDead;

  constructor(store: Store) {
    const db = store.db;
    this._insert = db.prepare(
      'INSERT INTO solver_presence (instance_id, connection_id, solver_id, rfq_corridors, connected_at) VALUES (?, ?, ?, ?, ?)',
    );
    this._update = db.prepare('UPDATE solver_presence SET rfq_corridors = ? WHERE instance_id = ? AND connection_id = ?');
    this._remove = db.prepare('DELETE FROM solver_presence WHERE instance_id = ? AND connection_id = ?');
    this._removeInstance = db.prepare('DELETE FROM solver_presence WHERE instance_id = ?');
    this._listenersElsewhere = db.prepare(
      `SELECT p.instance_id, p.solver_id, p.rfq_corridors FROM solver_presence p
        WHERE p.instance_id <> ? AND p.rfq_corridors <> '[]' AND ${LIVE}`,
    );
    this._connectionsElsewhere = db.prepare(
      `SELECT COUNT(*) AS n FROM solver_presence p WHERE p.solver_id = ? AND p.instance_id <> ? AND ${LIVE}`,
    );
    this._pruneDead = db.prepare(`DELETE FROM solver_presence WHERE instance_id IN (
        SELECT p.instance_id FROM solver_presence p WHERE NOT ${LIVE})`);
  }

  add(instanceId: string, connectionId: string, solverId: string, rfqCorridors: readonly string[], at: number): void {
    this._insert.run(instanceId, connectionId, solverId, JSON.stringify(rfqCorridors), at);
  }

  /** The corridors a connection receives RFQs on changed (subscribe, unsubscribe). */
  update(instanceId: string, connectionId: string, rfqCorridors: readonly string[]): void {
    this._update.run(JSON.stringify(rfqCorridors), instanceId, connectionId);
  }

  remove(instanceId: string, connectionId: string): void {
    this._remove.run(instanceId, connectionId);
  }

  /** Every row of an instance (it stops). */
  removeInstance(instanceId: string): void {
    this._removeInstance.run(instanceId);
  }

  /** Connections of live instances other than `instanceId` that receive RFQs. */
  listenersElsewhere(instanceId: string): RemoteListener[] {
    const rows = this._listenersElsewhere.all(instanceId) as Array<{ instance_id: string; solver_id: string; rfq_corridors: string }>;
    return rows.map((row) => ({
      instanceId: row.instance_id,
      solverId: row.solver_id,
      rfqCorridors: JSON.parse(row.rfq_corridors) as string[],
    }));
  }

  /** How many connections live instances other than `instanceId` hold for a solver. */
  connectionsElsewhere(solverId: string, instanceId: string): number {
    const row = this._connectionsElsewhere.get(solverId, instanceId) as { n: number | bigint | string } | undefined;
    return Number(row?.n ?? 0);
  }

  /** Removes the rows of instances that are gone; returns how many. */
  pruneDead(): number {
    return Number(this._pruneDead.run().changes);
  }
}
