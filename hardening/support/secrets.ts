/**
 * Looks for secrets where they must not be: the service's log files, and the bytes of its SQLite files (the
 * database and its WAL, free pages included, so a value deleted or overwritten still counts). A secret is searched
 * as given and, for hex secrets, without its 0x prefix; API keys also by the first 40 characters of their secret
 * part, which a near-miss credential of the fuzz campaign (one character changed at the end) shares.
 */
import { existsSync, readFileSync } from 'node:fs';

export interface Secret {
  /** What it is, for the report: `API key`, `session token`, `relayer private key`, … */
  kind: string;
  value: string;
}

export interface SecretHit {
  kind: string;
  file: string;
}

function needles(secret: Secret): string[] {
  const out = new Set<string>([secret.value]);
  if (/^0x[0-9a-fA-F]{64}$/.test(secret.value)) out.add(secret.value.slice(2));
  const apiKey = /^svc_(test|live)_[0-9a-z]{16}_([0-9a-f]{64})$/.exec(secret.value);
  if (apiKey) out.add(apiKey[2]!.slice(0, 40));
  // A JWT's signature is what makes it a credential.
  const jwt = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.([A-Za-z0-9_-]{20,})$/.exec(secret.value);
  if (jwt) out.add(jwt[1]!);
  return [...out];
}

export function scanFiles(files: readonly string[], secrets: readonly Secret[]): SecretHit[] {
  const hits: SecretHit[] = [];
  for (const file of files) {
    if (!existsSync(file)) continue;
    const bytes = readFileSync(file);
    for (const secret of secrets) {
      if (needles(secret).some((needle) => bytes.includes(Buffer.from(needle, 'utf8')))) hits.push({ kind: secret.kind, file });
    }
  }
  return hits;
}

/** The store's files: the database, its WAL and shared memory. */
export function storeFiles(path: string): string[] {
  return [path, `${path}-wal`, `${path}-shm`];
}
