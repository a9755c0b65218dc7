import { spawn } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPostgresBinaries, type LocalPostgres, startScratchPostgres } from '../store/postgres/local-server.js';
import { PostgresBus } from './instance-bus.js';
import { SingletonLease } from './singleton-lease.js';

/**
 * The two Postgres mechanisms the service instances of one store coordinate through, against a real server: the
 * instance bus (LISTEN/NOTIFY) and the singleton lease (a session advisory lock). The lease is also taken from
 * outside, by Postgres's own client (psql) in another process, which computes the lock key itself, and that process is
 * SIGKILLed, as a dead instance would be.
 */
let server: LocalPostgres;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  server = await startScratchPostgres({ prefix: 'cluster-' });
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query('CREATE SCHEMA one; CREATE SCHEMA two');
  await admin.end();
}, 60_000);

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await server?.stop();
});

function messages() {
  const seen: Array<{ payload: unknown; from: string }> = [];
  return { seen, handler: (payload: unknown, from: string) => seen.push({ payload, from }) };
}

async function until(probe: () => boolean, what: string, timeoutMs = 8_000): Promise<number> {
  const start = Date.now();
  while (!probe()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return Date.now() - start;
}

async function bus(schema: string): Promise<PostgresBus> {
  const opened = await PostgresBus.connect({ url: server.url, schema });
  closers.push(() => opened.close());
  return opened;
}

describe('instance bus', () => {
  it('reaches the other instances of the same store, in order, and neither the sender nor another store', async () => {
    const [a, b, c, other] = await Promise.all([bus('one'), bus('one'), bus('one'), bus('two')]);
    const atA = messages();
    const atB = messages();
    const atC = messages();
    const atOther = messages();
    a.subscribe('greeting', atA.handler);
    b.subscribe('greeting', atB.handler);
    c.subscribe('greeting', atC.handler);
    other.subscribe('greeting', atOther.handler);
    for (let n = 0; n < 20; n++) a.publish('greeting', { n });
    await a.flushed();
    await until(() => atB.seen.length === 20 && atC.seen.length === 20, 'both listeners');
    expect(atB.seen.map((m) => (m.payload as { n: number }).n)).toEqual([...Array(20).keys()]);
    expect(atB.seen.every((m) => m.from === a.instanceId)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(atA.seen).toEqual([]);
    expect(atOther.seen).toEqual([]);
  });

  it('refuses a message Postgres could not carry, naming the topic', async () => {
    const a = await bus('one');
    expect(() => a.publish('big', { blob: 'x'.repeat(9_000) })).toThrow(/big.*read the store/);
  });

  it('comes back after its connection is killed, says so, and carries messages again', async () => {
    const [a, b] = await Promise.all([bus('one'), bus('one')]);
    const atB = messages();
    b.subscribe('after', atB.handler);
    let reconnected = 0;
    b.onReconnect(() => reconnected++);
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, [
      `settlement-sandbox bus ${b.instanceId}`,
    ]);
    await admin.end();
    await until(() => reconnected === 1, 'the reconnect');
    a.publish('after', { ok: true });
    await until(() => atB.seen.length === 1, 'a message after the reconnect');
  });
});

describe('singleton lease', () => {
  it('one holder at a time; the next waiting instance takes over when the holder gives it up', async () => {
    const first = new SingletonLease({ url: server.url, schema: 'one' }, { pollMs: 100 });
    const second = new SingletonLease({ url: server.url, schema: 'one' }, { pollMs: 100 });
    const elsewhere = new SingletonLease({ url: server.url, schema: 'two' }, { pollMs: 100 });
    closers.push(
      () => first.stop(),
      () => second.stop(),
      () => elsewhere.stop(),
    );
    await first.start();
    await second.start();
    await elsewhere.start();
    expect(first.held).toBe(true);
    expect(second.held).toBe(false);
    // Another store's lease is another lock.
    expect(elsewhere.held).toBe(true);
    let acquired = 0;
    second.onAcquired(() => acquired++);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(second.held).toBe(false);
    await first.stop();
    await until(() => second.held, 'the second instance to take the lease', 2_000);
    expect(acquired).toBe(1);
    await second.stop();
  });

  it('a SIGKILLed holder in another process: the waiting instance takes over within 5 s', async () => {
    // The holder is Postgres's own client (psql over libpq, not the `pg` the service uses), computing the key
    // itself from the documented formula: namespace 0x5a4d (23117), the schema's hashtext xor 2.
    // Its session then sits idle, as an instance holding the lease does, until the process is killed.
    const holder = spawn(join(findPostgresBinaries(), 'psql'), [server.url, '-X', '-A', '-t'], { stdio: ['pipe', 'pipe', 'inherit'] });
    holder.stdin.write("SELECT pg_advisory_lock(23117, hashtext('one') # 2);\nSELECT 'held';\n");
    closers.push(async () => void holder.kill('SIGKILL'));
    let output = '';
    holder.stdout.on('data', (chunk) => (output += String(chunk)));
    await until(() => output.includes('held'), 'the outside holder');
    const waiting = new SingletonLease({ url: server.url, schema: 'one' }, { pollMs: 1_000 });
    closers.push(() => waiting.stop());
    await waiting.start();
    expect(waiting.held).toBe(false);
    holder.kill('SIGKILL');
    const tookMs = await until(() => waiting.held, 'the take-over', 5_000);
    expect(tookMs).toBeLessThan(5_000);
  });

  it('a holder whose connection is killed is told, once, and stops holding', async () => {
    const lease = new SingletonLease({ url: server.url, schema: 'two' }, { pollMs: 100, instanceId: 'ins_victim' });
    closers.push(() => lease.stop());
    // The lease of schema two is still held by the first test's `elsewhere`; release it first.
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'settlement-sandbox lease'`);
    await lease.start();
    await until(() => lease.held, 'the lease');
    const reasons: string[] = [];
    lease.onLost((reason) => reasons.push(reason));
    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'settlement-sandbox lease ins_victim'`,
    );
    await admin.end();
    await until(() => reasons.length > 0, 'the loss');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(reasons).toHaveLength(1);
    expect(lease.held).toBe(false);
  });
});
