import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { GENESIS_HASH, type LedgerEntry, verifyChain } from '../../src/contracts/ledger/chain.js';

interface LedgerRow {
  sequence: number;
  prev_hash: string;
  hash: string;
  type: string;
  trade_id: string;
  recorded_at: string;
  payload: string;
}

function entryOf(row: LedgerRow): LedgerEntry {
  return {
    sequence: row.sequence,
    prevHash: row.prev_hash,
    hash: row.hash,
    type: row.type,
    tradeId: row.trade_id,
    recordedAt: row.recorded_at,
    payload: JSON.parse(row.payload) as LedgerEntry['payload'],
  };
}

/** `order.transition:Filled`, `compliance.check:kyc`: an entry's type with what distinguishes it. */
export function ledgerLabel(entry: Pick<LedgerEntry, 'type' | 'payload'>): string {
  const payload = entry.payload as Record<string, unknown>;
  const detail = typeof payload.to === 'string' ? payload.to : typeof payload.checkType === 'string' ? payload.checkType : undefined;
  return detail === undefined ? entry.type : `${entry.type}:${detail}`;
}

/**
 * The evidence ledger, read-only from the service's SQLite file (WAL lets the service keep writing). Verification
 * is incremental: each call recomputes the entries appended since the last one, chained to the last verified head,
 * so checking after every step stays cheap however long the ledger grows.
 */
export class LedgerReader {
  private anchor: { sequence: number; hash: string } = { sequence: 0, hash: GENESIS_HASH };
  private db: Database.Database | undefined;

  private constructor(private readonly path: string) {}

  static open(path: string | undefined): LedgerReader | undefined {
    if (path === undefined || !existsSync(path)) return undefined;
    return new LedgerReader(path);
  }

  private connection(): Database.Database {
    this.db ??= new Database(this.path, { readonly: true, fileMustExist: true });
    return this.db;
  }

  /** Recomputes the entries appended since the last call; names the first broken one. */
  verifyNew(): { ok: true; entries: number } | { ok: false; brokenAt: number; reason: string } {
    const rows = this.connection()
      .prepare('SELECT * FROM ledger_entries WHERE sequence > ? ORDER BY sequence')
      .all(this.anchor.sequence) as LedgerRow[];
    const result = verifyChain(rows.map(entryOf), this.anchor);
    if (!result.ok) return { ok: false, brokenAt: result.brokenAt, reason: result.reason };
    const last = rows[rows.length - 1];
    if (last !== undefined) this.anchor = { sequence: last.sequence, hash: last.hash };
    return { ok: true, entries: this.anchor.sequence };
  }

  /** Labels of one trade's entries, in sequence order. */
  labelsOf(tradeId: string): string[] {
    const rows = this.connection().prepare('SELECT * FROM ledger_entries WHERE trade_id = ? ORDER BY sequence').all(tradeId) as LedgerRow[];
    return rows.map((row) => ledgerLabel(entryOf(row)));
  }

  close(): void {
    this.db?.close();
    this.db = undefined;
  }
}
