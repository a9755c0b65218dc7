import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../../clock/index.js';
import { formatAError, startTestService, TEST_EPOCH, type TestService } from '../../../test/support/service/service.js';
import { generateApiKey, hashApiKey, parseApiKey } from './api-key-format.js';

const HOUR = 3_600_000;
const guarded = '/api/v1/sandbox/keys';

describe('API key format', () => {
  it('is svc_{env}_{key_id}_{random_hex} and parses back', () => {
    const { key, keyId } = generateApiKey('test');
    expect(key).toMatch(/^svc_test_[0-9a-z]{16}_[0-9a-f]{64}$/);
    expect(parseApiKey(key)).toEqual({ environment: 'test', keyId });
    expect(hashApiKey(key)).toHaveLength(32);
    expect(generateApiKey('live').key.startsWith('svc_live_')).toBe(true);
  });

  it.each([
    'svc_test_',
    'svc_prod_0123456789abcdef_' + 'a'.repeat(64),
    'svc_test_0123456789abcdef_' + 'a'.repeat(63),
    'svc_test_0123456789ABCDEF_' + 'a'.repeat(64),
    'svc_test_0123456789abcdef_' + 'g'.repeat(64),
    'sk_test_0123456789abcdef_' + 'a'.repeat(64),
    ' svc_test_0123456789abcdef_' + 'a'.repeat(64),
  ])('rejects %j', (key) => {
    expect(parseApiKey(key)).toBeUndefined();
  });
});

describe('API keys over HTTP (sandbox)', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(() => t.stop());

  const expect401 = async (key: string | null, code: string, headers?: Record<string, string>) => {
    const response = await t.request('GET', guarded, { key, ...(headers === undefined ? {} : { headers }) });
    expect(response.status).toBe(401);
    expect(formatAError(response)).toMatchObject({ type: 'authentication_error', code });
    return response;
  };

  it('accepts the workspace key', async () => {
    const response = await t.request('GET', guarded);
    expect(response.status).toBe(200);
    expect(response.body.data).toHaveLength(1);
    expect(response.body.data[0]).toMatchObject({ workspaceId: t.workspaceId, status: 'active', expiresAt: null });
    expect(response.body.data[0].redacted).toMatch(/^svc_test_[0-9a-z]{16}_…[0-9a-f]{4}$/);
    expect(JSON.stringify(response.body)).not.toContain(t.apiKey);
  });

  it('missing credential → 401 authentication_required', async () => {
    await expect401(null, 'authentication_required');
  });

  it('bad credentials → 401 invalid_api_key', async () => {
    const parsed = parseApiKey(t.apiKey)!;
    const flipped = t.apiKey.slice(0, -1) + (t.apiKey.endsWith('0') ? '1' : '0');
    await expect401('svc_test_garbage', 'invalid_api_key');
    await expect401(flipped, 'invalid_api_key');
    await expect401(`svc_test_${'z'.repeat(16)}_${'a'.repeat(64)}`, 'invalid_api_key');
    await expect401(`svc_test_${parsed.keyId}_${'0'.repeat(64)}`, 'invalid_api_key');
    await expect401('not-a-key', 'invalid_api_key');
  });

  it('a key of the other environment is invalid (svc_live_ in the sandbox)', async () => {
    const live = t.apiKey.replace('svc_test_', 'svc_live_');
    const response = await expect401(live, 'invalid_api_key');
    expect(formatAError(response).message).toMatch(/svc_test_/);
  });

  it('a non-Bearer Authorization header → 401', async () => {
    const response = await t.request('GET', guarded, { key: null, headers: { Authorization: `Basic ${t.apiKey}` } });
    expect(response.status).toBe(401);
    expect(formatAError(response).param).toBe('Authorization');
  });

  it('a bad key on a public route is ignored, and the route answers', async () => {
    const response = await t.request('GET', '/api/v1/corridors', { key: 'svc_test_garbage' });
    expect(response.status).toBe(200);
  });

  it('an API key on a JWT-only route → 401 jwt_required', async () => {
    const response = await t.request('GET', '/api/v1/auth/me');
    expect(response.status).toBe(401);
    expect(formatAError(response).code).toBe('jwt_required');
  });

  it('keys create issues a working second key of the same workspace', async () => {
    const created = await t.request('POST', guarded);
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^svc_test_/);
    expect(created.body.workspaceId).toBe(t.workspaceId);
    const withNew = await t.request('GET', guarded, { key: created.body.key });
    expect(withNew.status).toBe(200);
    expect(withNew.body.data.map((k: { id: string }) => k.id)).toContain(created.body.id);
  });
});

describe('key rotation grace by the service clock', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ clock: new TestClock({ start: TEST_EPOCH }) });
  });
  afterAll(() => t.stop());

  it('old key works until 24 h after rotation, then 401 api_key_expired; the new key keeps working', async () => {
    const rotated = await t.request('POST', '/api/v1/sandbox/keys/rotate', { body: {} });
    expect(rotated.status).toBe(201);
    const newKey: string = rotated.body.key.key;
    expect(rotated.body.rotated).toMatchObject({
      status: 'rotating',
      replacedBy: rotated.body.key.id,
      expiresAt: new Date(t.clock.now() + 24 * HOUR).toISOString(),
    });

    const rotatedAt = t.clock.now();
    await t.clock.advanceTo(rotatedAt + 24 * HOUR - 1);
    expect((await t.request('GET', guarded)).status).toBe(200);

    await t.clock.advanceTo(rotatedAt + 24 * HOUR);
    const expired = await t.request('GET', guarded);
    expect(expired.status).toBe(401);
    expect(formatAError(expired).code).toBe('api_key_expired');

    await t.clock.advance(1);
    expect((await t.request('GET', guarded)).status).toBe(401);

    const fresh = await t.request('GET', guarded, { key: newKey });
    expect(fresh.status).toBe(200);
    const old = fresh.body.data.find((k: { id: string }) => k.id === rotated.body.rotated.id);
    expect(old.status).toBe('expired');
  });

  it('a key is rotated once; rotating a key of another workspace is a 404', async () => {
    const list = await t.request('GET', guarded, { key: null });
    expect(list.status).toBe(401);
    const other = t.service.bootstrapWorkspace('Other');
    const otherKeys = await t.request('GET', guarded, { key: other.apiKey });
    const otherKeyId = otherKeys.body.data[0].id;

    const first = await t.request('POST', '/api/v1/sandbox/keys/rotate', { key: other.apiKey, body: {} });
    expect(first.status).toBe(201);
    const again = await t.request('POST', '/api/v1/sandbox/keys/rotate', { key: other.apiKey, body: { keyId: otherKeyId } });
    expect(again.status).toBe(409);
    expect(formatAError(again).code).toBe('api_key_not_rotatable');

    const successor: string = first.body.key.key;
    const foreign = await t.request('POST', '/api/v1/sandbox/keys/rotate', { key: successor, body: { keyId: 'nope' } });
    expect(foreign.status).toBe(404);
    expect(formatAError(foreign)).toMatchObject({ code: 'resource_not_found', param: 'keyId' });
  });
});

describe('production deployment', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ environment: 'production' });
  });
  afterAll(() => t.stop());

  it('issues svc_live_ keys and refuses svc_test_ ones', async () => {
    expect(t.apiKey).toMatch(/^svc_live_/);
    const ok = await t.request('GET', '/api/v1/auth/sessions');
    expect(ok.status).toBe(200);
    const testKey = t.apiKey.replace('svc_live_', 'svc_test_');
    const refused = await t.request('GET', '/api/v1/auth/sessions', { key: testKey });
    expect(refused.status).toBe(401);
    expect(formatAError(refused).code).toBe('invalid_api_key');
  });

  it('has no sandbox routes', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/sandbox/keys'],
      ['POST', '/api/v1/sandbox/keys'],
      ['GET', '/api/v1/sandbox/clock'],
      ['POST', '/api/v1/sandbox/clock/advance'],
    ] as const) {
      const response = await t.request(method, path);
      expect(response.status, path).toBe(404);
    }
  });

  it('reports production in health', async () => {
    const health = await t.request('GET', '/api/v1/health', { key: null });
    expect(health.body.environment).toBe('production');
  });
});
