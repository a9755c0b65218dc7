import type { MigrationSet } from '../store/migrations.js';

/**
 * Tables of the settlement engine: transactions it relays (one row per intent, written before the transaction is
 * sent), how far each chain has been read, and every contract log it has processed (the chain facts orders are
 * derived from). A log is processed once: its (chain, tx, log index) is the primary key.
 */
export const settlementMigrations: MigrationSet = {
  module: 'settlement',
  migrations: [
    {
      name: '001_relays_cursors_logs',
      up: (db) =>
        db.exec(`
          CREATE TABLE relays (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            kind TEXT NOT NULL,
            key TEXT NOT NULL,
            order_id TEXT,
            chain_id INTEGER NOT NULL,
            account TEXT NOT NULL,
            to_address TEXT NOT NULL,
            data TEXT NOT NULL,
            gas TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('queued', 'sent', 'mined', 'reverted', 'dropped')),
            nonce INTEGER,
            raw_tx TEXT,
            tx_hash TEXT,
            block_number INTEGER,
            error TEXT,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            UNIQUE (kind, key)
          );
          CREATE INDEX relays_by_account ON relays (chain_id, account, status, id);
          CREATE INDEX relays_by_order ON relays (order_id);
          CREATE TABLE chain_cursors (
            chain_id INTEGER PRIMARY KEY,
            next_block INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
          );
          CREATE TABLE processed_logs (
            chain_id INTEGER NOT NULL,
            tx_hash TEXT NOT NULL,
            log_index INTEGER NOT NULL,
            block_number INTEGER NOT NULL,
            address TEXT NOT NULL,
            kind TEXT NOT NULL,
            onchain_order_id TEXT NOT NULL,
            data TEXT NOT NULL,
            processed_at INTEGER NOT NULL,
            PRIMARY KEY (chain_id, tx_hash, log_index)
          );
          CREATE INDEX processed_logs_by_order ON processed_logs (onchain_order_id, chain_id, block_number, log_index);
        `),
    },
  ],
};
