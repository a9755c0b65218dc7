import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type LocalPostgres, startScratchPostgres } from '../../../src/service/store/postgres/local-server.js';
import { TEST_DATABASE_URL_VARIABLE } from '../../../src/service/store/store.js';

/**
 * A Postgres database for several service instances of one sandbox: a fresh schema on the run's server
 * (`SANDBOX_TEST_STORE=postgres`) or, in the SQLite run, on a scratch server of this test file's own. Instances are
 * started with `{ databaseUrl: db.url, databaseSchema: db.schema }`.
 */
export interface SharedDatabase {
  url: string;
  schema: string;
  /** Drops the schema, and stops the server when it is ours. */
  release(): Promise<void>;
}

let scratch: Promise<LocalPostgres> | undefined;

export async function sharedDatabase(): Promise<SharedDatabase> {
  let url = process.env[TEST_DATABASE_URL_VARIABLE];
  let own: LocalPostgres | undefined;
  if (url === undefined) {
    scratch ??= startScratchPostgres({ prefix: 'instances-' });
    own = await scratch;
    url = own.url;
  }
  const schema = `c_${randomBytes(6).toString('hex')}`;
  return {
    url,
    schema,
    release: async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
      if (own !== undefined && scratch !== undefined) {
        scratch = undefined;
        await own.stop();
      }
    },
  };
}
