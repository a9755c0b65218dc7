/**
 * The read side of the evidence ledger's table, `ledger_entries`: its row layout and its queries, on any SQL handle
 * that prepares statements (the service's store, a read-only better-sqlite3 handle on a copied file, the service's
 * Postgres connection). The service appends through its repository; `sandbox ledger verify`, the scenario observer
 * and the hardening campaigns read through this one reader. The table's schema (migration, append-only triggers)
 * stays with the service's ledger module.
 */
import type { CanonicalValue } from './canonical.js';
import { GENESIS_HASH, type LedgerEntry, verifyChain, type VerifyResult } from './chain.js';

/** What the reader needs of a database handle: better-sqlite3's `Database` and the service's `SqlDatabase` both fit. */
export interface LedgerSql {
  prepare(sql: string): {
    get(...params: unknown[]): unknown;
    all(...params: unknown[]): unknown[];
    iterate(...params: unknown[]): Iterable<unknown>;
  };
}

interface LedgerRow {
  sequence: number;
  prev_hash: string;
  hash: string;
  type: string;
  trade_id: string;
  recorded_at: string;
  payload: unknown;
}

function fromRow(row: LedgerRow): LedgerEntry {
  let payload: LedgerEntry['payload'];
  try {
    // A BLOB where the text belongs is a hand edit too (one bit of the record header turns TEXT into BLOB), and
    // JSON.parse would silently read its bytes as the same text: refuse anything but text.
    if (typeof row.payload !== 'string') throw new TypeError('the payload is not stored as text');
    payload = JSON.parse(row.payload) as { [key: string]: CanonicalValue };
  } catch {
    // A hand-edited row may not even parse: keep the raw text so verification reports it instead of crashing.
    payload = {
      unparseable:
        typeof row.payload === 'string' ? row.payload : `<stored as ${Buffer.isBuffer(row.payload) ? 'blob' : typeof row.payload}>`,
    };
  }
  return {
    sequence: row.sequence,
    prevHash: row.prev_hash,
    hash: row.hash,
    type: row.type,
    tradeId: row.trade_id,
    recordedAt: row.recorded_at,
    payload,
  };
}

export class LedgerReader {
  constructor(private readonly db: LedgerSql) {}

  head(): LedgerEntry | undefined {
    return this.one('SELECT * FROM ledger_entries ORDER BY sequence DESC LIMIT 1');
  }

  get(sequence: number): LedgerEntry | undefined {
    return this.one('SELECT * FROM ledger_entries WHERE sequence = ?', sequence);
  }

  forTrade(tradeId: string): LedgerEntry[] {
    return this.many('SELECT * FROM ledger_entries WHERE trade_id = ? ORDER BY sequence', tradeId);
  }

  /** Latest entry of a trade: its hash is the trade's evidence head (`evidenceHash`). */
  latestForTrade(tradeId: string): LedgerEntry | undefined {
    return this.one('SELECT * FROM ledger_entries WHERE trade_id = ? ORDER BY sequence DESC LIMIT 1', tradeId);
  }

  /** Entries after `sequence`, in order: an incremental verifier's next run. */
  after(sequence: number): LedgerEntry[] {
    return this.many('SELECT * FROM ledger_entries WHERE sequence > ? ORDER BY sequence', sequence);
  }

  /** Entries of one type (e.g. `order.transition`), in order. */
  ofType(type: string): LedgerEntry[] {
    return this.many('SELECT * FROM ledger_entries WHERE type = ? ORDER BY sequence', type);
  }

  *iterate(): Generator<LedgerEntry> {
    for (const row of this.db.prepare('SELECT * FROM ledger_entries ORDER BY sequence').iterate()) yield fromRow(row as LedgerRow);
  }

  count(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM ledger_entries').get() as { n: number }).n;
  }

  /** Recomputes the whole chain from the genesis hash (or the entries after a verified `anchor`). */
  verify(anchor: Pick<LedgerEntry, 'sequence' | 'hash'> = { sequence: 0, hash: GENESIS_HASH }): VerifyResult {
    return verifyChain(anchor.sequence === 0 ? this.iterate() : this.after(anchor.sequence), anchor);
  }

  private one(sql: string, ...params: unknown[]): LedgerEntry | undefined {
    const row = this.db.prepare(sql).get(...params) as LedgerRow | undefined;
    return row === undefined ? undefined : fromRow(row);
  }

  private many(sql: string, ...params: unknown[]): LedgerEntry[] {
    return (this.db.prepare(sql).all(...params) as LedgerRow[]).map(fromRow);
  }
}
