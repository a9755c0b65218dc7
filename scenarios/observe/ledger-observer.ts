import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { GENESIS_HASH, type LedgerEntry, verifyChain } from '../../src/contracts/ledger/chain.js';
import { LedgerReader } from '../../src/contracts/ledger/reader.js';

/** `order.transition:Filled`, `compliance.check:kyc`: an entry's type with what distinguishes it. */
export function ledgerLabel(entry: Pick<LedgerEntry, 'type' | 'payload'>): string {
  const payload = entry.payload as Record<string, unknown>;
  const detail = typeof payload.to === 'string' ? payload.to : typeof payload.checkType === 'string' ? payload.checkType : undefined;
  return detail === undefined ? entry.type : `${entry.type}:${detail}`;
}

/**
 * The evidence ledger, read-only from the service's SQLite file (WAL lets the service keep writing) through the one
 * reader of the table (src/contracts/ledger/reader.ts). Verification
 * is incremental: each call recomputes the entries appended since the last one, chained to the last verified head,
 * so checking after every step stays cheap however long the ledger grows.
 */
export class LedgerObserver {
  private anchor: { sequence: number; hash: string } = { sequence: 0, hash: GENESIS_HASH };
  private db: Database.Database | undefined;
  private table: LedgerReader | undefined;

  private constructor(private readonly path: string) {}

  static open(path: string | undefined): LedgerObserver | undefined {
    if (path === undefined || !existsSync(path)) return undefined;
    return new LedgerObserver(path);
  }

  private connection(): LedgerReader {
    this.db ??= new Database(this.path, { readonly: true, fileMustExist: true });
    this.table ??= new LedgerReader(this.db);
    return this.table;
  }

  /** Recomputes the entries appended since the last call; names the first broken one. */
  verifyNew(): { ok: true; entries: number } | { ok: false; brokenAt: number; reason: string } {
    const rows = this.connection().after(this.anchor.sequence);
    const result = verifyChain(rows, this.anchor);
    if (!result.ok) return { ok: false, brokenAt: result.brokenAt, reason: result.reason };
    const last = rows[rows.length - 1];
    if (last !== undefined) this.anchor = { sequence: last.sequence, hash: last.hash };
    return { ok: true, entries: this.anchor.sequence };
  }

  /** Labels of one trade's entries, in sequence order. */
  labelsOf(tradeId: string): string[] {
    return this.connection().forTrade(tradeId).map(ledgerLabel);
  }

  close(): void {
    this.db?.close();
    this.db = undefined;
    this.table = undefined;
  }
}
