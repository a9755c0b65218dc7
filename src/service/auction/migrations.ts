import type { MigrationSet } from '../store/migrations.js';
import { normalise } from './pricing.js';

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
    {
      // Each solver's running totals (the directory's and the leaderboard's statistics), kept in the transactions
      // that change quotes and invitations. Summing the whole auction history on every `GET /solvers` grew with the
      // sandbox's age: a long-lived sandbox answered it slower every day. Filled from the history once, here.
      name: '003_solver_stats',
      up: (db) => {
        db.exec(`
          CREATE TABLE solver_stats (
            solver_id TEXT PRIMARY KEY,
            quotes INTEGER NOT NULL DEFAULT 0,
            best_quotes INTEGER NOT NULL DEFAULT 0,
            wins INTEGER NOT NULL DEFAULT 0,
            filled INTEGER NOT NULL DEFAULT 0,
            failed INTEGER NOT NULL DEFAULT 0,
            invited INTEGER NOT NULL DEFAULT 0,
            responded INTEGER NOT NULL DEFAULT 0,
            won_volume TEXT NOT NULL DEFAULT '0'
          );
        `);
        const totals = new Map<
          string,
          { quotes: number; best: number; wins: number; filled: number; failed: number; invited: number; responded: number; volume: bigint }
        >();
        const entry = (solverId: string) => {
          let value = totals.get(solverId);
          if (value === undefined) {
            value = { quotes: 0, best: 0, wins: 0, filled: 0, failed: 0, invited: 0, responded: 0, volume: 0n };
            totals.set(solverId, value);
          }
          return value;
        };
        const quoteRows = db
          .prepare(
            `SELECT solver_id, COUNT(*) AS quotes, COALESCE(SUM(best_price), 0) AS best, COUNT(CASE WHEN status = 'accepted' THEN 1 END) AS wins,
               COUNT(CASE WHEN outcome = 'filled' THEN 1 END) AS filled, COUNT(CASE WHEN outcome = 'failed' THEN 1 END) AS failed
             FROM quotes GROUP BY solver_id`,
          )
          .all() as Array<{ solver_id: string; quotes: number; best: number; wins: number; filled: number; failed: number }>;
        for (const row of quoteRows)
          Object.assign(entry(row.solver_id), {
            quotes: Number(row.quotes),
            best: Number(row.best),
            wins: Number(row.wins),
            filled: Number(row.filled),
            failed: Number(row.failed),
          });
        const invitationRows = db
          .prepare(
            `SELECT solver_id, COUNT(*) AS invited, COUNT(CASE WHEN outcome IN ('quoted', 'declined') THEN 1 END) AS responded
             FROM rfq_invitations GROUP BY solver_id`,
          )
          .all() as Array<{ solver_id: string; invited: number; responded: number }>;
        for (const row of invitationRows)
          Object.assign(entry(row.solver_id), { invited: Number(row.invited), responded: Number(row.responded) });
        const won = db
          .prepare(
            `SELECT q.solver_id, q.input_amount, r.input_decimals FROM quotes q JOIN rfqs r ON r.id = q.rfq_id WHERE q.status = 'accepted'`,
          )
          .all() as Array<{ solver_id: string; input_amount: string; input_decimals: number }>;
        for (const row of won) entry(row.solver_id).volume += normalise(BigInt(row.input_amount), Number(row.input_decimals));
        const insert = db.prepare(
          `INSERT INTO solver_stats (solver_id, quotes, best_quotes, wins, filled, failed, invited, responded, won_volume)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        );
        for (const [solverId, t] of totals)
          insert.run(solverId, t.quotes, t.best, t.wins, t.filled, t.failed, t.invited, t.responded, t.volume.toString());
      },
    },
  ],
};
