/**
 * Checks evidence ledger entries in the browser with the page's own code, not the service's: the same canonical
 * JSON (keys sorted by UTF-16 code unit, no whitespace, safe integers only) over {sequence, prevHash, type,
 * tradeId, recordedAt, payload}, hashed with WebCrypto SHA-256. A service that rewrote an entry cannot also make
 * this page agree.
 */

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

export class CanonicalJsonError extends Error {
  override readonly name = 'CanonicalJsonError';
}

export function canonicalJson(value: unknown, path = '$'): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isSafeInteger(value)) throw new CanonicalJsonError(`${path}: only safe integers may be numbers`);
      return String(value);
    case 'string':
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) return `[${value.map((item, i) => canonicalJson(item, `${path}[${i}]`)).join(',')}]`;
      const object = value as Record<string, unknown>;
      const keys = Object.keys(object)
        .filter((key) => object[key] !== undefined)
        .sort();
      return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(object[key], `${path}.${key}`)}`).join(',')}}`;
    }
    default:
      throw new CanonicalJsonError(`${path}: cannot encode a ${typeof value}`);
  }
}

export function entryPreimage(entry: LedgerEntryView): string {
  return canonicalJson({
    sequence: entry.sequence,
    prevHash: entry.prevHash,
    type: entry.type,
    tradeId: entry.tradeId,
    recordedAt: entry.recordedAt,
    payload: entry.payload,
  });
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
