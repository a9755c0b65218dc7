import { BaseError } from '../contracts/errors/base-error.js';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LedgerReader } from '../contracts/ledger/reader.js';

/**
 * Verifies the evidence ledger of a service store from outside the service: the SQLite file of a sandbox (or a
 * copy of it), or a Postgres store, opened read-only while the service may keep writing. `sandbox ledger verify`
 * and the hardening campaigns read it through here.
 */

export interface LedgerVerification {
  /** The SQLite file that was read, or the Postgres database (its URL without the password). */
  path: string;
  ok: boolean;
  /** Entries read (up to and including the first broken one). */
  entries: number;
  /** Hash of the last entry when intact: the head every evidence hash chains to. */
  head?: string;
  /** Sequence of the first broken entry. */
  brokenAt?: number;
  reason?: string;
}

export class LedgerFileError extends BaseError {
  override readonly name = 'LedgerFileError';
  override readonly code = 'ledger_unreadable';
  override readonly docsPath = 'docs/orders-and-settlement.md';
}

/** The service store of a sandbox state folder (`<state>/service/service.sqlite`). */
export function ledgerStorePath(stateDir: string): string {
  return join(resolve(stateDir), 'service', 'service.sqlite');
}

function verification(where: string, reader: LedgerReader): LedgerVerification {
  const result = reader.verify();
  return result.ok
    ? { path: where, ok: true, entries: result.entries, head: result.head }
    : { path: where, ok: false, entries: result.entries, brokenAt: result.brokenAt, reason: result.reason };
}

/**
 * Recomputes the hash chain from the SQLite file, read-only (a running service may keep writing: WAL lets both
 * work). Names the first entry whose sequence, link to its predecessor or content hash is wrong.
 */
export async function verifyLedgerFile(path: string): Promise<LedgerVerification> {
  if (!existsSync(path)) throw new LedgerFileError(`no service store at ${path}: has \`sandbox up\` run with this --state-dir?`);
  const { default: Database } = await import('better-sqlite3');
  let db: InstanceType<typeof Database>;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new LedgerFileError(`cannot open ${path}: ${(error as Error).message}`);
  }
  try {
    const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ledger_entries'").get();
    if (hasTable === undefined) throw new LedgerFileError(`${path} has no evidence ledger`);
    return verification(path, new LedgerReader(db));
  } finally {
    db.close();
  }
}

/** Recomputes the hash chain from a Postgres store (the service may keep writing meanwhile). */
export async function verifyLedgerDatabase(url: string): Promise<LedgerVerification> {
  const [{ SyncPostgresConnection }, { PostgresDatabase }, { redactUrl }] = await Promise.all([
    import('../service/store/postgres/sync-connection.js'),
    import('../service/store/postgres/database.js'),
    import('../service/store/sql.js'),
  ]);
  const where = redactUrl(url);
  const db = new PostgresDatabase(new SyncPostgresConnection({ url, timeoutMs: 10_000 }), false);
  try {
    let hasTable: unknown;
    try {
      hasTable = db.prepare("SELECT to_regclass('ledger_entries') IS NOT NULL AS present").get();
    } catch (error) {
      throw new LedgerFileError(`cannot read ${where}: ${(error as Error).message}`);
    }
    if ((hasTable as { present: boolean }).present !== true) throw new LedgerFileError(`${where} has no evidence ledger`);
    return verification(where, new LedgerReader(db));
  } finally {
    db.close();
  }
}
