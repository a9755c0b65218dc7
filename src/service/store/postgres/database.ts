import { assertSynchronous, type SqlRunResult, type SqlStatement, type TransactionalDatabase, type TransactionOptions } from '../sql.js';
import { translateQuery, translateSchema } from './dialect.js';
import { PostgresError, type QueryResult, type SyncPostgresConnection } from './sync-connection.js';

/**
 * Every write transaction of every instance takes this transaction-scoped advisory lock first, so transactions on
 * one database run one at a time, as SQLite's BEGIN IMMEDIATE runs them. The repositories read, decide and write
 * inside one transaction; serialising them is what keeps those decisions right when several instances share the
 * database, without re-proving each one under Postgres's weaker default isolation.
 *
 * A transaction opened with `writeLock: 'deferred'` takes it only at its first ledger or outbox append: sequence
 * numbers and hash links are still given out in commit order, while its own rows are written beside other
 * instances' transactions (see TransactionOptions).
 */
export const STORE_LOCK = { namespace: 0x5a4d, writes: 1 } as const;

/**
 * The lock statement: keyed by the store's schema as well, so stores that share a server but not their data (the
 * test suite puts every store in a schema of its own) never wait on each other's writes.
 */
const TAKE_STORE_LOCK = `SELECT pg_advisory_xact_lock(${STORE_LOCK.namespace}, hashtext(current_schema()) # ${STORE_LOCK.writes})`;

/**
 * How long one connection's transactions held the store's write lock: the serial section every instance queues for.
 * The bench reads it to state the serial share of a quote and of a settled lifecycle (docs/deployment.md, Amdahl).
 */
export interface WriteLockOccupancy {
  /** Times the lock was taken. */
  holds: number;
  /** Milliseconds from the lock being granted (its statement answered) to the statement that released it answering. */
  heldMs: number;
  /** Milliseconds the statements that took the lock took: the round trip, plus any wait behind another holder. */
  waitedMs: number;
  /** The part of `heldMs` spent in the COMMIT that released it (the WAL flush: locks go only once it is durable). */
  commitMs: number;
}

/** better-sqlite3 binds an array argument as the list of values; so do we. */
function flatten(params: readonly unknown[]): unknown[] {
  const values: unknown[] = [];
  for (const param of params) {
    if (Array.isArray(param)) values.push(...param);
    else values.push(param === undefined ? null : typeof param === 'boolean' ? Number(param) : param);
  }
  return values;
}

class PostgresStatement implements SqlStatement {
  private readonly keepsRowid: boolean;

  constructor(
    private readonly database: PostgresDatabase,
    private readonly text: string,
    private readonly name: string,
    /** The identity column this INSERT returns, so `lastInsertRowid` is what SQLite would give. */
    private readonly identity: string | undefined,
    private readonly names: string[] | undefined,
  ) {
    this.keepsRowid = /\browid\b/i.test(text);
  }

  all(...params: unknown[]): unknown[] {
    const rows = this.execute(params).rows;
    // SQLite's `SELECT *` never shows the rowid column this dialect adds to key-less tables.
    if (!this.keepsRowid) for (const row of rows) if ('rowid' in row) delete row.rowid;
    return rows;
  }

  get(...params: unknown[]): unknown {
    return this.all(...params)[0];
  }

  run(...params: unknown[]): SqlRunResult {
    const result = this.execute(params);
    const last = this.identity === undefined ? undefined : result.rows[result.rows.length - 1]?.[this.identity];
    return { changes: result.rowCount, lastInsertRowid: typeof last === 'number' || typeof last === 'bigint' ? last : 0 };
  }

  iterate(...params: unknown[]): IterableIterator<unknown> {
    return this.all(...params)[Symbol.iterator]();
  }

  private execute(params: unknown[]): QueryResult {
    return this.database.query(this.text, this.bind(params), this.name);
  }

  private bind(params: unknown[]): unknown[] {
    if (this.names === undefined) return flatten(params);
    const named = (params[0] ?? {}) as Record<string, unknown>;
    return flatten(
      this.names.map((name) => {
        if (!(name in named)) throw new RangeError(`Missing named parameter "${name}"`);
        return [named[name]];
      }),
    );
  }
}

export class PostgresDatabase implements TransactionalDatabase {
  readonly dialect = 'postgres' as const;
  private readonly statements = new Map<string, PostgresStatement>();
  private identities: Map<string, string> | undefined;
  private depth = 0;
  /** The transaction level (1 = the outermost) that holds the store's write lock; undefined while none does. */
  private lockLevel: number | undefined;
  /** When the lock held now was granted (performance.now()); undefined while none is held. */
  private lockedAt: number | undefined;
  /** Running totals for this connection; two clock reads per lock, nothing else. */
  readonly writeLockOccupancy: WriteLockOccupancy = { holds: 0, heldMs: 0, waitedMs: 0, commitMs: 0 };

  private readonly statementPrefix: string;
  /** Schema changes made through `exec` (migrations, or a test's own DDL). */
  private schemaChanges = 0;
  private closed = false;

  /**
   * `release`, when given, is asked first on `close`: true means it took the connection back (a reused throwaway
   * schema), and it stays open.
   */
  constructor(
    readonly connection: SyncPostgresConnection,
    private readonly dropSchemaOnClose: boolean,
    private readonly release?: (database: PostgresDatabase) => boolean,
  ) {
    this.statementPrefix = connection.statementPrefix;
  }

  /**
   * Every statement goes through here: once closed, this database refuses them, also when its connection lives on
   * with another user (a repository kept past its store's close must not write into the next store's tables).
   */
  query(sql: string, params?: readonly unknown[], name?: string): QueryResult {
    if (this.closed) throw new PostgresError('the store is closed', '08003');
    return this.connection.query(sql, params, name);
  }

  get execCount(): number {
    return this.schemaChanges;
  }

  /** Whether a transaction is open (a store closed inside one is not handed on). */
  get inTransaction(): boolean {
    return this.depth > 0;
  }

  prepare(sql: string): SqlStatement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      const translated = translateQuery(sql);
      const identity = translated.insertTable === undefined ? undefined : this.identityColumns().get(translated.insertTable);
      const text =
        identity !== undefined && !/\bRETURNING\b/i.test(translated.text) ? `${translated.text} RETURNING ${identity}` : translated.text;
      // A named statement is parsed and planned once per connection, as better-sqlite3 prepares once.
      statement = new PostgresStatement(this, text, `${this.statementPrefix}${this.statements.size}`, identity, translated.names);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  exec(sql: string): void {
    this.schemaChanges += 1;
    this.query(translateSchema(sql));
    this.identities = undefined;
  }

  /** Runs `fn` in one transaction holding the store's write lock; nested calls become savepoints. */
  transaction<T>(fn: () => T, options?: TransactionOptions): T {
    const deferred = options?.writeLock === 'deferred';
    const savepoint = `sp${this.depth}`;
    if (this.depth === 0) {
      if (deferred) this.query('BEGIN');
      else this.takeLock(`BEGIN; ${TAKE_STORE_LOCK}`);
      this.lockLevel = deferred ? undefined : 1;
    } else {
      if (!deferred) this.holdWriteLock();
      this.query(`SAVEPOINT ${savepoint}`);
    }
    this.depth += 1;
    const level = this.depth;
    let result: T;
    try {
      result = fn();
      assertSynchronous(result);
    } catch (error) {
      this.depth -= 1;
      // A lock taken inside a savepoint that is rolled back is released with it (Postgres's rule for every lock).
      if (this.lockLevel !== undefined && this.lockLevel >= level) this.lockLevel = undefined;
      try {
        this.query(this.depth === 0 ? 'ROLLBACK' : `ROLLBACK TO SAVEPOINT ${savepoint}; RELEASE SAVEPOINT ${savepoint}`);
      } catch {
        // The connection broke: Postgres rolls the transaction back itself.
      }
      if (this.lockLevel === undefined) this.lockReleased();
      throw error;
    }
    this.depth -= 1;
    // Released savepoint: its locks now belong to the enclosing level.
    if (this.lockLevel !== undefined && this.lockLevel >= level) this.lockLevel = this.depth === 0 ? undefined : this.depth;
    if (this.depth > 0) {
      this.query(`RELEASE SAVEPOINT ${savepoint}`);
      return result;
    }
    const committing = performance.now();
    this.query('COMMIT');
    if (this.lockedAt !== undefined) this.writeLockOccupancy.commitMs += performance.now() - committing;
    this.lockReleased();
    return result;
  }

  holdWriteLock(): void {
    if (this.depth === 0 || this.lockLevel !== undefined) return;
    this.takeLock(TAKE_STORE_LOCK);
    this.lockLevel = this.depth;
  }

  private takeLock(statement: string): void {
    const asked = performance.now();
    this.query(statement);
    this.lockedAt = performance.now();
    this.writeLockOccupancy.holds += 1;
    this.writeLockOccupancy.waitedMs += this.lockedAt - asked;
  }

  private lockReleased(): void {
    if (this.lockedAt === undefined) return;
    this.writeLockOccupancy.heldMs += performance.now() - this.lockedAt;
    this.lockedAt = undefined;
  }

  get open(): boolean {
    return !this.closed && this.connection.open;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.connection.open && this.release?.(this) === true) return;
    this.connection.close({ dropSchema: this.dropSchemaOnClose });
  }

  private identityColumns(): Map<string, string> {
    if (this.identities === undefined) {
      const rows = this.query(
        `SELECT table_name, column_name FROM information_schema.columns
          WHERE table_schema = current_schema() AND is_identity = 'YES' AND column_name <> 'rowid'`,
      ).rows as Array<{ table_name: string; column_name: string }>;
      this.identities = new Map(rows.map((row) => [row.table_name, row.column_name]));
    }
    return this.identities;
  }
}
