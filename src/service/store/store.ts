import { randomBytes } from 'node:crypto';
import { runMigrations, type MigrationSet } from './migrations.js';
import { PostgresDatabase } from './postgres/database.js';
import { SyncPostgresConnection } from './postgres/sync-connection.js';
import { isPostgresUrl, type SqlDialect, type TransactionalDatabase } from './sql.js';

export { isPostgresUrl } from './sql.js';
import { SqliteDatabase } from './sqlite.js';

/**
 * When set, every `:memory:` store is a fresh schema on this Postgres server instead (dropped when the store
 * closes): the test suite runs its repository and settlement tests on Postgres this way.
 */
export const TEST_DATABASE_URL_VARIABLE = 'SANDBOX_TEST_DATABASE_URL';

export interface StoreOptions {
  /** File path of the SQLite database, or `:memory:` (tests). Ignored when `databaseUrl` is given. */
  path: string;
  /** `postgres://…`: a Postgres database instead of the SQLite file. */
  databaseUrl?: string | undefined;
  /** Migration sets in order: the platform's first, then one per module. */
  migrations: readonly MigrationSet[];
}

/**
 * The service's database. Repositories hold all SQL; the rest of the service sees repositories and
 * `transaction`, so SQLite (embedded, the default) and Postgres (shared sandboxes, several instances) serve the
 * same repositories.
 */
export class Store {
  private constructor(
    readonly db: TransactionalDatabase,
    /** The SQLite path, or the Postgres URL without its password. */
    readonly path: string,
  ) {}

  static open(options: StoreOptions): Store {
    const memoryUrl = options.path === ':memory:' ? process.env[TEST_DATABASE_URL_VARIABLE] : undefined;
    const url = isPostgresUrl(options.databaseUrl) ? options.databaseUrl : isPostgresUrl(memoryUrl) ? memoryUrl : undefined;
    let store: Store;
    if (url === undefined) {
      store = new Store(SqliteDatabase.open(options.path), options.path);
    } else {
      const throwaway = url === memoryUrl;
      const schema = throwaway ? `t_${randomBytes(6).toString('hex')}` : undefined;
      const connection = new SyncPostgresConnection({ url, schema, createSchema: throwaway });
      store = new Store(new PostgresDatabase(connection, throwaway), redact(url));
    }
    try {
      runMigrations(store.db, options.migrations);
    } catch (error) {
      store.close();
      throw error;
    }
    return store;
  }

  get dialect(): SqlDialect {
    return this.db.dialect;
  }

  /**
   * Runs `fn` in one write transaction (BEGIN IMMEDIATE on SQLite; on Postgres a transaction holding the store's
   * write lock): a state change, its ledger entry and its outbox events commit together or not at all. Nested
   * calls become savepoints. `fn` must be synchronous: awaiting inside would let other requests interleave with an
   * open transaction.
   */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn);
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

function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://…';
  }
}
