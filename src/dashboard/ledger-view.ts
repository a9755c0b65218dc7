/** Evidence ledger entries as the audit route returns them, in sequence order. Pure. */
import type { LedgerEntryView } from './ledger-verify.js';
import { isObject, list, num, str } from './read.js';

export function ledgerEntriesFrom(body: unknown): LedgerEntryView[] {
  const entries = list(body, 'entries', 'data', 'ledger', 'audit').flatMap((item): LedgerEntryView[] => {
    const sequence = num(item, 'sequence', 'wormSequence');
    const hash = str(item, 'hash');
    const prevHash = str(item, 'prevHash', 'prev_hash');
    const type = str(item, 'type');
    const tradeId = str(item, 'tradeId', 'trade_id');
    const recordedAt = str(item, 'recordedAt', 'recorded_at', 'timestamp');
    if (sequence === undefined || hash === undefined || prevHash === undefined || type === undefined) return [];
    if (tradeId === undefined || recordedAt === undefined || !isObject(item)) return [];
    return [{ sequence, hash, prevHash, type, tradeId, recordedAt, payload: item.payload }];
  });
  return entries.sort((a, b) => a.sequence - b.sequence);
}

/** Entries of several trades (the RFQ's and the order's) merged without duplicates. */
export function mergeLedgerEntries(...sets: LedgerEntryView[][]): LedgerEntryView[] {
  const bySequence = new Map<number, LedgerEntryView>();
  for (const set of sets) for (const entry of set) bySequence.set(entry.sequence, entry);
  return [...bySequence.values()].sort((a, b) => a.sequence - b.sequence);
}
