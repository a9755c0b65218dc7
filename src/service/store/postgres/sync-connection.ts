import { createRequire } from 'node:module';
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { BaseError } from '../../../contracts/errors/base-error.js';

/**
 * One Postgres connection that answers synchronously. The service's store contract is synchronous (a transaction
 * is a synchronous function, so no other request can interleave with it inside this process), and that contract is
 * what keeps every repository and the settlement engine simple. `pg` is asynchronous, so it runs in a worker thread
 * that owns the connection; the calling thread posts one query and sleeps on `Atomics.wait` until the worker has
 * posted the answer. The round trip adds tens of microseconds to each query.
 *
 * The worker is source text evaluated by Node rather than a file, so the same code runs from the compiled package
 * and from the TypeScript sources under the test runner (a worker cannot load a .ts file).
 */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const pg = require(workerData.pgPath);
const { port, signal: buffer, url, schema, createSchema, applicationName } = workerData;
const signal = new Int32Array(buffer);
const ANSWERED = 1, STOPPED = 2;
// SQLite hands back integers as numbers; so do we (bigint beyond 2^53, which no column of ours holds).
const integer = (text) => { const n = Number(text); return Number.isSafeInteger(n) ? n : BigInt(text); };
const types = {
  getTypeParser: (oid, format) => (oid === 20 ? integer : oid === 1700 ? Number : pg.types.getTypeParser(oid, format)),
};
const client = new pg.Client({ connectionString: url, types, application_name: applicationName });
client.on('error', () => {});
const ready = client.connect().then(async () => {
  if (schema) {
    // Two connections creating one schema at once race inside Postgres (IF NOT EXISTS is not atomic): the loser's
    // unique violation means the schema exists, which is all we asked for.
    if (createSchema) await client.query('CREATE SCHEMA IF NOT EXISTS "' + schema + '"').catch((error) => {
      if (error.code !== '23505' && error.code !== '42P06') throw error;
    });
    await client.query('SET search_path TO "' + schema + '"');
  }
});
ready.catch(() => {});
const values = (params) => params.map((v) => (v instanceof Uint8Array ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v));
async function answer(request) {
  let reply;
  try {
    await ready;
    if (request.kind === 'close') {
      if (schema && request.dropSchema) await client.query('DROP SCHEMA IF EXISTS "' + schema + '" CASCADE');
      await client.end();
      reply = { ok: true, rows: [], rowCount: 0 };
    } else {
      const query = request.params === undefined ? request.sql : { text: request.sql, values: values(request.params), name: request.name };
      const result = await client.query(query);
      const last = Array.isArray(result) ? result[result.length - 1] : result;
      reply = { ok: true, rows: last.rows || [], rowCount: last.rowCount || 0 };
    }
  } catch (error) {
    reply = { ok: false, message: String(error && error.message), code: error && error.code, detail: error && error.detail };
  }
  port.postMessage(reply);
  Atomics.store(signal, 0, ANSWERED);
  Atomics.notify(signal, 0);
}
// A worker that dies mid-statement says so, so the caller does not sleep out its whole timeout.
process.on('exit', () => { Atomics.store(signal, 0, STOPPED); Atomics.notify(signal, 0); });
let chain = Promise.resolve();
port.on('message', (request) => { chain = chain.then(() => answer(request)); });
`;

export interface SyncConnectionOptions {
  url: string;
  /** Run every statement in this schema (search_path); created first when `createSchema`. */
  schema?: string | undefined;
  createSchema?: boolean | undefined;
  /** How long one statement may take before the caller gives up (the worker is then stopped). */
  timeoutMs?: number | undefined;
  applicationName?: string | undefined;
}

export interface QueryResult {
  rows: Record<string, unknown>[];
  rowCount: number;
}

/** A Postgres error, with its SQLSTATE code (e.g. `23505` unique violation, `08006` connection failure). */
export class PostgresError extends BaseError {
  override readonly name = 'PostgresError';
  constructor(
    message: string,
    override readonly code: string | undefined,
    readonly detail?: string,
    /** The statement that failed, for logs. */
    readonly sql?: string,
  ) {
    super(message);
  }
}

interface Reply {
  ok: boolean;
  rows?: Record<string, unknown>[];
  rowCount?: number;
  message?: string;
  code?: string;
  detail?: string;
}

/** The shared signal while a statement is out; the worker then stores 1 (answered: the reply is on the port) or 2 (it died). */
const WAITING = 0;

export class SyncPostgresConnection {
  private worker!: Worker;
  private port!: MessagePort;
  private readonly signal = new Int32Array(new SharedArrayBuffer(4));
  private readonly timeoutMs: number;
  private closed = false;
  /**
   * The worker was stopped after a statement that did not answer in time (or it died): the next statement starts
   * a new connection. Postgres rolls back whatever the old one had open, and answers meant for it cannot reach the
   * new one, so no reply is ever matched to the wrong statement.
   */
  private broken = false;
  /** Bumped by `renew`: prepared statement names of one user of the connection never meet another's. */
  private generation = 0;

  constructor(private readonly options: SyncConnectionOptions) {
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.spawn();
  }

  private spawn(): void {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        pgPath: createRequire(import.meta.url).resolve('pg'),
        port: port2,
        signal: this.signal.buffer,
        url: this.options.url,
        schema: this.options.schema,
        createSchema: this.options.createSchema === true,
        applicationName: this.options.applicationName ?? 'settlement-sandbox',
      },
      transferList: [port2],
    });
    // The worker must not keep the process alive; a closed store ends it explicitly.
    this.worker.unref();
    this.port.unref();
    this.broken = false;
    // A worker that died between statements (nobody waiting to see it) is replaced by the next statement.
    const worker = this.worker;
    worker.once('exit', () => {
      if (this.worker === worker) this.broken = true;
    });
  }

  /** Runs one statement. Without `params` it is sent as a simple query, which may hold several statements. */
  query(sql: string, params?: readonly unknown[], name?: string): QueryResult {
    let reply: Reply;
    try {
      reply = this.call({ kind: 'query', sql, params, name });
    } catch (error) {
      if (error instanceof PostgresError && error.sql === undefined) throw new PostgresError(error.message, error.code, error.detail, sql);
      throw error;
    }
    const rows = reply.rows ?? [];
    for (const row of rows) {
      for (const key in row) {
        const value = row[key];
        // Structured cloning turns a Buffer into a plain Uint8Array; repositories expect Buffers, as SQLite gives.
        if (value instanceof Uint8Array && !Buffer.isBuffer(value))
          row[key] = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      }
    }
    return { rows, rowCount: reply.rowCount ?? 0 };
  }

  get open(): boolean {
    return !this.closed;
  }

  /** Whether the connection can take statements without starting a new one (no timeout or death since). */
  get healthy(): boolean {
    return !this.closed && !this.broken;
  }

  /**
   * What a new user of this connection prefixes its prepared statement names with. Names are per connection, and the
   * pg client remembers each name's text: a name used again for another text would be refused.
   */
  get statementPrefix(): string {
    return this.generation === 0 ? 's' : `g${this.generation}s`;
  }

  /**
   * Makes the connection as a new one for its next user: its prepared statements, notifications and session locks
   * are released, and statement names start over under a new prefix.
   */
  renew(): void {
    this.query('DEALLOCATE ALL; UNLISTEN *; SELECT pg_advisory_unlock_all()');
    this.generation += 1;
  }

  /** Ends the connection (dropping the schema first when asked: throwaway test stores). */
  close(options: { dropSchema?: boolean } = {}): void {
    if (this.closed) return;
    try {
      this.call({ kind: 'close', dropSchema: options.dropSchema === true });
    } catch {
      // A dead connection has nothing to end.
    } finally {
      this.closed = true;
      void this.worker.terminate();
    }
  }

  private call(request: Record<string, unknown>): Reply {
    if (this.closed) throw new PostgresError('the store is closed', '08003');
    if (this.broken) this.spawn();
    Atomics.store(this.signal, 0, WAITING);
    this.port.postMessage(request);
    const message = this.awaitReply();
    if (message === undefined) {
      const state = Atomics.load(this.signal, 0);
      this.broken = true;
      this.port.close();
      void this.worker.terminate();
      if (state === WAITING) throw new PostgresError(`Postgres did not answer within ${this.timeoutMs} ms`, '57014');
      throw new PostgresError('the Postgres connection worker stopped', '08006');
    }
    const reply = message.message as Reply;
    if (!reply.ok) throw new PostgresError(reply.message ?? 'Postgres error', reply.code, reply.detail);
    return reply;
  }

  /**
   * Sleeps until the worker has answered, died, or the timeout passed. A wake-up alone proves nothing: the worker
   * stores ANSWERED and then notifies, and when the caller saw the store before it slept, that notify arrives late
   * and wakes the *next* statement's wait before its answer exists. So the state decides, and a wake-up with the
   * state still WAITING sleeps again for the time left.
   */
  private awaitReply(): { message: unknown } | undefined {
    const deadline = performance.now() + this.timeoutMs;
    for (;;) {
      const state = Atomics.load(this.signal, 0);
      // The reply is posted before ANSWERED is stored, so once the state says so it is on the port. A worker that
      // stopped may have answered first; if it did not, there is no message and the caller reports it stopped.
      if (state !== WAITING) return receiveMessageOnPort(this.port);
      const left = deadline - performance.now();
      if (left <= 0) return undefined;
      Atomics.wait(this.signal, 0, WAITING, left);
    }
  }
}
