import type pg from 'pg';
import { loadPg } from '../store/postgres/pg-driver.js';
import type { Logger } from 'pino';
import { STORE_LOCK } from '../store/postgres/database.js';
import type { PostgresLocation } from '../store/store.js';

/**
 * Which instance runs the singleton work (relaying, chain watching, the refund keeper, webhook dispatch, clock jobs):
 * the one holding a session-level Postgres advisory lock, keyed by the store's schema. Postgres releases it when the
 * holder's connection ends, which is also what happens when its process dies, so another instance's next try (every
 * `pollMs`) takes it over. No heartbeats or timestamps of our own decide anything.
 *
 * A holder that loses its connection cannot know whether someone else holds the lock by now, so losing it is final:
 * `onLost` runs once and the instance must stop its singleton work (a cluster worker exits and is replaced).
 */
export const LEASE_KEY = STORE_LOCK.writes + 1;

export interface SingletonLeaseOptions {
  /** How often a waiting instance tries the lock, and how often the holder checks its connection. */
  pollMs?: number;
  logger?: Logger | undefined;
  /** Shown in `pg_stat_activity.application_name`, so an operator sees which instance holds it. */
  instanceId?: string;
}

export class SingletonLease {
  private client: pg.Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private state: 'idle' | 'waiting' | 'held' | 'lost' | 'stopped' = 'idle';
  private readonly acquiredListeners = new Set<() => void>();
  private readonly lostListeners = new Set<(reason: string) => void>();
  private readonly pollMs: number;
  private busy = false;

  constructor(
    private readonly location: PostgresLocation,
    private readonly options: SingletonLeaseOptions = {},
  ) {
    this.pollMs = options.pollMs ?? 1_000;
  }

  get held(): boolean {
    return this.state === 'held';
  }

  onAcquired(listener: () => void): () => void {
    this.acquiredListeners.add(listener);
    return () => this.acquiredListeners.delete(listener);
  }

  onLost(listener: (reason: string) => void): () => void {
    this.lostListeners.add(listener);
    return () => this.lostListeners.delete(listener);
  }

  /** Connects and tries the lock at once; resolves after that first try (check `held`). */
  async start(): Promise<void> {
    if (this.state !== 'idle') return;
    const { Client } = await loadPg();
    const client = new Client({
      connectionString: this.location.url,
      application_name: `settlement-sandbox lease ${this.options.instanceId ?? ''}`.trim(),
    });
    client.on('error', (error) => this.lose(`lease connection failed: ${error.message}`));
    client.on('end', () => this.lose('lease connection ended'));
    await client.connect();
    if (this.location.schema !== undefined) await client.query(`SET search_path TO "${this.location.schema}"`);
    this.client = client;
    this.state = 'waiting';
    await this.tick();
    this.timer = setInterval(() => void this.tick(), this.pollMs);
    this.timer.unref();
  }

  /** Gives the lock up (ending the connection releases it) and stops trying. */
  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    this.state = 'stopped';
    if (this.timer !== undefined) clearInterval(this.timer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async tick(): Promise<void> {
    const client = this.client;
    if (client === undefined || this.busy) return;
    this.busy = true;
    try {
      if (this.state === 'waiting') {
        const result = await client.query<{ ok: boolean }>(
          `SELECT pg_try_advisory_lock(${STORE_LOCK.namespace}, hashtext(current_schema()) # ${LEASE_KEY}) AS ok`,
        );
        if (result.rows[0]?.ok === true && this.state === 'waiting') {
          this.state = 'held';
          this.options.logger?.info({ instance: this.options.instanceId }, 'this instance now runs the singleton work');
          for (const listener of this.acquiredListeners) listener();
        }
      } else if (this.state === 'held') {
        // The lock lives as long as this session does; a query that fails means the session may be gone.
        await client.query('SELECT 1');
      }
    } catch (error) {
      this.lose(`lease check failed: ${(error as Error).message}`);
    } finally {
      this.busy = false;
    }
  }

  private lose(reason: string): void {
    if (this.state === 'stopped' || this.state === 'lost') return;
    const wasHeld = this.state === 'held';
    this.state = 'lost';
    if (this.timer !== undefined) clearInterval(this.timer);
    const client = this.client;
    this.client = undefined;
    client?.end().catch(() => undefined);
    this.options.logger?.warn({ instance: this.options.instanceId, reason, wasHeld }, 'singleton lease lost');
    for (const listener of this.lostListeners) listener(reason);
  }
}
