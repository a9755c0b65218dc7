/**
 * The evidence ledger's hash chain: each entry commits to its content and to the previous entry's hash.
 * Pure functions shared by the store (append), `sandbox ledger verify`, the audit route and any client.
 */
import { createHash } from 'node:crypto';
import { entryPreimage, GENESIS_HASH, type LedgerEntry, type LedgerRecord } from './entry.js';

export { entryPreimage, GENESIS_HASH, type LedgerEntry, type LedgerRecord } from './entry.js';

export function hashEntry(entry: Omit<LedgerEntry, 'hash'>): string {
  return `0x${createHash('sha256').update(entryPreimage(entry)).digest('hex')}`;
}

/** Seals a record as the entry after `previous` (or the first entry). */
export function sealEntry(record: LedgerRecord, previous: Pick<LedgerEntry, 'sequence' | 'hash'> | undefined): LedgerEntry {
  const unsealed = { ...record, sequence: previous ? previous.sequence + 1 : 1, prevHash: previous?.hash ?? GENESIS_HASH };
  return { ...unsealed, hash: hashEntry(unsealed) };
}

export type VerifyResult = { ok: true; entries: number; head: string } | { ok: false; entries: number; brokenAt: number; reason: string };

/**
 * Recomputes the chain. `entries` must be the whole ledger in sequence order (or a contiguous run starting after
 * `anchor`). Names the first entry whose sequence, link or hash is wrong.
 */
export function verifyChain(
  entries: Iterable<LedgerEntry>,
  anchor: Pick<LedgerEntry, 'sequence' | 'hash'> = { sequence: 0, hash: GENESIS_HASH },
): VerifyResult {
  let previous = anchor;
  let count = 0;
  for (const entry of entries) {
    count++;
    if (entry.sequence !== previous.sequence + 1) {
      return { ok: false, entries: count, brokenAt: entry.sequence, reason: `sequence ${entry.sequence} follows ${previous.sequence}` };
    }
    if (entry.prevHash !== previous.hash) {
      return { ok: false, entries: count, brokenAt: entry.sequence, reason: 'prevHash does not match the previous entry' };
    }
    let recomputed: string;
    try {
      recomputed = hashEntry(entry);
    } catch (error) {
      return { ok: false, entries: count, brokenAt: entry.sequence, reason: `content cannot be encoded: ${(error as Error).message}` };
    }
    if (recomputed !== entry.hash) {
      return { ok: false, entries: count, brokenAt: entry.sequence, reason: 'hash does not match the content' };
    }
    previous = entry;
  }
  return { ok: true, entries: count, head: previous.hash };
}

/**
 * Verifies a subset of entries (one trade's audit set): each entry's own hash must match its content. Linking to
 * the neighbours needs the whole chain (`verifyChain`).
 */
export function verifyEntries(entries: Iterable<LedgerEntry>): { ok: boolean; invalid: number[] } {
  const invalid: number[] = [];
  for (const entry of entries) {
    try {
      if (hashEntry(entry) !== entry.hash) invalid.push(entry.sequence);
    } catch {
      invalid.push(entry.sequence);
    }
  }
  return { ok: invalid.length === 0, invalid };
}
