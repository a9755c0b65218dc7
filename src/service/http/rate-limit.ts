import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type pg from 'pg';
import { loadPg } from '../store/postgres/pg-driver.js';
import type { Logger } from 'pino';
import { BurstyRateLimiter, type RateLimiterAbstract, RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { RealClock, type ScheduledJob } from '../../clock/index.js';
import { RateLimitError } from '../errors/api-errors.js';
import type { PostgresLocation } from '../store/store.js';
import type { RateLimitSettings } from '../resolved-config.js';

// The settings are configuration (the kernel's config types); the limiter that applies them is this adapter.
export type { RateLimitSettings };

export interface RateDecision {
  allowed: boolean;
  /** The burst capacity: what `X-RateLimit-Limit` reports. */
  limit: number;
  remaining: number;
  /** Epoch ms when the per-second window renews. */
  resetAt: number;
  /** On a refusal: ms until a retry can succeed. */
  retryAfterMs: number;
}

/** The table, in the store's schema, that every instance of one Postgres store counts in (rate-limiter-flexible's layout). */
export const RATE_LIMIT_TABLE = 'rate_limit_buckets';
/** A limiter query that takes longer is given up: the request goes on with this instance's own count. */
const SHARED_QUERY_TIMEOUT_MS = 1_000;
/**
 * How long a request may wait for a connection of the pool, which includes opening one. Longer than a query: a
 * burst of requests queues for the pool's few connections, and a busy pool must not count as Postgres being down
 * (falling back to per-instance counts under load would hand out a budget per instance exactly when it matters).
 */
const SHARED_CONNECTION_WAIT_MS = 5_000;
/** After a failed query, requests count per instance for this long before the table is tried again. */
const SHARED_RETRY_MS = 2_000;
/** Rows of keys idle for an hour are removed this often. */
const SWEEP_INTERVAL_MS = 5 * 60_000;

type CounterOptions = { keyPrefix: string; points: number; duration: number };

/**
 * Where the counts live. With the store on SQLite this process is the only instance, so they live in its memory.
 * With the store on Postgres they live in one table of the store's schema, so a credential has one budget however
 * many instances serve it.
 *
 * Rate limiting protects the service; it is not a business decision. When Postgres does not answer a limiter query
 * within a second, the request is not failed: it is counted in this instance's memory instead (one log line when
 * that starts, one when the table answers again). Meanwhile a credential gets a budget per instance.
 */
export class RateLimitBuckets {
  private readonly wall = new RealClock();
  private down = false;
  private retryAt = 0;
  private sweepJob: ScheduledJob | undefined;

  private constructor(
    private readonly pool: pg.Pool | undefined,
    private readonly schema: string | undefined,
    private readonly logger: Logger | undefined,
  ) {}

  /** Counts in this process's memory. */
  static memory(): RateLimitBuckets {
    return new RateLimitBuckets(undefined, undefined, undefined);
  }

  /** Memory for a SQLite store; for a Postgres store its table, created (when missing) before this resolves. */
  static async open(location: PostgresLocation | undefined, logger: Logger): Promise<RateLimitBuckets> {
    if (location === undefined) return RateLimitBuckets.memory();
    const { Pool } = await loadPg();
    const pool = new Pool({
      connectionString: location.url,
      application_name: 'settlement-sandbox rate limits',
      max: 8,
      // An idle pool never keeps the process alive (a start that fails after open() and before stop exists).
      allowExitOnIdle: true,
      connectionTimeoutMillis: SHARED_CONNECTION_WAIT_MS,
      // The server gives up first, so a statement waiting on a lock is not left to count after the request went on.
      statement_timeout: SHARED_QUERY_TIMEOUT_MS,
      query_timeout: SHARED_QUERY_TIMEOUT_MS + 500,
    });
    // An idle connection the server ends (a restart, pg_terminate_backend) must not end the process: the next
    // query opens another.
    pool.on('error', (error) => {
      // Also after the service stopped: its log file may be closed by then (pino throws "SonicBoom destroyed").
      try {
        logger.warn({ err: error }, 'rate limits: an idle Postgres connection failed');
      } catch {}
    });
    const buckets = new RateLimitBuckets(pool, location.schema, logger);
    try {
      await buckets.createTable();
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
    buckets.scheduleSweep();
    return buckets;
  }

  /** True when the counts are shared with the other instances of the store. */
  get shared(): boolean {
    return this.pool !== undefined;
  }

  /** False while the shared table is being given a rest after a failure. */
  get reachable(): boolean {
    return this.pool !== undefined && this.wall.now() >= this.retryAt;
  }

  /** One counter of `points` per `duration` seconds, per key. */
  counter(options: CounterOptions): RateLimiterAbstract {
    if (this.pool === undefined) return new RateLimiterMemory(options);
    return new RateLimiterPostgres({
      ...options,
      storeClient: this.pool,
      storeType: 'pool',
      tableName: RATE_LIMIT_TABLE,
      ...(this.schema === undefined ? {} : { schemaName: this.schema }),
      // Created by open(), awaited; the sweep is ours, so that close() stops it.
      tableCreated: true,
      clearExpiredByTimeout: false,
    });
  }

  failed(error: unknown): void {
    this.retryAt = this.wall.now() + SHARED_RETRY_MS;
    if (this.down) return;
    this.down = true;
    this.logger?.warn({ err: error }, 'rate limits: Postgres did not answer the limiter; each instance counts on its own until it does');
  }

  answered(): void {
    if (!this.down) return;
    this.down = false;
    this.retryAt = 0;
    this.logger?.info('rate limits: Postgres answers the limiter again; one budget across instances');
  }

  async close(): Promise<void> {
    if (this.sweepJob !== undefined) this.wall.cancel(this.sweepJob);
    this.wall.stop();
    await this.pool?.end().catch(() => undefined);
  }

  private get table(): string {
    return this.schema === undefined ? `"${RATE_LIMIT_TABLE}"` : `"${this.schema}"."${RATE_LIMIT_TABLE}"`;
  }

  private async createTable(): Promise<void> {
    try {
      await this.pool!.query(
        `CREATE TABLE IF NOT EXISTS ${this.table} (key varchar(255) PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)`,
      );
    } catch (error) {
      // Two instances starting at once: CREATE TABLE IF NOT EXISTS is not safe against a concurrent twin, and
      // the loser's error (a duplicate type or table) means the table is there.
      const code = (error as { code?: string }).code;
      if (code !== '23505' && code !== '42P07') throw error;
    }
  }

  private scheduleSweep(): void {
    this.sweepJob = this.wall.schedule(
      this.wall.now() + SWEEP_INTERVAL_MS,
      async () => {
        await this.pool!.query(`DELETE FROM ${this.table} WHERE expire < $1`, [this.wall.now() - 3_600_000]).catch(() => undefined);
        this.scheduleSweep();
      },
      { name: 'rate-limits.sweep', coalesce: true },
    );
  }
}

/** The rate counter and, when the burst exceeds the rate, the burst counter on top of it. */
interface Counters {
  limiter: BurstyRateLimiter | RateLimiterAbstract;
  burst: RateLimiterAbstract | undefined;
}

function countersFor(settings: RateLimitSettings, name: string, counter: (options: CounterOptions) => RateLimiterAbstract): Counters {
  const rate = counter({ keyPrefix: `${name}:rate`, points: settings.perSecond, duration: 1 });
  const extra = settings.burst - settings.perSecond;
  if (extra === 0) return { limiter: rate, burst: undefined };
  const burst = counter({
    keyPrefix: `${name}:burst`,
    points: extra,
    duration: Math.max(1, Math.ceil(settings.burst / settings.perSecond)),
  });
  return { limiter: new BurstyRateLimiter(rate, burst), burst };
}

/**
 * A burst allowance on top of a per-second rate (rate-limiter-flexible's BurstyRateLimiter): up to
 * `burst` requests at once, then `perSecond` in each following second; the burst allowance refills over
 * `burst / perSecond` seconds. It meters real load, so it runs on wall time even in the sandbox: moving
 * the business clock must not hand out or take away capacity. Instances on one Postgres store share the
 * counts (see RateLimitBuckets), so their hosts' wall clocks must agree.
 */
export class CredentialRateLimiter {
  /** In the store's table, when the store is shared. */
  private readonly shared: Counters | undefined;
  /** In this process's memory: the only counts on SQLite, the fallback while Postgres does not answer. */
  private readonly local: Counters;
  private readonly wall = new RealClock();
  readonly limit: number;

  constructor(
    settings: RateLimitSettings,
    name: string,
    private readonly buckets: RateLimitBuckets = RateLimitBuckets.memory(),
  ) {
    if (!(settings.perSecond >= 1) || !(settings.burst >= settings.perSecond)) {
      throw new RangeError(`rate limit ${name}: need perSecond >= 1 and burst >= perSecond`);
    }
    this.limit = settings.burst;
    this.local = countersFor(settings, name, (options) => new RateLimiterMemory(options));
    this.shared = buckets.shared ? countersFor(settings, name, (options) => buckets.counter(options)) : undefined;
  }

  async consume(key: string): Promise<RateDecision> {
    if (this.shared !== undefined && this.buckets.reachable) {
      try {
        const decision = await this.decide(this.shared, key);
        this.buckets.answered();
        return decision;
      } catch (error) {
        this.buckets.failed(error);
      }
    }
    return this.decide(this.local, key);
  }

  private async decide(counters: Counters, key: string): Promise<RateDecision> {
    const now = this.wall.now();
    let allowed = true;
    let result: RateLimiterRes;
    try {
      result = await counters.limiter.consume(key);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      allowed = false;
      result = rejection;
    }
    const burstLeft = counters.burst === undefined ? 0 : await burstRemaining(counters.burst, key);
    const remaining = Math.max(0, result.remainingPoints) + burstLeft;
    return {
      allowed,
      limit: this.limit,
      remaining: allowed ? remaining : 0,
      resetAt: now + result.msBeforeNext,
      retryAfterMs: allowed ? 0 : Math.max(result.msBeforeNext, 1),
    };
  }
}

async function burstRemaining(burst: RateLimiterAbstract, key: string): Promise<number> {
  const state = await burst.get(key);
  return state === null ? burst.points : Math.max(0, state.remainingPoints);
}

/**
 * Sets `X-RateLimit-*` on every response and answers 429 with `Retry-After` once the bucket is spent.
 * Authenticated requests count per credential; anonymous ones per client address.
 */
export function rateLimit(limiters: { credential: CredentialRateLimiter; anonymous: CredentialRateLimiter }): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const auth = req.auth;
    const [limiter, key] =
      auth !== undefined
        ? [limiters.credential, `${auth.kind}:${auth.keyId}`]
        : [limiters.anonymous, `ip:${req.socket.remoteAddress ?? 'unknown'}`];
    const decision = await limiter.consume(key);
    res.setHeader('X-RateLimit-Limit', String(decision.limit));
    res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
    res.setHeader('X-RateLimit-Reset', String(Math.ceil(decision.resetAt / 1_000)));
    if (!decision.allowed) throw new RateLimitError(decision.retryAfterMs / 1_000);
    next();
  };
}
