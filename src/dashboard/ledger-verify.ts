/**
 * Checks evidence ledger entries in the browser: the protocol's canonical JSON (keys sorted by UTF-16 code unit, no
 * whitespace, safe integers only) over {sequence, prevHash, type, tradeId, recordedAt, payload}, hashed with
 * WebCrypto SHA-256 here, in the page, from the entries the API returned.
 */
import { entryPreimage as sharedPreimage, type LedgerEntry } from '../contracts/ledger/entry.js';

export interface LedgerEntryView {
  sequence: number;
  prevHash: string;
  hash: string;
  type: string;
  tradeId: string;
  recordedAt: string;
  payload: unknown;
}

export interface EntryVerification {
  sequence: number;
  /** The entry's hash matches its content; null when it could not be checked (no WebCrypto). */
  hashOk: boolean | null;
  /** prevHash equals the hash of the entry before it; null when that entry is not in the set. */
  linkOk: boolean | null;
  reason?: string;
}

/** The ledger's canonical JSON and preimage are the protocol's (src/contracts/ledger), shared with the service. */
export { CanonicalEncodingError as CanonicalJsonError, canonicalJson } from '../contracts/ledger/canonical.js';

/** The exact bytes hashed for an entry (the page receives payloads as plain JSON). */
export function entryPreimage(entry: LedgerEntryView): string {
  return sharedPreimage(entry as unknown as LedgerEntry);
}

export type Digest = (data: Uint8Array) => Promise<ArrayBuffer>;

/** WebCrypto exists only in secure contexts (loopback and https); elsewhere entries show as unchecked. */
export function webCryptoDigest(): Digest | undefined {
  const subtle = (globalThis as { crypto?: { subtle?: { digest(algorithm: string, data: Uint8Array): Promise<ArrayBuffer> } } }).crypto
    ?.subtle;
  return subtle === undefined ? undefined : (data) => subtle.digest('SHA-256', data);
}

export async function sha256Hex(text: string, digest: Digest): Promise<string> {
  const bytes = new Uint8Array(await digest(new TextEncoder().encode(text)));
  return `0x${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

/** Verifies each entry's hash and, where the neighbour is present, its link; entries in sequence order. */
export async function verifyLedgerEntries(
  entries: readonly LedgerEntryView[],
  /** null: no WebCrypto here; entries are reported unchecked rather than trusted. */
  digest: Digest | null = webCryptoDigest() ?? null,
): Promise<EntryVerification[]> {
  const bySequence = new Map(entries.map((entry) => [entry.sequence, entry]));
  const results: EntryVerification[] = [];
  for (const entry of entries) {
    const previous = bySequence.get(entry.sequence - 1);
    const linkOk =
      entry.sequence === 1 ? /^0x0{64}$/.test(entry.prevHash) : previous === undefined ? null : previous.hash === entry.prevHash;
    const result: EntryVerification = { sequence: entry.sequence, hashOk: null, linkOk };
    if (linkOk === false) result.reason = 'prevHash does not match the previous entry';
    if (digest === null) {
      result.reason ??= 'WebCrypto unavailable (open the page on localhost or 127.0.0.1)';
    } else {
      try {
        result.hashOk = (await sha256Hex(entryPreimage(entry), digest)) === entry.hash.toLowerCase();
        if (!result.hashOk) result.reason = 'hash does not match the content';
      } catch (error) {
        result.hashOk = false;
        result.reason = `content cannot be encoded: ${(error as Error).message}`;
      }
    }
    results.push(result);
  }
  return results;
}
