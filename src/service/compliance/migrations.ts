import type { MigrationSet } from '../store/migrations.js';

export const complianceMigrations: MigrationSet = {
  module: 'compliance',
  migrations: [
    {
      name: '001_attestations_checks',
      up: (db) =>
        db.exec(`
          CREATE TABLE attestations (
            hash TEXT PRIMARY KEY,
            address TEXT NOT NULL,
            issued_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL
          );
          CREATE INDEX attestations_by_address ON attestations (address, expires_at);
          CREATE TABLE compliance_checks (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            trade_id TEXT NOT NULL,
            order_id TEXT,
            workspace_id TEXT,
            subject TEXT NOT NULL,
            check_type TEXT NOT NULL,
            result TEXT NOT NULL,
            details TEXT NOT NULL,
            ledger_sequence INTEGER NOT NULL,
            created_at INTEGER NOT NULL
          );
          CREATE INDEX compliance_checks_by_trade ON compliance_checks (trade_id, id);
        `),
    },
    {
      name: '002_counterparties',
      up: (db) =>
        db.exec(`
          CREATE TABLE counterparties (
            id TEXT PRIMARY KEY,
            workspace_id TEXT NOT NULL,
            name TEXT NOT NULL,
            jurisdiction TEXT NOT NULL,
            addresses TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('approved', 'failed')),
            reason TEXT NOT NULL,
            ledger_sequence INTEGER NOT NULL,
            created_at INTEGER NOT NULL
          );
          CREATE INDEX counterparties_by_workspace ON counterparties (workspace_id, created_at, id);
          CREATE TABLE counterparty_addresses (
            address TEXT NOT NULL,
            counterparty_id TEXT NOT NULL REFERENCES counterparties(id),
            PRIMARY KEY (address, counterparty_id)
          );
        `),
    },
  ],
};
