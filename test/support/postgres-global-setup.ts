import { startScratchPostgres } from '../../src/service/store/postgres/local-server.js';
import { TEST_DATABASE_URL_VARIABLE } from '../../src/service/store/store.js';

/**
 * `SANDBOX_TEST_STORE=postgres npx vitest run …` runs the chosen tests with every store on Postgres: one throwaway
 * server for the run (Debian's binaries), each store a schema of its own. Without the variable the suite runs on
 * SQLite and this does nothing.
 */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.SANDBOX_TEST_STORE !== 'postgres' || process.env[TEST_DATABASE_URL_VARIABLE] !== undefined) return undefined;
  const server = await startScratchPostgres();
  process.env[TEST_DATABASE_URL_VARIABLE] = server.url;
  return () => server.stop();
}
