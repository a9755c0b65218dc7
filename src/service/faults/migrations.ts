import type { MigrationSet } from '../store/migrations.js';

/** Fault switches and what they did to relays, so a restart keeps a held relay held. */
export const faultMigrations: MigrationSet = {
  module: 'faults',
  migrations: [
    {
      name: '001_fault_switches',
      up: (db) =>
        db.exec(`
          CREATE TABLE fault_switches (
            id TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            relay TEXT,
            delay_ms INTEGER,
            route TEXT,
            scope_order_id TEXT,
            scope_corridor TEXT,
            scope_solver_id TEXT,
            remaining INTEGER,
            expires_at INTEGER,
            fired INTEGER NOT NULL DEFAULT 0,
            created_at INTEGER NOT NULL,
            cleared_at INTEGER
          );
          CREATE TABLE fault_relays (
            relay_id INTEGER PRIMARY KEY,
            fault_id TEXT NOT NULL,
            order_id TEXT,
            action TEXT NOT NULL CHECK (action IN ('hold', 'delay', 'drop')),
            until_at INTEGER,
            decided_at INTEGER NOT NULL,
            released_at INTEGER
          );
        `),
    },
    {
      name: '002_chain_faults',
      up: (db) =>
        db.exec(`
          ALTER TABLE fault_switches ADD COLUMN chain_id INTEGER;
          ALTER TABLE fault_switches ADD COLUMN rpc_method TEXT;
        `),
    },
    {
      name: '003_reorg_depth',
      up: (db) => db.exec('ALTER TABLE fault_switches ADD COLUMN depth INTEGER;'),
    },
  ],
};
