/**
 * Read-only access to a sandbox's service store from outside the service: the SQLite file (WAL lets a reader work
 * beside the running service) or a Postgres store through a connection of its own. `sandbox ledger verify` and the
 * hardening campaigns read what the service committed through it, never through the service's repositories.
 */
import Database from 'better-sqlite3';
import type { LedgerSql } from '../contracts/ledger/reader.js';
import { PostgresDatabase } from '../service/store/postgres/database.js';
import { SyncPostgresConnection } from '../service/store/postgres/sync-connection.js';

/** A SQLite file path, or a Postgres store (`{ url }`). */
export type StoreSource = string | { url: string };

/** Opens the store read-only, runs `read` on prepared statements, and closes it again. */
export function withReadOnlyStore<T>(source: StoreSource, read: (db: LedgerSql) => T): T {
  if (typeof source !== 'string') {
    const db = new PostgresDatabase(new SyncPostgresConnection({ url: source.url, timeoutMs: 10_000 }), false);
    try {
      return read(db);
    } finally {
      db.close();
    }
  }
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    return read(db);
  } finally {
    db.close();
  }
}
