import { randomBytes } from 'node:crypto';
import { instanceAlive } from '../cluster/instance-bus.js';
import type { MigrationSet } from '../store/migrations.js';
import type { Store } from '../store/store.js';

/**
 * Caps concurrent WebSocket connections per credential (the spec's 5 per API key). `acquire` returns a release
 * function, or undefined when the credential is at its cap; releasing twice is harmless. With several instances on
 * one store the cap holds across them: see `SharedConnectionCount`.
 */
export class ConnectionLimit {
  private readonly open = new Map<string, number>();

  constructor(
    readonly max: number,
    private readonly shared?: SharedConnectionCount,
  ) {}

  acquire(key: string): (() => void) | undefined {
    const current = this.open.get(key) ?? 0;
    if (current >= this.max) return undefined;
    const row = this.shared?.tryAdd(key, this.max);
    if (this.shared !== undefined && row === undefined) return undefined;
    this.open.set(key, current + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (row !== undefined) this.shared?.remove(row);
      const left = (this.open.get(key) ?? 1) - 1;
      if (left <= 0) this.open.delete(key);
      else this.open.set(key, left);
    };
  }

  count(key: string): number {
    return this.open.get(key) ?? 0;
  }
}

export const wsConnectionMigrations: MigrationSet = {
  module: 'ws',
  migrations: [
    {
      name: '001_ws_connections',
      up: (db) =>
        db.exec(`
          CREATE TABLE ws_connections (
            id TEXT PRIMARY KEY,
            instance_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            limit_key TEXT NOT NULL,
            opened_at INTEGER NOT NULL
          );
          CREATE INDEX ws_connections_by_key ON ws_connections (kind, limit_key);
        `),
    },
  ],
};

/** `c` is a ws_connections row of a live instance: its bus session is still in `pg_stat_activity`. */
const LIVE = instanceAlive('c.instance_id');

/**
 * The open connections of every instance of a Postgres store, one row each, so a credential's cap counts them all
 * (connections are spread over the instances). A dead instance cannot remove its rows: only rows of live instances
 * count (Postgres ends a dead process's sessions), and `pruneDead` deletes the rest. Postgres only.
 */
export class SharedConnectionCount {
  constructor(
    private readonly store: Store,
    private readonly instanceId: string,
    /** `taker` or `solver`: each stream has its own cap. */
    private readonly kind: string,
    private readonly now: () => number,
  ) {}

  /** Records one more connection of `key` unless live instances already hold `max`; the row's id, or undefined. */
  tryAdd(key: string, max: number): string | undefined {
    return this.store.transaction(() => {
      const held = this.store.db
        .prepare(`SELECT COUNT(*) AS n FROM ws_connections c WHERE c.kind = ? AND c.limit_key = ? AND ${LIVE}`)
        .get(this.kind, key) as { n: number };
      if (held.n >= max) return undefined;
      const id = `wsc_${randomBytes(8).toString('hex')}`;
      this.store.db
        .prepare('INSERT INTO ws_connections (id, instance_id, kind, limit_key, opened_at) VALUES (?, ?, ?, ?, ?)')
        .run(id, this.instanceId, this.kind, key, this.now());
      return id;
    });
  }

  remove(id: string): void {
    if (!this.store.open) return;
    this.store.transaction(() => this.store.db.prepare('DELETE FROM ws_connections WHERE id = ?').run(id));
  }

  /** Rows of instances that are gone (and, at start, this instance's own from an earlier life: ids are per process). */
  pruneDead(): void {
    this.store.transaction(() => this.store.db.prepare(`DELETE FROM ws_connections c WHERE NOT ${LIVE}`).run());
  }
}
