import type { MigrationSet } from '../store/migrations.js';

/**
 * The deferred rail's books: the service's mirror of each workspace's credit in `DeferredVault` (kept in step with
 * the vault by recording every vault call's outcome in the transaction that updates it), deposits, withdrawals and
 * the admin approvals queue. Amounts are decimal strings (uint256).
 */
export const deferredMigrations: MigrationSet = {
  module: 'deferred',
  migrations: [
    {
      name: '001_credit_deposits_withdrawals_approvals',
      up: (db) =>
        db.exec(`
          CREATE TABLE deferred_credit (
            workspace_id TEXT NOT NULL,
            chain_id INTEGER NOT NULL,
            token TEXT NOT NULL,
            available TEXT NOT NULL,
            held TEXT NOT NULL,
            updated_at INTEGER NOT NULL,
            PRIMARY KEY (workspace_id, chain_id, token)
          );
          CREATE TABLE deferred_deposits (
            id TEXT PRIMARY KEY,
            workspace_id TEXT NOT NULL,
            chain_id INTEGER NOT NULL,
            token TEXT NOT NULL,
            amount TEXT NOT NULL,
            owner TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('sending', 'credited', 'failed')),
            tx_hash TEXT,
            error TEXT,
            created_at INTEGER NOT NULL
          );
          CREATE INDEX deferred_deposits_by_workspace ON deferred_deposits (workspace_id, created_at, id);
          CREATE TABLE deferred_withdrawals (
            id TEXT PRIMARY KEY,
            workspace_id TEXT NOT NULL,
            chain_id INTEGER NOT NULL,
            token TEXT NOT NULL,
            amount TEXT NOT NULL,
            recipient TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('pending_approval', 'sending', 'paid', 'failed', 'rejected')),
            approval_id TEXT,
            tx_hash TEXT,
            error TEXT,
            requested_by TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
          );
          CREATE INDEX deferred_withdrawals_by_workspace ON deferred_withdrawals (workspace_id, created_at, id);
          CREATE TABLE admin_approvals (
            id TEXT PRIMARY KEY,
            workspace_id TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('withdrawal', 'deferred_confirmation')),
            subject_id TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
            summary TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            decided_at INTEGER,
            decided_by TEXT
          );
          CREATE INDEX admin_approvals_by_workspace ON admin_approvals (workspace_id, created_at, id);
        `),
    },
    {
      name: '002_payouts_and_paused_lps',
      up: (db) =>
        db.exec(`
          CREATE TABLE deferred_payouts (
            order_id TEXT PRIMARY KEY,
            batch_id TEXT NOT NULL,
            recipient TEXT NOT NULL,
            created_at INTEGER NOT NULL
          );
          CREATE INDEX deferred_payouts_by_batch ON deferred_payouts (batch_id);
          CREATE TABLE deferred_paused_lps (
            solver_id TEXT PRIMARY KEY,
            paused_at INTEGER NOT NULL,
            paused_by TEXT NOT NULL
          );
        `),
    },
  ],
};
