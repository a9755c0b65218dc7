import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { VerifyResult } from '../../contracts/ledger/chain.js';
import { action, green, red, type GlobalOptions, type Output } from '../output.js';
import { BaseError } from '../../contracts/errors/base-error.js';

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
  constructor(message: string) {
    super(message);
  }
}

/** The service store of a sandbox state folder (`<state>/service/service.sqlite`). */
export function ledgerStorePath(stateDir: string): string {
  return join(resolve(stateDir), 'service', 'service.sqlite');
}

/**
 * Recomputes the evidence ledger's hash chain from the SQLite file, read-only (a running service may keep
 * writing: WAL lets both work). Names the first entry whose sequence, link to its predecessor or content hash
 * is wrong.
 */
export async function verifyLedgerFile(path: string): Promise<LedgerVerification> {
  if (!existsSync(path)) throw new LedgerFileError(`no service store at ${path}: has \`sandbox up\` run with this --state-dir?`);
  const { default: Database } = await import('better-sqlite3');
  const { LedgerRepository } = await import('../../service/ledger/repository.js');
  let db: InstanceType<typeof Database>;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new LedgerFileError(`cannot open ${path}: ${(error as Error).message}`);
  }
  try {
    const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ledger_entries'").get();
    if (hasTable === undefined) throw new LedgerFileError(`${path} has no evidence ledger`);
    // The repository reads through `store.db` only; a read-only handle is all it needs to iterate.
    const ledger = new LedgerRepository({ db } as unknown as ConstructorParameters<typeof LedgerRepository>[0]);
    const result: VerifyResult = ledger.verify();
    return result.ok
      ? { path, ok: true, entries: result.entries, head: result.head }
      : { path, ok: false, entries: result.entries, brokenAt: result.brokenAt, reason: result.reason };
  } finally {
    db.close();
  }
}

/** Recomputes the evidence ledger's hash chain from a Postgres store (the service may keep writing meanwhile). */
export async function verifyLedgerDatabase(url: string): Promise<LedgerVerification> {
  const [{ SyncPostgresConnection }, { PostgresDatabase }, { LedgerRepository }, { redactUrl }] = await Promise.all([
    import('../../service/store/postgres/sync-connection.js'),
    import('../../service/store/postgres/database.js'),
    import('../../service/ledger/repository.js'),
    import('../../service/store/sql.js'),
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
    // The repository reads through `store.db` only.
    const result = new LedgerRepository({ db } as unknown as ConstructorParameters<typeof LedgerRepository>[0]).verify();
    return result.ok
      ? { path: where, ok: true, entries: result.entries, head: result.head }
      : { path: where, ok: false, entries: result.entries, brokenAt: result.brokenAt, reason: result.reason };
  } finally {
    db.close();
  }
}

/**
 * Which store the sandbox of a state folder keeps: `--database-url`, else `DATABASE_URL`, else sandbox.json's store
 * when it is Postgres (usable as written when it has no password: the sandbox's own server), else the SQLite file.
 */
async function ledgerSource(stateDir: string, databaseUrl: string | undefined): Promise<{ url: string } | { path: string }> {
  const { isPostgresUrl } = await import('../../service/store/sql.js');
  if (databaseUrl !== undefined) {
    if (!isPostgresUrl(databaseUrl))
      throw new LedgerFileError(`--database-url: "${databaseUrl}" is not a postgres:// or postgresql:// URL`);
    return { url: databaseUrl };
  }
  const manifestPath = join(resolve(stateDir), 'sandbox.json');
  const store = existsSync(manifestPath)
    ? (JSON.parse(readFileSync(manifestPath, 'utf8')) as { api?: { store?: { kind: string; location: string } } }).api?.store
    : undefined;
  if (store?.kind === 'postgres') {
    if (isPostgresUrl(process.env.DATABASE_URL)) return { url: process.env.DATABASE_URL };
    if (store.location.includes(':***@')) {
      throw new LedgerFileError('the store is a Postgres database with a password: pass it with --database-url (or DATABASE_URL)');
    }
    return { url: store.location };
  }
  return { path: ledgerStorePath(stateDir) };
}

export function register(program: Command): void {
  const ledger = program.command('ledger').description('the WORM evidence ledger of the sandbox service');
  ledger
    .command('verify')
    .description('recompute the hash chain of every ledger entry; exit code 1 names the first broken entry')
    .option('--database-url <url>', "the Postgres store to read (default: the sandbox's store, from sandbox.json)")
    .action(action(verify));
}

async function verify(output: Output, globals: GlobalOptions, flags: { databaseUrl?: string }): Promise<void> {
  const source = await ledgerSource(globals.stateDir, flags.databaseUrl);
  const result = 'url' in source ? await verifyLedgerDatabase(source.url) : await verifyLedgerFile(source.path);
  if (!result.ok) process.exitCode = 1;
  output.result(
    () =>
      result.ok
        ? `${green('Ledger intact:')} ${result.entries} entr${result.entries === 1 ? 'y' : 'ies'}, head ${result.head ?? '(empty)'}`
        : `${red(`Ledger broken at entry #${result.brokenAt}:`)} ${result.reason}\n` +
          `  ${result.entries - 1} entr${result.entries === 2 ? 'y' : 'ies'} before it chain correctly; everything from #${result.brokenAt} on is unproven.`,
    result,
  );
}
