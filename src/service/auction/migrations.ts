import type { MigrationSet } from '../store/migrations.js';

/**
 * Tables of the auction: registered solvers, RFQs with every invited solver's outcome, ranked quotes, and the
 * nonces handed out to takers. Amounts and nonces are uint256 integer strings (TEXT); times are clock ms.
 */
export const auctionMigrations: MigrationSet = {
  module: 'auction',
  migrations: [
    {
      name: '001_solvers_rfqs_quotes',
      up: (db) =>
        db.exec(`
          CREATE TABLE solvers (
            id TEXT PRIMARY KEY,
            workspace_id TEXT NOT NULL,
            name TEXT NOT NULL,
            corridors TEXT NOT NULL,
            callback_url TEXT,
            address TEXT,
            token_hash BLOB NOT NULL UNIQUE,
            created_at INTEGER NOT NULL
          );
          CREATE INDEX solvers_by_workspace ON solvers (workspace_id, created_at);
          CREATE INDEX solvers_by_created ON solvers (created_at, id);

          CREATE TABLE rfqs (
            id TEXT PRIMARY KEY,
            workspace_id TEXT,
            request_id TEXT,
            corridor TEXT NOT NULL,
            origin_chain_id INTEGER NOT NULL,
            destination_chain_id INTEGER NOT NULL,
            input_token TEXT NOT NULL,
            output_token TEXT NOT NULL,
            input_decimals INTEGER NOT NULL,
            output_decimals INTEGER NOT NULL,
            pair TEXT NOT NULL,
            side TEXT NOT NULL CHECK (side IN ('buy', 'sell')),
            swap_type TEXT NOT NULL CHECK (swap_type IN ('exactInput', 'exactOutput')),
            amount TEXT NOT NULL,
            preference TEXT NOT NULL,
            lock_type TEXT NOT NULL,
            settlement_path TEXT NOT NULL,
            user TEXT,
            attestation TEXT,
            fill_deadline INTEGER NOT NULL,
            expires INTEGER NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('collecting', 'quoted', 'no_quotes')),
            respond_by INTEGER NOT NULL,
            quote_expires_at INTEGER NOT NULL,
            event_id TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            closed_at INTEGER
          );
          CREATE INDEX rfqs_open ON rfqs (status, quote_expires_at);

          CREATE TABLE rfq_invitations (
            rfq_id TEXT NOT NULL REFERENCES rfqs (id),
            solver_id TEXT NOT NULL,
            outcome TEXT NOT NULL CHECK (outcome IN ('quoted', 'declined', 'rejected', 'silent')),
            reason TEXT,
            latency_ms REAL,
            PRIMARY KEY (rfq_id, solver_id)
          );
          CREATE INDEX rfq_invitations_by_solver ON rfq_invitations (solver_id);

          CREATE TABLE quotes (
            id TEXT PRIMARY KEY,
            rfq_id TEXT NOT NULL REFERENCES rfqs (id),
            solver_id TEXT NOT NULL,
            rank INTEGER NOT NULL,
            best_price INTEGER NOT NULL DEFAULT 0,
            status TEXT NOT NULL CHECK (status IN ('open', 'accepted', 'expired')),
            input_amount TEXT NOT NULL,
            output_amount TEXT NOT NULL,
            fee_bps REAL NOT NULL,
            price_impact_bps REAL NOT NULL,
            latency_ms REAL NOT NULL,
            confidence REAL NOT NULL,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            order_id TEXT UNIQUE,
            accepted_at INTEGER,
            outcome TEXT CHECK (outcome IN ('filled', 'failed')),
            outcome_at INTEGER,
            UNIQUE (rfq_id, solver_id)
          );
          CREATE INDEX quotes_by_solver ON quotes (solver_id, created_at);

          CREATE TABLE quote_users (
            rfq_id TEXT NOT NULL REFERENCES rfqs (id),
            user TEXT NOT NULL,
            nonce TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            PRIMARY KEY (rfq_id, user)
          );

          CREATE TABLE nonce_counters (
            user TEXT PRIMARY KEY,
            last_issued TEXT NOT NULL
          );
        `),
    },
    {
      // Which solver stream connections each service instance holds (several instances on one Postgres store):
      // RFQs and order messages are routed to the instance holding a solver's connection. Rows of instances whose
      // bus session is gone are ignored and pruned (solver-presence.ts).
      name: '002_solver_presence',
      up: (db) =>
        db.exec(`
          CREATE TABLE solver_presence (
            instance_id TEXT NOT NULL,
            connection_id TEXT NOT NULL,
            solver_id TEXT NOT NULL,
            rfq_corridors TEXT NOT NULL,
            connected_at INTEGER NOT NULL,
            PRIMARY KEY (instance_id, connection_id)
          );
          CREATE INDEX solver_presence_by_solver ON solver_presence (solver_id);
        `),
    },
  ],
};
