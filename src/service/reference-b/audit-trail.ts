import { type LedgerEntry, GENESIS_HASH, verifyEntries } from '../../contracts/ledger/chain.js';
import type { LedgerRepository } from '../ledger/repository.js';
import type { Trade } from './trades.js';

/** How a client recomputes an entry's hash; the same rule `src/contracts/ledger/chain.ts` implements. */
export const HASH_RULE = {
  algorithm: 'sha256',
  hash: '"0x" + lowercase hex of sha256(UTF-8 bytes of the preimage)',
  preimage:
    'canonical JSON of {sequence, prevHash, type, tradeId, recordedAt, payload}: object keys sorted by UTF-16 code unit, ' +
    'no whitespace, strings JSON-escaped, numbers only as safe integers, fields whose value is absent left out',
  link: "each entry's prevHash is the hash of the entry with the previous sequence; the first entry's prevHash is the genesis hash",
  genesisHash: GENESIS_HASH,
} as const;

export interface EntryHeader {
  sequence: number;
  hash: string;
  prevHash: string;
}

export interface AuditEntry extends LedgerEntry {
  /** The entry before it in the whole ledger (its hash is this entry's prevHash) and the one after (which links to it). */
  neighbours: { previous: EntryHeader | null; next: EntryHeader | null };
}

export interface AuditTrail {
  trade: Trade;
  entries: AuditEntry[];
  head: EntryHeader | null;
  selfCheck: { ok: boolean; invalid: number[]; linkedPairs: number };
}

function header(entry: LedgerEntry | undefined): EntryHeader | null {
  return entry === undefined ? null : { sequence: entry.sequence, hash: entry.hash, prevHash: entry.prevHash };
}

/**
 * The complete WORM entry set of a trade: the RFQ's entries (request, collected quotes), compliance checks recorded
 * against its quotes, and the order's (creation, compliance, each transition, the settlement audit), in ledger
 * order. Entries of a trade are interleaved with other trades' in the one chain, so each entry comes with the headers
 * of its ledger neighbours: a client recomputes every hash from the entry itself, checks that consecutive entries of
 * the set link, and that each entry is followed by one that commits to its hash. Other trades' contents stay out.
 */
export class AuditTrails {
  constructor(private readonly ledger: LedgerRepository) {}

  of(trade: Trade): AuditTrail {
    const ids = new Set([trade.rfqId, ...trade.quoteIds, ...(trade.order === undefined ? [] : [trade.order.id])]);
    const bySequence = new Map<number, LedgerEntry>();
    for (const id of ids) for (const entry of this.ledger.forTrade(id)) bySequence.set(entry.sequence, entry);
    const ordered = [...bySequence.values()].sort((a, b) => a.sequence - b.sequence);
    const entries: AuditEntry[] = ordered.map((entry) => ({
      ...entry,
      neighbours: {
        previous: entry.sequence > 1 ? header(bySequence.get(entry.sequence - 1) ?? this.ledger.get(entry.sequence - 1)) : null,
        next: header(bySequence.get(entry.sequence + 1) ?? this.ledger.get(entry.sequence + 1)),
      },
    }));
    const check = verifyEntries(ordered);
    let linkedPairs = 0;
    for (const entry of entries) if (entry.neighbours.next !== null && entry.neighbours.next.prevHash === entry.hash) linkedPairs++;
    return { trade, entries, head: header(this.ledger.head()), selfCheck: { ok: check.ok, invalid: check.invalid, linkedPairs } };
  }
}
