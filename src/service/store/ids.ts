import { randomBytes } from 'node:crypto';

/** Lowercase base32 without look-alikes (no i, l, o, u): ids read aloud or typed stay unambiguous. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** Resource prefixes of the interface spec, plus the platform's own. */
export type IdPrefix = 'ws' | 'qt' | 'ord' | 'slv' | 'wh' | 'req' | 'evt' | 'rfq' | 'stl' | 'usr' | 'ses' | (string & {});

function randomText(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[bytes[i]! & 31];
  return out;
}

/** `ord_3k9x…`: a prefix naming the resource type, then 24 random characters (120 bits). */
export function newId(prefix: IdPrefix, length = 24): string {
  return `${prefix}_${randomText(length)}`;
}

export function hasPrefix(id: string, prefix: IdPrefix): boolean {
  return id.startsWith(`${prefix}_`) && id.length > prefix.length + 1;
}
