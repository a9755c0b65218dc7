import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalPostgres } from '../../src/service/store/postgres/local-server.js';
import { TEST_DATABASE_URL_VARIABLE } from '../../src/service/store/store.js';

/**
 * `SANDBOX_TEST_STORE=postgres npx vitest run …` runs the chosen tests with every `:memory:` store on Postgres: one
 * throwaway server for the run (Debian's binaries), each store a schema of its own. Without the variable the suite
 * runs on SQLite and this does nothing.
 */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.SANDBOX_TEST_STORE !== 'postgres' || process.env[TEST_DATABASE_URL_VARIABLE] !== undefined) return undefined;
  const root = mkdtempSync(join(tmpdir(), 'sandbox-pg-'));
  // As root the server runs as the postgres user, which must be able to enter the folder.
  chmodSync(root, 0o755);
  const server = await startLocalPostgres({ dataDir: join(root, 'data'), ephemeral: true });
  process.env[TEST_DATABASE_URL_VARIABLE] = server.url;
  return async () => {
    await server.stop();
    rmSync(root, { recursive: true, force: true });
  };
}
