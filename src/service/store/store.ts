import { createHash } from 'node:crypto';
import { runMigrations, type MigrationSet } from './migrations.js';
import { PostgresDatabase } from './postgres/database.js';
import { SyncPostgresConnection } from './postgres/sync-connection.js';
import { openThrowawaySchema } from './postgres/throwaway-schemas.js';
import { isPostgresUrl, redactUrl, type SqlDialect, type TransactionalDatabase, type TransactionOptions } from './sql.js';

export { isPostgresUrl } from './sql.js';
import { SqliteDatabase } from './sqlite.js';

/**
 * When set, every store opened without a `databaseUrl` lives on this Postgres server instead: a `:memory:` store in
 * a fresh schema (dropped when it closes), a file store in a schema named after its path. The test suite runs its
 * service tests on Postgres this way (`npm run test:postgres`).
 */
export const TEST_DATABASE_URL_VARIABLE = 'SANDBOX_TEST_DATABASE_URL';

export interface StoreOptions {
  /** File path of the SQLite database, or `:memory:` (tests). Ignored when `databaseUrl` is given. */
  path: string;
  /** `postgres://…`: a Postgres database instead of the SQLite file. */
  databaseUrl?: string | undefined;
  /** With `databaseUrl`: the schema to keep the tables in (created when missing). */
  databaseSchema?: string | undefined;
  /** Migration sets in order: the platform's first, then one per module. */
  migrations: readonly MigrationSet[];
}

/**
 * The service's database. Repositories hold all SQL; the rest of the service sees repositories and
 * `transaction`, so SQLite (embedded, the default) and Postgres (shared sandboxes, several instances) serve the
 * same repositories.
 */
/** Where a Postgres store lives: what the instance bus and the singleton lease connect to (their own connections). */
export interface PostgresLocation {
  url: string;
  /** The schema the store's tables are in; `undefined` means the connection's default (`public`). */
  schema: string | undefined;
}

/** Applies the store's migrations; a store whose migrations fail is closed (and a throwaway schema dropped). */
function migrate(store: Store, sets: readonly MigrationSet[]): void {
  try {
    runMigrations(store.db, sets);
  } catch (error) {
    store.close();
    throw error;
  }
}

export class Store {
  private constructor(
    readonly db: TransactionalDatabase,
    /** The SQLite path, or the Postgres URL without its password. */
    readonly path: string,
    /** Set when the store is on Postgres. */
    readonly postgres?: PostgresLocation,
  ) {}

  static open(options: StoreOptions): Store {
    const testUrl = process.env[TEST_DATABASE_URL_VARIABLE];
    let store: Store;
    if (isPostgresUrl(options.databaseUrl)) {
      const schema = options.databaseSchema;
      const connection = new SyncPostgresConnection({ url: options.databaseUrl, schema, createSchema: schema !== undefined });
      store = new Store(
        new PostgresDatabase(connection, false),
        schema === undefined ? redactUrl(options.databaseUrl) : `${redactUrl(options.databaseUrl)} (schema ${schema})`,
        { url: options.databaseUrl, schema },
      );
    } else if (isPostgresUrl(testUrl)) {
      // The test suite on Postgres: a `:memory:` store is a throwaway schema; a file store is a schema named after
      // its path, kept for the run, so a test that restarts the service on the same path finds its data again.
      // A throwaway schema is reused within the process once its store closed (see throwaway-schemas.ts).
      if (options.path === ':memory:') {
        const throwaway = openThrowawaySchema(testUrl, options.migrations);
        store = new Store(throwaway.database, `${redactUrl(testUrl)} (schema ${throwaway.schema})`, {
          url: testUrl,
          schema: throwaway.schema,
        });
        migrate(store, options.migrations);
        throwaway.migrated();
        return store;
      }
      const schema = `f_${createHash('sha256').update(options.path).digest('hex').slice(0, 24)}`;
      const connection = new SyncPostgresConnection({ url: testUrl, schema, createSchema: true });
      store = new Store(new PostgresDatabase(connection, false), `${redactUrl(testUrl)} (schema ${schema})`, {
        url: testUrl,
        schema,
      });
    } else {
      store = new Store(SqliteDatabase.open(options.path), options.path);
    }
    migrate(store, options.migrations);
    return store;
  }

  get dialect(): SqlDialect {
    return this.db.dialect;
  }

  /**
   * Runs `fn` in one write transaction (BEGIN IMMEDIATE on SQLite; on Postgres a transaction holding the store's
   * write lock): a state change, its ledger entry and its outbox events commit together or not at all. Nested
   * calls become savepoints. `fn` must be synchronous: awaiting inside would let other requests interleave with an
   * open transaction. `options.writeLock: 'deferred'` (Postgres only) defers the write lock to the first ledger or
   * outbox append; see TransactionOptions for when that is right.
   */
  transaction<T>(fn: () => T, options?: TransactionOptions): T {
    return this.db.transaction(fn, options);
  }

  /**
   * Called by the appenders whose order must be the commit order (the evidence ledger, the outbox) before they
   * read their head: a transaction that deferred the write lock takes it here.
   */
  holdWriteLock(): void {
    this.db.holdWriteLock();
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
