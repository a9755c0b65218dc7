/**
 * Reports are handed to other people: no credential may appear in one in full. A redactor knows the secrets the
 * caller handed over (API key, taker and solver private keys, webhook secrets) and recognises the shapes of those
 * a target hands out during the run (API keys, webhook secrets, WebSocket tokens, session JWTs). Each is replaced
 * by a short prefix and its length (`svc_test_ab…(97)`), enough to tell two apart and never enough to use one.
 */

/** Credential shapes the service hands out; the prefix kept is the part before the secret begins. */
const SHAPES: ReadonlyArray<{ pattern: RegExp; keep: (match: string) => number }> = [
  // API keys `svc_<env>_<id>_<hex>` and solver-stream tokens `wst_<env>_<hex>`.
  { pattern: /\b(?:svc|wst)_(?:test|live)_[A-Za-z0-9_]{8,}/g, keep: (m) => m.indexOf('_', 4) + 3 },
  // Webhook signing secrets.
  { pattern: /\bwhsec_[A-Za-z0-9_+/=-]{8,}/g, keep: () => 8 },
  // Session tokens (JWTs: three base64url parts).
  { pattern: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, keep: () => 5 },
];

const MARK = '…(';

/** `svc_test_ab…(97)`: the first `keep` characters and the length. */
export function redactSecret(secret: string, keep = 4): string {
  return `${secret.slice(0, Math.min(keep, Math.floor(secret.length / 3)))}${MARK}${secret.length})`;
}

function knownPrefix(secret: string): number {
  for (const shape of SHAPES) {
    shape.pattern.lastIndex = 0;
    const match = shape.pattern.exec(secret);
    if (match?.index === 0 && match[0].length === secret.length) return shape.keep(secret);
  }
  return secret.startsWith('0x') ? 6 : 4;
}

export class Redactor {
  private readonly secrets = new Set<string>();

  constructor(secrets: Iterable<string | undefined> = []) {
    for (const secret of secrets) this.add(secret);
  }

  /** A secret to hide wherever it appears (too-short values would hide ordinary text and are ignored). */
  add(secret: string | undefined): void {
    if (secret === undefined || secret.length < 8) return;
    this.secrets.add(secret);
    // A private key may appear without its 0x, or in another case.
    if (/^0x[0-9a-fA-F]{64}$/.test(secret)) {
      this.secrets.add(secret.slice(2));
      this.secrets.add(secret.slice(2).toLowerCase());
      this.secrets.add(secret.toLowerCase());
    }
  }

  text(value: string): string {
    let out = value;
    // Longest first, so a secret that contains another is replaced whole.
    for (const secret of [...this.secrets].sort((a, b) => b.length - a.length)) {
      if (out.includes(secret)) out = out.split(secret).join(redactSecret(secret, knownPrefix(secret)));
    }
    for (const shape of SHAPES) out = out.replace(shape.pattern, (match) => redactSecret(match, shape.keep(match)));
    return out;
  }

  /** A deep copy with every string (and every object key) redacted. */
  value<T>(value: T): T {
    return this.walk(value) as T;
  }

  private walk(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.walk(item));
    if (value instanceof Set || value instanceof Map) return value;
    if (typeof value === 'object' && value !== null) {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) out[this.text(key)] = this.walk(item);
      return out;
    }
    return value;
  }
}
