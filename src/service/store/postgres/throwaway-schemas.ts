/**
 * The throwaway schemas of the test suite on Postgres (a `:memory:` store while SANDBOX_TEST_DATABASE_URL is set),
 * reused within a process. A new schema costs a connection (a worker thread and a Postgres backend) and every
 * migration's DDL on a cold catalogue: about 0.3 s of wall time and 0.25 CPU-s per store, most of what a service
 * test costs on Postgres. A closed store's schema is emptied instead (its tables truncated, identities restarted, its
 * connection renewed) and handed to the next store that asks for the same migrations, which then finds them applied
 * and its tables empty: what a new schema would give it.
 *
 * A schema is dropped instead of kept when its store changed it beyond its migrations (a test's own DDL), closed it
 * inside a transaction, or lost its connection; and after MAX_USES stores, so that nothing a store left in the
 * session outlives a bounded number of tests.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { MigrationSet } from '../migrations.js';
import { PostgresDatabase } from './database.js';
import { SyncPostgresConnection } from './sync-connection.js';

const MAX_USES = 50;

interface IdleSchema {
  connection: SyncPostgresConnection;
  schema: string;
  /** The statement that empties it (see resetStatement), built once per schema. */
  reset: string;
  uses: number;
}

/** Idle schemas by server and migration sets. */
const idle = new Map<string, IdleSchema[]>();

/**
 * The key of a list of migration sets: each migration's id and the source of its `up`. Names alone would not do: two
 * tests may each define a `notes` set with a migration of the same name and other tables.
 */
function keyOf(url: string, sets: readonly MigrationSet[]): string {
  const hash = createHash('sha256');
  for (const set of sets)
    for (const migration of set.migrations) hash.update(`${set.module}/${migration.name}\0${migration.up.toString()}\0`);
  return `${url} ${hash.digest('hex')}`;
}

/**
 * Deletes every row but the applied migrations and restarts every identity column, as a new schema would have them.
 * DELETE rather than TRUNCATE: these tables hold a test's few rows, and TRUNCATE gives each table and index a new file
 * (most of what a new schema cost). Triggers are off while it runs: the ledger's tables refuse deletes by trigger
 * (append-only), and foreign keys are triggers too, so the order of the deletes does not matter.
 */
function resetStatement(connection: SyncPostgresConnection): string {
  const tables = connection.query(
    "SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'schema_migrations' ORDER BY 1",
  ).rows as Array<{ name: string }>;
  const identities = connection.query(
    `SELECT quote_literal(quote_ident(table_name)) AS t, quote_literal(column_name) AS c FROM information_schema.columns
      WHERE table_schema = current_schema() AND is_identity = 'YES' ORDER BY 1, 2`,
  ).rows as Array<{ t: string; c: string }>;
  return [
    'SET session_replication_role = replica',
    ...tables.map((table) => `DELETE FROM ${table.name}`),
    ...(identities.length === 0
      ? []
      : [`SELECT ${identities.map(({ t, c }) => `setval(pg_get_serial_sequence(${t}, ${c}), 1, false)`).join(', ')}`]),
    'SET session_replication_role = DEFAULT',
  ].join('; ');
}

export interface ThrowawaySchema {
  database: PostgresDatabase;
  schema: string;
  /** Call once the store's migrations ran: later schema changes keep the schema from being reused. */
  migrated(): void;
}

export function openThrowawaySchema(url: string, sets: readonly MigrationSet[]): ThrowawaySchema {
  const key = keyOf(url, sets);
  const reused = idle.get(key)?.pop();
  const schema = reused?.schema ?? `t_${randomBytes(6).toString('hex')}`;
  const connection = reused?.connection ?? new SyncPostgresConnection({ url, schema, createSchema: true });
  let reset = reused?.reset;
  const uses = (reused?.uses ?? 0) + 1;
  let migratedAt: number | undefined;

  const release = (database: PostgresDatabase): boolean => {
    if (migratedAt === undefined || database.execCount !== migratedAt || database.inTransaction) return false;
    if (uses >= MAX_USES || !connection.healthy) return false;
    try {
      reset ??= resetStatement(connection);
      connection.query(reset);
      connection.renew();
    } catch {
      return false;
    }
    const list = idle.get(key) ?? [];
    list.push({ connection, schema, reset, uses });
    idle.set(key, list);
    return true;
  };

  const database = new PostgresDatabase(connection, true, release);
  return {
    database,
    schema,
    migrated: () => {
      migratedAt = database.execCount;
    },
  };
}
