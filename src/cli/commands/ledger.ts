import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { readManifest } from '../../devnet/manifest-file.js';
import { stateLayout } from '../../devnet/state-dir.js';
import { action, green, red, type GlobalOptions, type Output, UsageError } from '../output.js';

const DOCS = 'docs/orders-and-settlement.md';

/**
 * Which store the sandbox of a state folder keeps: `--database-url`, else `DATABASE_URL`, else sandbox.json's store
 * when it is Postgres (usable as written when it has no password: the sandbox's own server), else the SQLite file.
 */
async function ledgerSource(stateDir: string, databaseUrl: string | undefined): Promise<{ url: string } | { path: string }> {
  const [{ isPostgresUrl }, { LedgerFileError, ledgerStorePath }] = await Promise.all([
    import('../../service/store/sql.js'),
    import('../../sandbox/ledger-file.js'),
  ]);
  if (databaseUrl !== undefined) {
    if (!isPostgresUrl(databaseUrl))
      throw new UsageError(`--database-url: "${databaseUrl}" is not a postgres:// or postgresql:// URL`, DOCS);
    return { url: databaseUrl };
  }
  const store = existsSync(stateLayout(stateDir).manifest) ? readManifest(stateDir).api?.store : undefined;
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
    .action(action(verify, { docsPath: DOCS }));
}

async function verify(output: Output, globals: GlobalOptions, flags: { databaseUrl?: string }): Promise<void> {
  const source = await ledgerSource(globals.stateDir, flags.databaseUrl);
  const { verifyLedgerDatabase, verifyLedgerFile } = await import('../../sandbox/ledger-file.js');
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
