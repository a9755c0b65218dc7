import { BaseError } from '../errors/base-error.js';
/**
 * Canonical JSON for ledger hashing (the JCS idea, RFC 8785, restricted to what the ledger stores): object keys
 * sorted by code unit, no whitespace, integers only as numbers, everything else as JSON strings. Two parties that
 * hold the same entry compute the same bytes, so a client can verify the chain with its own code.
 */
export type CanonicalValue =
  | null
  | boolean
  | number
  | string
  | readonly CanonicalValue[]
  | { readonly [key: string]: CanonicalValue | undefined };

export class CanonicalEncodingError extends BaseError {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(`${message} at ${path}`);
    this.name = 'CanonicalEncodingError';
  }
}

export function canonicalJson(value: CanonicalValue, path = '$'): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      // Floats do not round-trip identically across languages; amounts travel as integer strings anyway.
      if (!Number.isSafeInteger(value)) throw new CanonicalEncodingError('only safe integers may be numbers', path);
      return String(value);
    case 'string':
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) {
        return `[${value.map((v, i) => canonicalJson(v as CanonicalValue, `${path}[${i}]`)).join(',')}]`;
      }
      const object = value as { readonly [key: string]: CanonicalValue | undefined };
      const keys = Object.keys(object)
        .filter((k) => object[k] !== undefined)
        .sort();
      return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(object[k] as CanonicalValue, `${path}.${k}`)}`).join(',')}}`;
    }
    default:
      throw new CanonicalEncodingError(`cannot encode a ${typeof value}`, path);
  }
}
