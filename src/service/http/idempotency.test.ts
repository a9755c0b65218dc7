import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';
import { formatAError, startTestService, type TestService } from '../../../test/support/service/service.js';
import { widgetsModule } from '../../../test/support/service/widgets.js';

const HOUR = 3_600_000;
let t: TestService;
let widgets: ReturnType<typeof widgetsModule>;
let counter = 0;
const freshKey = () => `key-${++counter}-${Math.random().toString(36).slice(2)}`;

beforeAll(async () => {
  widgets = widgetsModule();
  t = await startTestService({ modules: [widgets] });
});
afterAll(() => t.stop());

const create = (key: string | undefined, body: unknown, apiKey?: string) =>
  t.request('POST', '/api/v1/test/widgets', {
    body,
    headers: key === undefined ? {} : { 'Idempotency-Key': key },
    ...(apiKey === undefined ? {} : { key: apiKey }),
  });

async function count(apiKey?: string): Promise<number> {
  const response = await t.request('GET', '/api/v1/test/widgets?limit=1', apiKey === undefined ? {} : { key: apiKey });
  return response.body.total_count;
}

describe('Idempotency-Key', () => {
  it('without a key every POST creates', async () => {
    const before = await count();
    await create(undefined, { name: 'a' });
    await create(undefined, { name: 'a' });
    expect(await count()).toBe(before + 2);
  });

  it('replays the first response byte for byte, marked as a replay', async () => {
    const key = freshKey();
    const before = await count();
    const first = await create(key, { name: 'replayed' });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotency-key')).toBe(key);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    await t.clock.advance(60_000);
    // Same body with other key order and whitespace is the same request.
    const second = await t.request('POST', '/api/v1/test/widgets', {
      raw: '{ "name" : "replayed" }',
      headers: { 'Idempotency-Key': key, 'Content-Type': 'application/json' },
    });
    expect(second.status).toBe(201);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(await count()).toBe(before + 1);
  });

  it('the same key with a different body → 409 conflict', async () => {
    const key = freshKey();
    await create(key, { name: 'one' });
    const other = await create(key, { name: 'two' });
    expect(other.status).toBe(409);
    expect(formatAError(other)).toMatchObject({ type: 'conflict', code: 'idempotency_key_reused', param: 'Idempotency-Key' });
  });

  it('the same key on another endpoint → 409 conflict', async () => {
    const key = freshKey();
    expect((await create(key, { name: 'x' })).status).toBe(201);
    const elsewhere = await t.request('POST', '/api/v1/sandbox/keys', { headers: { 'Idempotency-Key': key } });
    expect(elsewhere.status).toBe(409);
    expect(formatAError(elsewhere).code).toBe('idempotency_key_reused');
  });

  it('keys are scoped per workspace', async () => {
    const key = freshKey();
    const other = t.service.bootstrapWorkspace('Other');
    const mine = await create(key, { name: 'scoped' });
    const theirs = await create(key, { name: 'scoped' }, other.apiKey);
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
  });

  it('255 characters are fine; 256, empty-ish and non-ASCII keys are 400s', async () => {
    expect((await create('k'.repeat(255), { name: 'long' })).status).toBe(201);
    const tooLong = await create('k'.repeat(256), { name: 'long' });
    expect(tooLong.status).toBe(400);
    expect(formatAError(tooLong)).toMatchObject({ code: 'idempotency_key_invalid', param: 'Idempotency-Key' });
    const control = await t.request('POST', '/api/v1/test/widgets', {
      body: { name: 'x' },
      headers: { 'Idempotency-Key': Buffer.from('caf\u00e9', 'latin1').toString('latin1') },
    });
    expect(control.status).toBe(400);
  });

  it('the document states the key rule exactly: what its pattern allows is accepted, anything else is idempotency_key_invalid', async () => {
    const document = (await t.request('GET', '/api/v1/openapi.json', { key: null })).body;
    const header = (
      document.paths['/api/v1/test/widgets'].post.parameters as Array<{ name: string; schema: Record<string, unknown> }>
    ).find((p) => p.name === 'Idempotency-Key')!;
    const pattern = new RegExp(header.schema.pattern as string);
    for (const key of ['a', 'x y', '~!', 'k'.repeat(255)]) {
      expect(pattern.test(key), key).toBe(true);
      expect((await create(`${key.slice(0, 200)}${freshKey()}`.slice(-255), { name: 'ok' })).status, key).toBe(201);
    }
    // A tab inside (what a fuzzer sends as schema-valid when the document says only "a string"), or 256 characters.
    for (const key of ['a\tb', 'k'.repeat(256)]) {
      expect(pattern.test(key), key).toBe(false);
      const answer = await create(key, { name: 'bad' });
      expect(formatAError(answer), JSON.stringify(key)).toMatchObject({ code: 'idempotency_key_invalid', param: 'Idempotency-Key' });
    }
  });

  it('a request rejected by validation stores nothing: the corrected retry with the same key runs', async () => {
    const key = freshKey();
    const bad = await create(key, { name: '' });
    expect(bad.status).toBe(400);
    const unauthenticated = await t.request('POST', '/api/v1/test/widgets', {
      body: { name: 'ok' },
      headers: { 'Idempotency-Key': key },
      key: null,
    });
    expect(unauthenticated.status).toBe(401);
    const good = await create(key, { name: 'ok' });
    expect(good.status).toBe(201);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a stored response lives 24 h by the clock, then the key is fresh again', async () => {
    const key = freshKey();
    const first = await create(key, { name: 'ttl' });
    const at = t.clock.now();
    await t.clock.advanceTo(at + 24 * HOUR - 1);
    const replay = await create(key, { name: 'ttl' });
    expect(replay.text).toBe(first.text);
    await t.clock.advanceTo(at + 24 * HOUR);
    const fresh = await create(key, { name: 'ttl' });
    expect(fresh.status).toBe(201);
    expect(fresh.body.id).not.toBe(first.body.id);
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();
  });

  it('the hourly sweep removes expired records', async () => {
    await create(freshKey(), { name: 'swept' });
    const rows = () => (t.service.store.db.prepare('SELECT COUNT(*) AS n FROM idempotency_records').get() as { n: number }).n;
    expect(rows()).toBeGreaterThan(0);
    await t.clock.advance(25 * HOUR);
    expect(rows()).toBe(0);
  });

  it('stored responses are sealed: the database does not hold the body in clear', async () => {
    const key = freshKey();
    const created = await t.request('POST', '/api/v1/sandbox/keys', { headers: { 'Idempotency-Key': key } });
    expect(created.status).toBe(201);
    const bodies = t.service.store.db.prepare('SELECT body FROM idempotency_records').all() as Array<{ body: Buffer }>;
    for (const { body } of bodies) expect(body.toString('latin1')).not.toContain(created.body.key);
    const replay = await t.request('POST', '/api/v1/sandbox/keys', { headers: { 'Idempotency-Key': key } });
    expect(replay.body.key).toBe(created.body.key);
  });

  it('a key still in flight → 409 idempotency_key_in_use', async () => {
    const key = freshKey();
    const slow = create(key, { name: 'slow', delayMs: 300 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const concurrent = await create(key, { name: 'slow', delayMs: 300 });
    expect(concurrent.status).toBe(409);
    expect(formatAError(concurrent).code).toBe('idempotency_key_in_use');
    expect(concurrent.headers.get('retry-after')).toBe('1');
    expect((await slow).status).toBe(201);
  });

  it('20 parallel requests with one key create exactly one resource', async () => {
    const key = freshKey();
    const before = await count();
    const createdBefore = widgets.created();
    const answers = await Promise.all(Array.from({ length: 20 }, () => create(key, { name: 'race', delayMs: 100 })));
    const created = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === null);
    expect(created).toHaveLength(1);
    for (const answer of answers) {
      if (answer.status === 201) expect(answer.text).toBe(created[0]!.text);
      else {
        expect(answer.status).toBe(409);
        expect(formatAError(answer).code).toBe('idempotency_key_in_use');
      }
    }
    expect(widgets.created() - createdBefore).toBe(1);
    expect(await count()).toBe(before + 1);
    // Once done, every retry is a replay.
    const late = await create(key, { name: 'race', delayMs: 100 });
    expect(late.text).toBe(created[0]!.text);
  });

  it('20 parallel key creations with one Idempotency-Key create one API key', async () => {
    const key = freshKey();
    const before = (await t.request('GET', '/api/v1/sandbox/keys')).body.data.length;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => t.request('POST', '/api/v1/sandbox/keys', { headers: { 'Idempotency-Key': key } })),
    );
    const keys = new Set(answers.filter((a) => a.status === 201).map((a) => a.body.key));
    expect(keys.size).toBe(1);
    for (const answer of answers) expect([201, 409]).toContain(answer.status);
    expect((await t.request('GET', '/api/v1/sandbox/keys')).body.data.length).toBe(before + 1);
  });
});

describe('Idempotency-Key across a crash', () => {
  it('a claim left in flight by a dead process is released when the service starts again (found by the crash campaign)', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'idempotency-crash-'));
    const storePath = join(folder, 'service.sqlite');
    const key = freshKey();
    const keyHash = createHash('sha256').update(key, 'utf8').digest();
    try {
      const first = await startTestService({ modules: [widgetsModule()], storePath });
      // What a request executing at the moment of a SIGKILL leaves behind: a claim nobody will complete or release.
      const now = first.clock.now();
      const fingerprint = createHash('sha256')
        .update(`POST\n/api/v1/test/widgets\n${canonicalJson({ name: 'after crash' })}`)
        .digest();
      expect(first.service.repos.idempotency.claim(first.workspaceId, keyHash, fingerprint, now, now + 24 * HOUR)).toBe(true);
      const held = await first.request('POST', '/api/v1/test/widgets', {
        body: { name: 'after crash' },
        headers: { 'Idempotency-Key': key },
      });
      expect(formatAError(held).code).toBe('idempotency_key_in_use');
      const { apiKey } = first;
      await first.stop();

      const second = await startTestService({ modules: [widgetsModule()], storePath });
      const retried = await second.request('POST', '/api/v1/test/widgets', {
        body: { name: 'after crash' },
        headers: { 'Idempotency-Key': key },
        key: apiKey,
      });
      expect(retried.status).toBe(201);
      expect(retried.headers.get('idempotent-replayed')).toBeNull();
      const replay = await second.request('POST', '/api/v1/test/widgets', {
        body: { name: 'after crash' },
        headers: { 'Idempotency-Key': key },
        key: apiKey,
      });
      expect(replay.text).toBe(retried.text);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      await second.stop();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
