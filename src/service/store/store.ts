import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { runMigrations, type MigrationSet } from './migrations.js';

export type SqliteDatabase = Database.Database;

export interface StoreOptions {
  /** File path of the SQLite database, or `:memory:` (tests). */
  path: string;
  /** Migration sets in order: the platform's first, then one per module. */
  migrations: readonly MigrationSet[];
}

/**
 * The service's database. Repositories hold all SQL; the rest of the service sees repositories and
 * `transaction`, so that a server database can replace SQLite behind the same repository interfaces.
 */
export class Store {
  readonly db: SqliteDatabase;
  readonly path: string;
  /** One transaction function for every call: building one per call costs more than a small transaction's SQL. */
  private readonly immediate: (fn: () => unknown) => unknown;

  private constructor(db: SqliteDatabase, path: string) {
    this.db = db;
    this.path = path;
    this.immediate = db.transaction((fn: () => unknown) => {
      const result = fn();
      if (result instanceof Promise) {
        throw new TypeError('Store.transaction: the function must be synchronous (it returned a Promise)');
      }
      return result;
    }).immediate;
  }

  static open(options: StoreOptions): Store {
    if (options.path !== ':memory:') {
      mkdirSync(dirname(options.path), { recursive: true });
      // The store holds secrets that must stay readable (the JWT signing key, webhook signing secrets, TOTP seeds):
      // owner-only, like sandbox.json. SQLite gives its -wal and -shm files the database file's mode.
      if (!existsSync(options.path)) closeSync(openSync(options.path, 'a', 0o600));
      for (const file of [options.path, `${options.path}-wal`, `${options.path}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
    }
    const db = new Database(options.path);
    // WAL lets readers (status commands, the ledger verifier) work while the service writes.
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    const store = new Store(db, options.path);
    runMigrations(db, options.migrations);
    return store;
  }

  /**
   * Runs `fn` in one write transaction (BEGIN IMMEDIATE): a state change, its ledger entry and its
   * outbox events commit together or not at all. Nested calls become savepoints. `fn` must be
   * synchronous: awaiting inside would let other requests interleave with an open transaction.
   */
  transaction<T>(fn: () => T): T {
    return this.immediate(fn) as T;
  }

  /** True when the database answers a trivial query. */
  ping(): boolean {
    try {
      return this.db.prepare('SELECT 1 AS ok').get() !== undefined;
    } catch {
      return false;
    }
  }

  get open(): boolean {
    return this.db.open;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
