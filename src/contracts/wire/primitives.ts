import { getAddress } from 'viem';
import { z } from 'zod';

/** Wire primitives shared by the service's schemas and the clients that derive their types from them. */

export const Address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address')
  .meta({ description: 'EVM address, 0x + 40 hex digits.' });

export const HexBytes = z
  .string()
  .regex(/^0x([0-9a-fA-F]{2})*$/, 'must be 0x-prefixed hex bytes')
  .meta({ description: '0x-prefixed hex bytes.' });

/** Amounts are integer strings in the token's smallest unit (they exceed 2^53). */
export const UintString = z
  .string()
  .regex(/^(0|[1-9][0-9]*)$/, 'must be a non-negative integer string')
  .max(78)
  .meta({ description: 'Unsigned integer as a decimal string, smallest token unit.' });

export const PositiveUintString = z
  .string()
  .regex(/^[1-9][0-9]*$/, 'must be a positive integer string')
  .max(78)
  .meta({ description: 'Positive integer as a decimal string, smallest token unit.' });

export const ChainId = z
  .number()
  .int()
  .positive()
  .max(2 ** 53 - 1)
  .meta({ description: 'EVM chain id.' });

/**
 * An address from the wire in its EIP-55 form. `Address` accepts any letter case (the document asks for 40 hex digits,
 * not a checksum), so a mixed-case address with a wrong checksum is normalised here instead of failing later in an
 * encoder that insists on a valid checksum.
 */
export function checksummed(address: string): `0x${string}` {
  return getAddress(address.toLowerCase());
}

export const IsoTimestamp = z.iso.datetime({ offset: false }).meta({ description: 'ISO-8601 UTC timestamp.' });

/** Clock milliseconds → the ISO string used on the wire. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * A character JavaScript's `trim` keeps (not whitespace), spelled out: `\S` means different characters to different
 * regex engines (U+FEFF is whitespace to JavaScript, not to Python), and a generator that follows the document must
 * not be refused.
 */
const NOT_WHITESPACE = /[^\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/;

/**
 * A name or label that must not be blank: at most `max` characters as sent, one of them not whitespace, stored
 * trimmed. The checks apply to the text as sent, so the document's `maxLength` and `pattern` are exactly what is
 * accepted (trimming first had let `" "` pass `minLength: 1` in the document and fail in the service).
 */
export function nonBlankText(max: number) {
  return z
    .string()
    .max(max)
    .regex(NOT_WHITESPACE, 'must not be blank')
    .transform((text) => text.trim());
}
