import { createHash, randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type SharedDatabase, sharedDatabase } from '../../../test/support/service/instances.js';
import { startTestService, type TestService } from '../../../test/support/service/service.js';
import { canonicalJson } from '../http/canonical-json.js';
import { RATE_LIMIT_TABLE } from '../http/rate-limit.js';
import type { ServiceModule } from '../module.js';

/**
 * Two service instances on one Postgres store share one rate-limit budget per credential and per client address,
 * and one Idempotency-Key space: requests go to both instances' URLs with plain fetch, as a load balancer would
 * spread them.
 */

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

async function send(
  url: string,
  options: { key?: string; method?: string; body?: unknown; idempotencyKey?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (options.key !== undefined) headers.Authorization = `Bearer ${options.key}`;
  if (options.idempotencyKey !== undefined) headers['Idempotency-Key'] = options.idempotencyKey;
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(url, {
    method: options.method ?? 'GET',
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const errorCode = (answer: Answer): string | undefined => (JSON.parse(answer.text) as { error?: { code?: string } }).error?.code;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Log lines of one instance, as JSON. */
function capturedLogger(): { logger: pino.Logger; lines: Array<{ msg?: string }> } {
  const lines: Array<{ msg?: string }> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line));
      callback();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

/**
 * Sends requests alternately to the instances until each has refused one (429), and says what came back. A
 * credential's budget is `burst` at once plus one per second (perSecond 1), so across the instances no more than
 * `burst` plus one per started second may pass; with a budget per instance, twice the burst would.
 */
async function spendAcross(urls: string[], key: string | undefined, maxRequests: number) {
  const answers: Array<{ instance: number; answer: Answer }> = [];
  const refused = new Set<number>();
  const started = Date.now();
  for (let i = 0; i < maxRequests && refused.size < urls.length; i++) {
    const instance = i % urls.length;
    const answer = await send(urls[instance]!, key === undefined ? {} : { key });
    answers.push({ instance, answer });
    if (answer.status === 429) refused.add(instance);
  }
  return { answers, refused, elapsedMs: Date.now() - started };
}

function expectOneBudget(spent: Awaited<ReturnType<typeof spendAcross>>, burst: number): void {
  const { answers, refused, elapsedMs } = spent;
  expect([...refused].sort()).toEqual([0, 1]);
  const passed = answers.filter((a) => a.answer.status === 200);
  // The burst itself passes, whichever instance each request reached.
  expect(answers.slice(0, burst).map((a) => a.answer.status)).toEqual(Array(burst).fill(200));
  expect(passed.length).toBeLessThanOrEqual(burst + Math.ceil(elapsedMs / 1_000));
  // Remaining counts down across both instances as one budget: 9, 8, 7… not 9, 9, 8, 8…
  const remaining = answers.slice(0, burst).map((a) => Number(a.answer.headers.get('x-ratelimit-remaining')));
  if (elapsedMs < 900) expect(remaining).toEqual(Array.from({ length: burst }, (_, i) => burst - 1 - i));
  for (let i = 1; i < remaining.length; i++) expect(remaining[i]).toBeLessThanOrEqual(remaining[i - 1]!);
  for (const { answer } of answers) expect(answer.headers.get('x-ratelimit-limit')).toBe(String(burst));
  const refusal = answers.find((a) => a.answer.status === 429)!.answer;
  expect(Number(refusal.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(refusal.headers.get('x-ratelimit-remaining')).toBe('0');
  expect(errorCode(refusal)).toBe('rate_limit_exceeded');
}

describe('rate limits across two instances on one store', () => {
  let db: SharedDatabase;
  let first: TestService;
  let second: TestService;
  const firstLog = capturedLogger();
  const limits = { perSecond: 1, burst: 10, anonymous: { perSecond: 1, burst: 6 } };

  beforeAll(async () => {
    db = await sharedDatabase();
    const shared = { databaseUrl: db.url, databaseSchema: db.schema, leasePollMs: 100, rateLimit: limits };
    first = await startTestService({ ...shared, logger: firstLog.logger });
    second = await startTestService(shared);
  });
  afterAll(async () => {
    await second?.stop();
    await first?.stop();
    await db?.release();
  });

  it("a credential's burst spent half on each instance is refused on both", async () => {
    const key = first.service.access.createApiKey(first.workspaceId).key;
    const spent = await spendAcross([`${first.url}/api/v1/corridors`, `${second.url}/api/v1/corridors`], key, 40);
    expectOneBudget(spent, limits.burst);
    // Another credential still has its own budget, on either instance.
    const other = first.service.access.createApiKey(first.workspaceId).key;
    const fresh = await send(`${second.url}/api/v1/corridors`, { key: other });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('x-ratelimit-remaining')).toBe(String(limits.burst - 1));
  });

  it('the anonymous budget of a client address is one across the instances', async () => {
    const spent = await spendAcross([`${first.url}/api/v1/corridors`, `${second.url}/api/v1/health`], undefined, 30);
    expectOneBudget(spent, limits.anonymous.burst);
  });

  it("the counts live in the store's schema", async () => {
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    try {
      const rows = await admin.query<{ key: string }>(`SELECT key FROM "${db.schema}"."${RATE_LIMIT_TABLE}"`);
      expect(rows.rows.map((row) => row.key)).toContain('anonymous:rate:ip:127.0.0.1');
    } finally {
      await admin.end();
    }
  });

  it('when Postgres does not answer the limiter, requests still pass, counted per instance, and it says so', async () => {
    const key = first.service.access.createApiKey(first.workspaceId).key;
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    try {
      // An outside transaction holds the table: every limiter query waits until it gives up.
      await admin.query('BEGIN');
      await admin.query(`LOCK TABLE "${db.schema}"."${RATE_LIMIT_TABLE}" IN ACCESS EXCLUSIVE MODE`);
      const started = Date.now();
      const during = await send(`${first.url}/api/v1/corridors`, { key });
      expect(during.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(during.headers.get('x-ratelimit-limit')).toBe(String(limits.burst));
      expect(during.headers.get('x-ratelimit-remaining')).toBe(String(limits.burst - 1));
      // Counted per instance meanwhile, without waiting on the table again.
      const next = Date.now();
      expect((await send(`${first.url}/api/v1/corridors`, { key })).headers.get('x-ratelimit-remaining')).toBe(String(limits.burst - 2));
      expect(Date.now() - next).toBeLessThan(500);
      expect(firstLog.lines.filter((line) => line.msg?.includes('Postgres did not answer the limiter'))).toHaveLength(1);
    } finally {
      await admin.query('ROLLBACK').catch(() => undefined);
      await admin.end();
    }
    // The table is tried again a little later, and the shared count resumes (this key's first shared request).
    await sleep(2_200);
    const after = await send(`${first.url}/api/v1/corridors`, { key });
    expect(after.status).toBe(200);
    expect(after.headers.get('x-ratelimit-remaining')).toBe(String(limits.burst - 1));
    expect(firstLog.lines.some((line) => line.msg?.includes('Postgres answers the limiter again'))).toBe(true);
  });
});

/** A creating POST whose first execution per name waits until the test opens its gate: a request in flight. */
class GatedCreates {
  readonly executions = new Map<string, number>();
  private readonly gates = new Map<string, Promise<void>>();

  hold(name: string): () => void {
    let open!: () => void;
    this.gates.set(
      name,
      new Promise<void>((resolve) => {
        open = resolve;
      }),
    );
    return open;
  }

  module(): ServiceModule {
    return {
      name: 'gated-creates',
      setup: (ctx) => {
        ctx.routes().route({
          method: 'post',
          path: '/test/gated',
          operationId: 'createGated',
          summary: 'Create something after a gate opens (test module).',
          auth: 'required',
          body: z.strictObject({ name: z.string() }),
          responses: { 201: { description: 'Created.', schema: z.object({ id: z.string(), name: z.string() }) } },
          handler: async ({ body }) => {
            this.executions.set(body.name, (this.executions.get(body.name) ?? 0) + 1);
            const gate = this.gates.get(body.name);
            this.gates.delete(body.name);
            await gate;
            return { status: 201, body: { id: `gat_${randomBytes(8).toString('hex')}`, name: body.name } };
          },
        });
      },
    };
  }
}

describe('Idempotency-Key across two instances on one store', () => {
  let db: SharedDatabase;
  let first: TestService;
  let second: TestService;
  const gated = new GatedCreates();
  const fresh = (label: string) => `${label}-${randomBytes(6).toString('hex')}`;

  beforeAll(async () => {
    db = await sharedDatabase();
    const shared = { databaseUrl: db.url, databaseSchema: db.schema, leasePollMs: 100 };
    first = await startTestService({ ...shared, modules: [gated.module()] });
    second = await startTestService({ ...shared, modules: [gated.module()] });
  });
  afterAll(async () => {
    await second?.stop();
    await first?.stop();
    await db?.release();
  });

  const create = (service: TestService, name: string, idempotencyKey: string) =>
    send(`${service.url}/api/v1/test/gated`, { method: 'POST', key: first.apiKey, body: { name }, idempotencyKey });

  /** Resolves once a request named `name` executes (and waits at its gate). */
  async function executing(name: string): Promise<void> {
    for (let i = 0; i < 250 && gated.executions.get(name) === undefined; i++) await sleep(20);
    expect(gated.executions.get(name)).toBe(1);
  }

  it('the same key sent to both instances at once executes once; either instance replays the first answer byte for byte', async () => {
    const name = fresh('concurrent');
    const key = fresh('key');
    const open = gated.hold(name);
    const pending = [first, second, first, second, first, second].map((service) => create(service, name, key));
    await executing(name);
    // Whichever instance executes, the other refuses the key meanwhile.
    for (const service of [first, second]) expect(errorCode(await create(service, name, key))).toBe('idempotency_key_in_use');
    open();
    const answers = await Promise.all(pending);
    const executed = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === null);
    expect(executed).toHaveLength(1);
    for (const answer of answers.filter((a) => a !== executed[0])) {
      if (answer.status === 201) expect(answer.text).toBe(executed[0]!.text);
      else expect([answer.status, errorCode(answer)]).toEqual([409, 'idempotency_key_in_use']);
    }
    expect(gated.executions.get(name)).toBe(1);

    for (const service of [first, second]) {
      const replay = await create(service, name, key);
      expect(replay.status).toBe(201);
      expect(replay.text).toBe(executed[0]!.text);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.headers.get('content-type')).toBe(executed[0]!.headers.get('content-type'));
    }
    expect(gated.executions.get(name)).toBe(1);
  });

  it('an instance starting releases the claims of instances that are gone, never those of requests executing elsewhere', async () => {
    // A claim left by an instance that died mid-request: its id names no live session.
    const goneName = fresh('gone');
    const goneKey = fresh('key');
    const keyHash = createHash('sha256').update(goneKey, 'utf8').digest();
    const fingerprint = createHash('sha256')
      .update(`POST\n/api/v1/test/gated\n${canonicalJson({ name: goneName })}`)
      .digest();
    const now = first.clock.now();
    expect(first.service.repos.idempotency.claim(first.workspaceId, keyHash, fingerprint, now, now + 3_600_000, 'ins_000000000000')).toBe(
      true,
    );
    expect(errorCode(await create(second, goneName, goneKey))).toBe('idempotency_key_in_use');

    // A request executing on the first instance right now.
    const liveName = fresh('live');
    const liveKey = fresh('key');
    const open = gated.hold(liveName);
    const answering = create(first, liveName, liveKey);
    await executing(liveName);

    const third = await startTestService({ databaseUrl: db.url, databaseSchema: db.schema, leasePollMs: 100, modules: [gated.module()] });
    try {
      const duplicate = await create(second, liveName, liveKey);
      expect([duplicate.status, errorCode(duplicate)]).toEqual([409, 'idempotency_key_in_use']);
      const retried = await create(third, goneName, goneKey);
      expect(retried.status).toBe(201);
      expect(retried.headers.get('idempotent-replayed')).toBeNull();
    } finally {
      open();
      await third.stop();
    }
    const answer = await answering;
    expect(answer.status).toBe(201);
    const replay = await create(second, liveName, liveKey);
    expect(replay.text).toBe(answer.text);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(gated.executions.get(liveName)).toBe(1);
    expect(gated.executions.get(goneName)).toBe(1);
  });
});
