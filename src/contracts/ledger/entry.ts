/**
 * One evidence-ledger entry and the exact bytes hashed for it. Pure and browser-safe: the service seals entries with
 * it (chain.ts), `sandbox ledger verify` and the dashboard verify them with it (node:crypto or WebCrypto).
 */
import { type CanonicalValue, canonicalJson } from './canonical.js';

export const GENESIS_HASH = `0x${'0'.repeat(64)}` as const;

/** What a caller appends; the ledger assigns sequence, prevHash and hash. */
export interface LedgerRecord {
  /** Kind of evidence: `rfq.created`, `quotes.collected`, `compliance.check`, `order.created`, `order.transition`, ... */
  type: string;
  /** The trade the entry belongs to (order id, or RFQ id before an order exists). */
  tradeId: string;
  /** ISO-8601 time by the service clock. */
  recordedAt: string;
  payload: { readonly [key: string]: CanonicalValue | undefined };
}

export interface LedgerEntry extends LedgerRecord {
  sequence: number;
  prevHash: string;
  hash: string;
}

/** The exact bytes hashed for an entry. */
export function entryPreimage(entry: Omit<LedgerEntry, 'hash'>): string {
  return canonicalJson({
    sequence: entry.sequence,
    prevHash: entry.prevHash,
    type: entry.type,
    tradeId: entry.tradeId,
    recordedAt: entry.recordedAt,
    payload: entry.payload,
  });
}
