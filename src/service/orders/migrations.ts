import type { MigrationSet } from '../store/migrations.js';

/**
 * Orders, their settlement timeline, and the last nonce each user spent. An order row is written before its
 * deposit is relayed (status `Opening`, invisible to the API) so that a restart can finish or reject it.
 */
export const ordersMigrations: MigrationSet = {
  module: 'orders',
  migrations: [
    {
      name: '001_orders',
      up: (db) =>
        db.exec(`
          CREATE TABLE orders (
            id TEXT PRIMARY KEY,
            workspace_id TEXT,
            quote_id TEXT NOT NULL UNIQUE,
            rfq_id TEXT NOT NULL,
            solver_id TEXT NOT NULL,
            user_address TEXT NOT NULL,
            nonce TEXT NOT NULL,
            lock_type TEXT NOT NULL,
            settlement_path TEXT NOT NULL,
            corridor TEXT NOT NULL,
            origin_chain_id INTEGER NOT NULL,
            destination_chain_id INTEGER NOT NULL,
            input_token TEXT NOT NULL,
            output_token TEXT NOT NULL,
            input_amount TEXT NOT NULL,
            output_amount TEXT NOT NULL,
            fill_deadline INTEGER NOT NULL,
            expires INTEGER NOT NULL,
            onchain_order_id TEXT NOT NULL UNIQUE,
            standard_order TEXT NOT NULL,
            signature TEXT NOT NULL,
            status TEXT NOT NULL,
            screening TEXT NOT NULL,
            origin_tx_hash TEXT,
            destination_tx_hash TEXT,
            oracle_attestation_hash TEXT,
            claim_tx_hash TEXT,
            refund_tx_hash TEXT,
            reject_reason TEXT,
            quote_created_at INTEGER NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            settled_at INTEGER
          );
          CREATE INDEX orders_by_workspace ON orders (workspace_id, created_at, id);
          CREATE INDEX orders_by_status ON orders (status);
          CREATE TABLE order_stages (
            order_id TEXT NOT NULL REFERENCES orders (id),
            stage TEXT NOT NULL,
            at INTEGER NOT NULL,
            tx_hash TEXT,
            oracle_hash TEXT,
            chain_id INTEGER,
            ledger_sequence INTEGER NOT NULL,
            PRIMARY KEY (order_id, stage)
          );
          CREATE TABLE user_nonces (
            user_address TEXT PRIMARY KEY,
            last_nonce TEXT NOT NULL,
            order_id TEXT NOT NULL
          );
        `),
    },
  ],
};
