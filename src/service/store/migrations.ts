import type { SqlDatabase, TransactionalDatabase } from './sql.js';
import { BaseError } from '../../contracts/errors/base-error.js';

/** One schema change. Never edit a migration that has shipped: append a new one. */
export interface Migration {
  /** Unique within its set and stable forever, e.g. `001_workspaces`. */
  name: string;
  up(db: SqlDatabase): void;
}

/** The migrations of one module (aggregate owner), applied in array order. */
export interface MigrationSet {
  /** Module name, e.g. `platform`, `orders`, `ledger`; prefixes the recorded migration id. */
  module: string;
  migrations: readonly Migration[];
}

export class MigrationError extends BaseError {
  override readonly name = 'MigrationError';
}

/**
 * Applies every migration not yet recorded, each in its own transaction, in set order then array
 * order. Ids are `<module>/<name>`, so modules written in parallel never collide on a version number.
 */
export function runMigrations(db: TransactionalDatabase, sets: readonly MigrationSet[]): string[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    id TEXT PRIMARY KEY,
    applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
  )`);
  const known = new Set<string>();
  for (const set of sets) {
    if (!/^[a-z][a-z0-9-]*$/.test(set.module)) throw new MigrationError(`invalid migration module name "${set.module}"`);
    for (const migration of set.migrations) {
      const id = `${set.module}/${migration.name}`;
      if (known.has(id)) throw new MigrationError(`duplicate migration ${id}`);
      known.add(id);
    }
  }
  const applied = new Set((db.prepare('SELECT id FROM schema_migrations').all() as Array<{ id: string }>).map((row) => row.id));
  const unknown = [...applied].filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new MigrationError(
      `the database has migrations this service does not know (${unknown.join(', ')}): it was written by a newer version`,
    );
  }
  const record = db.prepare('INSERT INTO schema_migrations (id) VALUES (?)');
  const ran: string[] = [];
  for (const set of sets) {
    for (const migration of set.migrations) {
      const id = `${set.module}/${migration.name}`;
      if (applied.has(id)) continue;
      db.transaction(() => {
        migration.up(db);
        record.run(id);
      });
      ran.push(id);
    }
  }
  return ran;
}
