import type { Logger } from 'pino';
import type { InstanceBus } from '../cluster/instance-bus.js';
import type { SqlStatement as Statement, TransactionOptions } from '../store/sql.js';
import type { MigrationSet } from '../store/migrations.js';
import type { Store } from '../store/store.js';
import { newId } from '../store/ids.js';
import { OutboxTail } from './outbox-tail.js';

/**
 * The outbox: every event the service publishes is first a row written in the same transaction as the state
 * change that caused it. WebSocket fan-out and webhook delivery read from here, so a crash between the change
 * and the delivery loses nothing, and an event keeps its `evt_` id across redeliveries.
 */
export const outboxMigrations: MigrationSet = {
  module: 'events',
  migrations: [
    {
      name: '001_events',
      up: (db) =>
        db.exec(`
          CREATE TABLE events (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            workspace_id TEXT,
            type TEXT NOT NULL,
            generation TEXT NOT NULL CHECK (generation IN ('A', 'B')),
            order_id TEXT,
            rfq_id TEXT,
            audience TEXT NOT NULL DEFAULT 'workspace',
            envelope TEXT NOT NULL,
            created_at INTEGER NOT NULL
          );
          CREATE INDEX events_by_workspace ON events (workspace_id, seq);
          CREATE INDEX events_by_order ON events (order_id, seq);
        `),
    },
  ],
};

/** Reference A events (`order.*`, `compliance.event`, ...) or Reference B events (`rfq.*`, `settlement.*`, ...). */
export type EventGeneration = 'A' | 'B';

/** `{type, id, timestamp, ...payload}`: the envelope of the spec, exactly as delivered. */
export interface EventEnvelope {
  type: string;
  id: string;
  timestamp: string;
  [field: string]: unknown;
}

export interface StoredEvent {
  seq: number;
  workspaceId: string | null;
  generation: EventGeneration;
  orderId: string | null;
  rfqId: string | null;
  /** `workspace` (all subscribers of the workspace) or `taker` (only the taker's own consumers, e.g. quote.received). */
  audience: string;
  createdAt: number;
  envelope: EventEnvelope;
  /**
   * The envelope as JSON text, exactly as the row holds it: serialised once at append, and what WebSocket
   * subscribers and webhook messages are sent (the envelope is not changed after append).
   */
  json: string;
}

export interface NewEvent {
  /** The event's `evt_` id, when a row written before it must name it; a new one otherwise. */
  id?: string;
  workspaceId: string | null;
  type: string;
  generation: EventGeneration;
  orderId?: string;
  rfqId?: string;
  audience?: string;
  /** Payload fields beside type/id/timestamp, e.g. `{ order: {...} }`. */
  data: Record<string, unknown>;
  /** Clock time in ms. */
  at: number;
}

interface EventRow {
  seq: number;
  id: string;
  workspace_id: string | null;
  type: string;
  generation: EventGeneration;
  order_id: string | null;
  rfq_id: string | null;
  audience: string;
  envelope: string;
  created_at: number;
}

function fromRow(row: EventRow): StoredEvent {
  return {
    seq: row.seq,
    workspaceId: row.workspace_id,
    generation: row.generation,
    orderId: row.order_id,
    rfqId: row.rfq_id,
    audience: row.audience,
    createdAt: row.created_at,
    envelope: JSON.parse(row.envelope) as EventEnvelope,
    json: row.envelope,
  };
}

export type CommittedListener = (event: StoredEvent) => void;

export class OutboxRepository {
  private readonly listeners = new Set<CommittedListener>();
  private pending: StoredEvent[] = [];
  private insertStatement: Statement | undefined;
  /** Set while other instances may share the store: local commits go through it, theirs come from it. */
  private tail: { tail: OutboxTail<StoredEvent>; holders: number } | undefined;

  constructor(private readonly store: Store) {}

  /**
   * Writes an event. Call it inside the `store.transaction` of the change it reports; subscribers hear of it
   * only after `flush()` (called by the owner of the transaction once it committed).
   */
  append(event: NewEvent): StoredEvent {
    const envelope: EventEnvelope = {
      type: event.type,
      id: event.id ?? newId('evt'),
      timestamp: new Date(event.at).toISOString(),
      ...event.data,
    };
    this.insertStatement ??= this.store.db.prepare(
      'INSERT INTO events (id, workspace_id, type, generation, order_id, rfq_id, audience, envelope, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    // Seqs are given out at insert; under the write lock, commit order is seq order, which the outbox tail relies on.
    this.store.holdWriteLock();
    const json = JSON.stringify(envelope);
    const result = this.insertStatement.run(
      envelope.id,
      event.workspaceId,
      event.type,
      event.generation,
      event.orderId ?? null,
      event.rfqId ?? null,
      event.audience ?? 'workspace',
      json,
      event.at,
    );
    const stored: StoredEvent = {
      seq: Number(result.lastInsertRowid),
      workspaceId: event.workspaceId,
      generation: event.generation,
      orderId: event.orderId ?? null,
      rfqId: event.rfqId ?? null,
      audience: event.audience ?? 'workspace',
      createdAt: event.at,
      envelope,
      json,
    };
    this.pending.push(stored);
    return stored;
  }

  /**
   * Runs `fn` in a store transaction and, once it committed, tells subscribers about the events it appended.
   * A rolled-back transaction publishes nothing. `options` as for `Store.transaction`.
   */
  commit<T>(fn: () => T, options?: TransactionOptions): T {
    const before = this.pending.length;
    let result: T;
    try {
      result = this.store.transaction(fn, options);
    } catch (error) {
      this.pending.length = before;
      throw error;
    }
    this.flush();
    return result;
  }

  /** Publishes events appended by committed transactions. */
  flush(): void {
    const ready = this.pending;
    this.pending = [];
    if (this.tail !== undefined) this.tail.tail.committedHere(ready);
    else for (const event of ready) for (const listener of this.listeners) listener(event);
  }

  /**
   * `listener` hears every committed event once, in seq order: this process's after their commit and, while
   * `followInstances` holds, other instances' too.
   */
  onCommitted(listener: CommittedListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * On a store other instances share (a `shared` bus), hands their committed events to this process's listeners
   * and tells them of ours (see OutboxTail). Each module that listens holds it while it runs; the tail runs while
   * anyone holds it. A lone instance (SoloBus) changes nothing.
   */
  followInstances(bus: InstanceBus, options: { logger: Logger; pollMs?: number }): () => void {
    if (!bus.shared) return () => undefined;
    if (this.tail === undefined) {
      const tail = new OutboxTail<StoredEvent>({
        bus,
        log: this,
        listeners: () => this.listeners,
        logger: options.logger,
        ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
      });
      tail.start();
      this.tail = { tail, holders: 0 };
    }
    const held = this.tail;
    held.holders += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      held.holders -= 1;
      if (held.holders > 0 || this.tail !== held) return;
      held.tail.stop();
      this.tail = undefined;
    };
  }

  /** Events after `seq` in order (catch-up after a restart or a reconnect). */
  after(seq: number, limit = 500, workspaceId?: string): StoredEvent[] {
    const rows = workspaceId
      ? (this.store.db
          .prepare('SELECT * FROM events WHERE seq > ? AND workspace_id = ? ORDER BY seq LIMIT ?')
          .all(seq, workspaceId, limit) as EventRow[])
      : (this.store.db.prepare('SELECT * FROM events WHERE seq > ? ORDER BY seq LIMIT ?').all(seq, limit) as EventRow[]);
    return rows.map(fromRow);
  }

  byId(id: string): StoredEvent | undefined {
    const row = this.store.db.prepare('SELECT * FROM events WHERE id = ?').get(id) as EventRow | undefined;
    return row ? fromRow(row) : undefined;
  }

  forOrder(orderId: string): StoredEvent[] {
    return (this.store.db.prepare('SELECT * FROM events WHERE order_id = ? ORDER BY seq').all(orderId) as EventRow[]).map(fromRow);
  }

  /** The workspace's last `limit` events, oldest first (the WebSocket replay window). */
  recentForWorkspace(workspaceId: string, limit: number): StoredEvent[] {
    const rows = this.store.db
      .prepare('SELECT * FROM events WHERE workspace_id = ? ORDER BY seq DESC LIMIT ?')
      .all(workspaceId, limit) as EventRow[];
    return rows.reverse().map(fromRow);
  }

  /** How many of the workspace's events follow `seq`. */
  countAfter(workspaceId: string, seq: number): number {
    return (
      this.store.db.prepare('SELECT COUNT(*) AS n FROM events WHERE workspace_id = ? AND seq > ?').get(workspaceId, seq) as { n: number }
    ).n;
  }

  /** The workspace's events created in [fromMs, toMs] (clock ms), oldest first. */
  forWorkspaceBetween(workspaceId: string, fromMs: number, toMs: number, limit: number): StoredEvent[] {
    const rows = this.store.db
      .prepare('SELECT * FROM events WHERE workspace_id = ? AND created_at >= ? AND created_at <= ? ORDER BY seq LIMIT ?')
      .all(workspaceId, fromMs, toMs, limit) as EventRow[];
    return rows.map(fromRow);
  }

  lastSeq(): number {
    return (this.store.db.prepare('SELECT COALESCE(MAX(seq), 0) AS s FROM events').get() as { s: number }).s;
  }
}
