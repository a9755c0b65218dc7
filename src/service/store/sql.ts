/**
 * The SQL surface the repositories use: the subset of better-sqlite3's API that a server database can offer as
 * well. Repositories write SQLite's dialect; the Postgres implementation translates it (store/postgres/dialect.ts),
 * so one repository serves both stores.
 */
export type SqlDialect = 'sqlite' | 'postgres';

export interface SqlRunResult {
  /** Rows inserted, updated or deleted. */
  changes: number;
  /** The integer primary key of the last row inserted into a table that has one; 0 otherwise. */
  lastInsertRowid: number | bigint;
}

export interface SqlStatement {
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): SqlRunResult;
  iterate(...params: unknown[]): IterableIterator<unknown>;
}

export interface SqlDatabase {
  readonly dialect: SqlDialect;
  prepare(sql: string): SqlStatement;
  /** Runs statements without parameters (DDL, several statements separated by `;`). */
  exec(sql: string): void;
  readonly open: boolean;
  close(): void;
}

/**
 * When a transaction takes the store's write lock (see `TransactionalDatabase`):
 * - `start` (the default): before anything else, so its reads decide on a store nobody else writes meanwhile;
 * - `deferred`: only when it first appends to the evidence ledger or the outbox (`holdWriteLock`), whose order must
 *   be the commit order. For transactions whose earlier statements only write rows of their own that no other
 *   transaction reads to decide (an auction's quotes, a fan-out's messages): those statements then run while other
 *   instances write, instead of queueing behind them.
 */
export interface TransactionOptions {
  writeLock?: 'start' | 'deferred';
}

/**
 * A database that runs a synchronous function in one transaction (nested calls become savepoints), holding the
 * store's one write lock: SQLite's BEGIN IMMEDIATE, or an advisory lock on Postgres. A nested call without
 * `writeLock: 'deferred'` inside a deferred transaction takes the lock before it runs.
 */
export interface TransactionalDatabase extends SqlDatabase {
  transaction<T>(fn: () => T, options?: TransactionOptions): T;
  /** Inside a transaction: takes the write lock now if the transaction does not hold it yet. */
  holdWriteLock(): void;
}

/** A Postgres connection URL (`postgres://` or `postgresql://`). */
export function isPostgresUrl(url: string | undefined): url is string {
  return url !== undefined && /^postgres(ql)?:\/\//i.test(url);
}

/** A database URL as it may be shown: the password masked. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://…';
  }
}

/**
 * A store transaction runs a synchronous function: awaiting inside would let other requests interleave with an
 * open transaction. Both stores refuse a function that returned a Promise (and roll back).
 */
export function assertSynchronous(result: unknown): void {
  if (result instanceof Promise) throw new TypeError('Store.transaction: the function must be synchronous (it returned a Promise)');
}
