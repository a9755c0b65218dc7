import { randomBytes } from 'node:crypto';

/** Lowercase base32 without look-alikes (no i, l, o, u): ids read aloud or typed stay unambiguous. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** Resource prefixes of the interface spec, plus the platform's own. */
export type IdPrefix = 'ws' | 'qt' | 'ord' | 'slv' | 'wh' | 'req' | 'evt' | 'rfq' | 'stl' | 'usr' | 'ses' | (string & {});

/**
 * Random bytes drawn 4 KiB at a time: one call into the CSPRNG per id cost more than the id (a settled order mints
 * a dozen ids). Each byte is used once.
 */
const POOL_SIZE = 4_096;
let pool = Buffer.alloc(0);
let poolAt = 0;

function randomText(length: number): string {
  if (poolAt + length > pool.length) {
    pool = randomBytes(Math.max(POOL_SIZE, length));
    poolAt = 0;
  }
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[pool[poolAt + i]! & 31];
  poolAt += length;
  return out;
}

/** `ord_3k9x…`: a prefix naming the resource type, then 24 random characters (120 bits). */
export function newId(prefix: IdPrefix, length = 24): string {
  return `${prefix}_${randomText(length)}`;
}

export function hasPrefix(id: string, prefix: IdPrefix): boolean {
  return id.startsWith(`${prefix}_`) && id.length > prefix.length + 1;
}
