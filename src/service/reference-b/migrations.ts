import type { MigrationSet } from '../store/migrations.js';

/**
 * Reference B's own state: the solver keys it hands out and the KYB / pricing-engine details of each registration.
 * Settlements need no table: a settlement is the order seen through Reference B (see settlement-ids.ts).
 */
export const referenceBMigrations: MigrationSet = {
  module: 'reference-b',
  migrations: [
    {
      name: '001_solver_registrations',
      up: (db) =>
        db.exec(`
          CREATE TABLE reference_b_solver_registrations (
            solver_id TEXT PRIMARY KEY,
            workspace_id TEXT NOT NULL,
            key_hash BLOB NOT NULL UNIQUE,
            key_hint TEXT NOT NULL,
            kyb TEXT NOT NULL,
            pricing TEXT NOT NULL,
            verification TEXT NOT NULL,
            ledger_sequence INTEGER NOT NULL,
            created_at INTEGER NOT NULL
          );
        `),
    },
  ],
};
