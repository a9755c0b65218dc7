import pg from 'pg';

/**
 * Replicas that start at the same moment on one empty database would run the store's migrations side by side, and
 * the second `CREATE TABLE` fails ("relation … already exists"): seen when the composition starts both replicas at
 * once. Starting one replica at a time under a Postgres session advisory lock (its own key, apart from the store's
 * write lock and the singleton lease) makes the second find the tables made. The lock is held only while the service
 * starts; Postgres releases it when the session ends, also when the starting replica dies.
 */
const START_LOCK = "hashtext('settlement-sandbox service start')";

export async function startingAlone<T>(databaseUrl: string, start: () => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'settlement-sandbox start' });
  // A session that ends under us (Postgres stopping while a replica starts) is an 'error' event: without a listener
  // it would throw from the socket, outside this function. Its pending query rejects anyway, which is what counts.
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query(`SELECT pg_advisory_lock(${START_LOCK})`);
    return await start();
  } finally {
    await client.query(`SELECT pg_advisory_unlock(${START_LOCK})`).catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}
