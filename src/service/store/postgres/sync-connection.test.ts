import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresDatabase } from './database.js';
import { type LocalPostgres, startScratchPostgres } from './local-server.js';
import { PostgresError, SyncPostgresConnection } from './sync-connection.js';

/**
 * The synchronous Postgres connection under stress, against a real server: a statement that outlives its timeout
 * must not poison the connection (its late answer must never be taken for the next statement's), and the store's
 * write lock must serialise writers of one schema only.
 */
let server: LocalPostgres;
const opened: SyncPostgresConnection[] = [];

beforeAll(async () => {
  server = await startScratchPostgres({ prefix: 'sync-connection-' });
}, 60_000);

afterAll(async () => {
  for (const connection of opened) connection.close({ dropSchema: true });
  await server?.stop();
});

function connect(schema: string, timeoutMs = 5_000): SyncPostgresConnection {
  const connection = new SyncPostgresConnection({ url: server.url, schema, createSchema: true, timeoutMs });
  opened.push(connection);
  return connection;
}

describe('SyncPostgresConnection', () => {
  it('after a statement times out, the next one runs on a new connection and gets its own answer', () => {
    // The timeout also covers a new connection's start (a worker thread, the connect): 1.5 s leaves room for a
    // loaded machine, and the sleeping statement outlasts it by far.
    const connection = connect('timeouts', 1_500);
    expect(connection.query('SELECT 1 AS n').rows).toEqual([{ n: 1 }]);
    let error: unknown;
    try {
      connection.query('SELECT pg_sleep(5) AS slept');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(PostgresError);
    expect((error as PostgresError).code).toBe('57014');
    // Not the sleeping statement's late row: this statement's own.
    expect(connection.query('SELECT 42 AS n').rows).toEqual([{ n: 42 }]);
    expect(connection.open).toBe(true);
    // The search path came back with the new connection.
    expect(connection.query('SELECT current_schema() AS schema').rows).toEqual([{ schema: 'timeouts' }]);
  });

  it('the write lock is per schema: another schema writes while one holds it, the same schema waits', () => {
    const holder = new PostgresDatabase(connect('lock_a'), false);
    const other = new PostgresDatabase(connect('lock_b'), false);
    const sameSchema = new PostgresDatabase(connect('lock_a', 500), false);
    holder.exec('CREATE TABLE marks (n INTEGER)');
    other.exec('CREATE TABLE marks (n INTEGER)');
    holder.transaction(() => {
      holder.prepare('INSERT INTO marks (n) VALUES (?)').run(1);
      // Inside the first schema's write transaction: the second schema is not held up.
      other.transaction(() => other.prepare('INSERT INTO marks (n) VALUES (?)').run(2));
      // A second writer of the same schema waits for the lock, here until its timeout.
      expect(() => sameSchema.transaction(() => undefined)).toThrow(/did not answer/);
    });
    expect(other.prepare('SELECT n FROM marks').all()).toEqual([{ n: 2 }]);
    expect(holder.prepare('SELECT n FROM marks').all()).toEqual([{ n: 1 }]);
    // Once the holder committed, the same-schema writer gets the lock (on its new connection).
    expect(sameSchema.transaction(() => sameSchema.prepare('SELECT count(*) AS c FROM marks').get())).toEqual({ c: 1 });
  });
});

describe('SyncPostgresConnection wake-ups', () => {
  it('a wake-up that is not its answer does not end a statement: it sleeps on until the reply is there', () => {
    // Under load the worker's notify for one statement can land after the caller already moved on to the next one
    // (it saw the answered state before it slept). Here another thread notifies the waiting caller over and over
    // while a statement runs; every statement must still get its own answer, never "the worker stopped".
    const connection = connect('wakeups');
    const signal = (connection as unknown as { signal: Int32Array }).signal;
    const nagger = new Worker(
      `const { workerData } = require('node:worker_threads');
       const signal = new Int32Array(workerData);
       const stop = Date.now() + 1500;
       while (Date.now() < stop) Atomics.notify(signal, 0);`,
      { eval: true, workerData: signal.buffer },
    );
    try {
      for (let i = 0; i < 5; i++) {
        expect(connection.query(`SELECT pg_sleep(0.2), ${i} AS n`).rows[0]).toMatchObject({ n: i });
      }
    } finally {
      void nagger.terminate();
    }
  });

  it('a worker that died between statements is replaced by the next statement', async () => {
    const connection = connect('dead_worker');
    expect(connection.query('SELECT 1 AS n').rows).toEqual([{ n: 1 }]);
    await (connection as unknown as { worker: Worker }).worker.terminate();
    expect(connection.query('SELECT 2 AS n').rows).toEqual([{ n: 2 }]);
    expect(connection.query('SELECT current_schema() AS schema').rows).toEqual([{ schema: 'dead_worker' }]);
  });
});
