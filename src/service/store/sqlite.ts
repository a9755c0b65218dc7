import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { assertSynchronous, type SqlStatement, type TransactionalDatabase, type TransactionOptions } from './sql.js';

const STATEMENT_CACHE_SIZE = 1_000;
/**
 * WAL pages after which a commit copies the WAL back into the database file (SQLite's default is 1,000). A
 * checkpoint runs inside the commit that crosses the mark, on the service's thread, and costs mostly per run (two
 * fsyncs, and each page as often as it changed since the last run): at 1,000 pages a settled order (7 commits of
 * about 20 pages) paid 0.57–0.65 CPU-ms for checkpoints, at 4,000 pages 0.30–0.34 (the bench's settlement row),
 * and the stalls went from 6–7 ms every 40 commits or so to about 25 ms every 130. The price is a WAL file of up to about 16 MiB beside the database.
 */
export const WAL_CHECKPOINT_PAGES = 4_000;

/** The embedded store: one SQLite file (WAL) in the state folder, or `:memory:`. */
export class SqliteDatabase implements TransactionalDatabase {
  readonly dialect = 'sqlite' as const;
  /** One transaction function for every call: building one per call costs more than a small transaction's SQL. */
  private readonly immediate: (fn: () => unknown) => unknown;
  /**
   * Compiled statements by SQL text. Repositories prepare where they run (`db.prepare(sql).get(...)`), and compiling
   * costs more than running a small statement; a settled order runs the same few dozen statements. Bounded, because
   * nothing stops a caller from building SQL text per call.
   */
  private readonly statements = new Map<string, Database.Statement>();

  private constructor(readonly raw: Database.Database) {
    this.immediate = raw.transaction((fn: () => unknown) => {
      const result = fn();
      assertSynchronous(result);
      return result;
    }).immediate;
  }

  static open(path: string): SqliteDatabase {
    if (path !== ':memory:') {
      mkdirSync(dirname(path), { recursive: true });
      // The store holds secrets that must stay readable (the JWT signing key, webhook signing secrets, TOTP seeds):
      // owner-only, like sandbox.json. SQLite gives its -wal and -shm files the database file's mode.
      if (!existsSync(path)) closeSync(openSync(path, 'a', 0o600));
      for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
    }
    const raw = new Database(path);
    // WAL lets readers (status commands, the ledger verifier) work while the service writes.
    raw.pragma('journal_mode = WAL');
    raw.pragma('synchronous = NORMAL');
    raw.pragma('foreign_keys = ON');
    raw.pragma('busy_timeout = 5000');
    raw.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
    return new SqliteDatabase(raw);
  }

  prepare(sql: string): SqlStatement {
    const cached = this.statements.get(sql);
    // A statement still being iterated cannot run again until the iteration ends: that caller gets a fresh one.
    if (cached !== undefined && !cached.busy) return cached;
    const statement = this.raw.prepare(sql);
    if (cached === undefined) {
      if (this.statements.size >= STATEMENT_CACHE_SIZE) this.statements.clear();
      this.statements.set(sql, statement);
    }
    return statement;
  }

  exec(sql: string): void {
    // exec runs DDL (migrations): statements compiled against the old schema are dropped rather than trusted.
    this.statements.clear();
    this.raw.exec(sql);
  }

  /**
   * BEGIN IMMEDIATE; nested calls become savepoints. SQLite takes its write lock at the start whatever `options` say
   * (one writer per file).
   */
  transaction<T>(fn: () => T, _options?: TransactionOptions): T {
    return this.immediate(fn) as T;
  }

  holdWriteLock(): void {
    // Held since BEGIN IMMEDIATE.
  }

  get open(): boolean {
    return this.raw.open;
  }

  close(): void {
    if (this.raw.open) this.raw.close();
  }
}
