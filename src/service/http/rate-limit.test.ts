import { Agent } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatAError, startTestService, type TestService } from '../../../test/support/service/service.js';

/** Raw keep-alive requests: fetch's connection pool makes 1,000 quick requests slower than needed. */
function rawGet(
  url: string,
  agent: Agent,
  key?: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    import('node:http').then(({ get }) => {
      const request = get(url, { agent, headers: key === undefined ? {} : { Authorization: `Bearer ${key}` } }, (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers }));
      });
      request.on('error', reject);
    }, reject);
  });
}

describe('rate limits with the spec defaults (100/s, burst 1,000)', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(() => t.stop());

  it('a burst of 1,000 passes, then 429 with a usable Retry-After', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 32 });
    const url = `${t.url}/api/v1/sandbox/keys`;
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 1_000 }, () => rawGet(url, agent, t.apiKey)));
    const elapsed = Date.now() - started;
    // Within the first second every one of the 1,000 fits the burst; later ones would also get the 100/s.
    expect(answers.filter((a) => a.status === 200).length).toBe(1_000);
    for (const answer of answers) expect(answer.headers['x-ratelimit-limit']).toBe('1000');
    const remaining = answers.map((a) => Number(a.headers['x-ratelimit-remaining'])).sort((a, b) => b - a);
    expect(remaining[0]).toBeGreaterThanOrEqual(998);
    if (elapsed < 900) expect(remaining.at(-1)).toBe(0);

    // Faster than the refill of 100/s however slow each answer is (a loaded machine, the store on Postgres): batches of
    // 50 at once until one is refused.
    let refused: Awaited<ReturnType<typeof rawGet>> | undefined;
    for (let round = 0; round < 40 && refused === undefined; round++) {
      const batch = await Promise.all(Array.from({ length: 50 }, () => rawGet(url, agent, t.apiKey)));
      refused = batch.find((answer) => answer.status === 429);
    }
    expect(refused).toBeDefined();
    const retryAfter = Number(refused!.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(refused!.headers['x-ratelimit-remaining']).toBe('0');
    // The bucket refills at 100/s: on a loaded machine tokens come back before this request, so spend them in
    // batches (one request after another is slower than the refill at a load average of 20) and keep a refusal.
    let body = await t.request('GET', '/api/v1/sandbox/keys');
    for (let round = 0; round < 40 && body.status !== 429; round++) {
      const batch = await Promise.all(Array.from({ length: 50 }, () => t.request('GET', '/api/v1/sandbox/keys')));
      body = batch.find((answer) => answer.status === 429) ?? body;
    }
    expect(body.status).toBe(429);
    expect(formatAError(body)).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });

    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1_000 + 50));
    const after = await rawGet(url, agent, t.apiKey);
    expect(after.status).toBe(200);
    agent.destroy();
  });

  it('another key of the same workspace has its own bucket', async () => {
    const other = t.service.access.createApiKey(t.workspaceId).key;
    const response = await t.request('GET', '/api/v1/sandbox/keys', { key: other });
    expect(response.status).toBe(200);
    expect(Number(response.headers.get('x-ratelimit-remaining'))).toBe(999);
  });
});

describe('rate limit headers and per-credential buckets (small limits)', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ rateLimit: { perSecond: 2, burst: 5, anonymous: { perSecond: 1, burst: 3 } } });
  });
  afterAll(() => t.stop());

  it('Remaining falls by one per request, Limit is constant, the first 429 comes after the burst', async () => {
    const seen: Array<[number, string | null]> = [];
    for (let i = 0; i < 6; i++) {
      const response = await t.request('GET', '/api/v1/sandbox/keys');
      seen.push([response.status, response.headers.get('x-ratelimit-remaining')]);
      expect(response.headers.get('x-ratelimit-limit')).toBe('5');
      const reset = Number(response.headers.get('x-ratelimit-reset'));
      expect(reset).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1_000));
      expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1_000) + 2);
    }
    expect(seen).toEqual([
      [200, '4'],
      [200, '3'],
      [200, '2'],
      [200, '1'],
      [200, '0'],
      [429, '0'],
    ]);
  });

  it('headers are on every response: 401s, 404s and bad bodies too', async () => {
    const responses = [
      await t.request('GET', '/api/v1/nothing-here', { key: null }),
      await t.request('POST', '/api/v1/auth/challenge', { key: null, raw: '{', headers: { 'Content-Type': 'application/json' } }),
      await t.request('GET', '/api/v1/sandbox/keys', { key: 'svc_test_nope' }),
    ];
    for (const response of responses) {
      expect(response.headers.get('x-ratelimit-limit')).toBe('3');
      expect(response.headers.get('x-ratelimit-remaining')).not.toBeNull();
      expect(response.headers.get('x-ratelimit-reset')).not.toBeNull();
      expect(response.headers.get('x-request-id')).toMatch(/^req_[0-9a-z]{24}$/);
    }
  });

  it('public routes are limited per client address', async () => {
    await new Promise((resolve) => setTimeout(resolve, 3_100));
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await t.request('GET', '/api/v1/corridors', { key: null })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await t.request('GET', '/api/v1/health', { key: null });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // An authenticated caller on the same address is not affected.
    const keyed = await t.request('GET', '/api/v1/corridors', { key: t.service.access.createApiKey(t.workspaceId).key });
    expect(keyed.status).toBe(200);
  });
});
