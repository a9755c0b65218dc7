import type { SqlStatement as Statement } from '../store/sql.js';
import type { MigrationSet } from '../store/migrations.js';
import type { Store } from '../store/store.js';
import { type LedgerEntry, type LedgerRecord, sealEntry, type VerifyResult } from '../../contracts/ledger/chain.js';
import { LedgerReader } from '../../contracts/ledger/reader.js';

/**
 * The WORM evidence ledger table. Triggers refuse UPDATE and DELETE, so even a bug in the service cannot rewrite
 * history through SQL; only someone editing the file by hand can, and `verify` names the first broken entry.
 */
const SQLITE_APPEND_ONLY = `
  CREATE TRIGGER ledger_entries_no_update BEFORE UPDATE ON ledger_entries
    BEGIN SELECT RAISE(ABORT, 'ledger entries are append-only'); END;
  CREATE TRIGGER ledger_entries_no_delete BEFORE DELETE ON ledger_entries
    BEGIN SELECT RAISE(ABORT, 'ledger entries are append-only'); END;
`;

/** Postgres has TRUNCATE as well, which skips row triggers: a statement trigger refuses it. */
const POSTGRES_APPEND_ONLY = `
  CREATE FUNCTION ledger_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'ledger entries are append-only'; END
  $$;
  CREATE TRIGGER ledger_entries_no_update BEFORE UPDATE OR DELETE ON ledger_entries
    FOR EACH ROW EXECUTE FUNCTION ledger_entries_append_only();
  CREATE TRIGGER ledger_entries_no_truncate BEFORE TRUNCATE ON ledger_entries
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_entries_append_only();
`;

export const ledgerMigrations: MigrationSet = {
  module: 'ledger',
  migrations: [
    {
      name: '001_ledger_entries',
      up: (db) => {
        db.exec(`
          CREATE TABLE ledger_entries (
            sequence INTEGER PRIMARY KEY,
            prev_hash TEXT NOT NULL,
            hash TEXT NOT NULL UNIQUE,
            type TEXT NOT NULL,
            trade_id TEXT NOT NULL,
            recorded_at TEXT NOT NULL,
            payload TEXT NOT NULL
          );
          CREATE INDEX ledger_by_trade ON ledger_entries (trade_id, sequence);
        `);
        db.exec(db.dialect === 'postgres' ? POSTGRES_APPEND_ONLY : SQLITE_APPEND_ONLY);
      },
    },
  ],
};

export type LedgerListener = (entry: LedgerEntry) => void;

export class LedgerRepository {
  private readonly listeners = new Set<LedgerListener>();
  // Prepared once: appends run inside every state change of every order.
  private readonly statements: {
    insert: Statement;
    headLink: Statement;
  };

  /** Reads go through the one reader of the table (contracts/ledger/reader.ts); appends stay here. */
  private readonly reader: LedgerReader;

  constructor(private readonly store: Store) {
    this.reader = new LedgerReader(store.db);
    this.statements = {
      insert: store.db.prepare(
        'INSERT INTO ledger_entries (sequence, prev_hash, hash, type, trade_id, recorded_at, payload) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      // Only the link of the head: an append needs its sequence and hash, not its parsed payload.
      headLink: store.db.prepare('SELECT sequence, hash FROM ledger_entries ORDER BY sequence DESC LIMIT 1'),
    };
  }

  /**
   * Appends one entry after the current head. Call it inside the `store.transaction` that makes the state change
   * it records, so the evidence and the change commit together.
   */
  append(record: LedgerRecord): LedgerEntry {
    // The head must stay the head until this transaction commits: entries are linked in commit order.
    this.store.holdWriteLock();
    const head = this.statements.headLink.get() as { sequence: number; hash: string } | undefined;
    const entry = sealEntry(record, head);
    this.statements.insert.run(
      entry.sequence,
      entry.prevHash,
      entry.hash,
      entry.type,
      entry.tradeId,
      entry.recordedAt,
      JSON.stringify(entry.payload),
    );
    for (const listener of this.listeners) listener(entry);
    return entry;
  }

  /** Called for each appended entry, inside the appending transaction (e.g. to add an `audit.recorded` event). */
  onAppend(listener: LedgerListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  head(): LedgerEntry | undefined {
    return this.reader.head();
  }

  get(sequence: number): LedgerEntry | undefined {
    return this.reader.get(sequence);
  }

  forTrade(tradeId: string): LedgerEntry[] {
    return this.reader.forTrade(tradeId);
  }

  /** Latest entry of a trade: its hash is the trade's evidence head (`evidenceHash`). */
  latestForTrade(tradeId: string): LedgerEntry | undefined {
    return this.reader.latestForTrade(tradeId);
  }

  iterate(): Generator<LedgerEntry> {
    return this.reader.iterate();
  }

  count(): number {
    return this.reader.count();
  }

  /** Recomputes the whole chain from the genesis hash. */
  verify(): VerifyResult {
    return this.reader.verify();
  }
}
