import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createService } from '../app.js';
import { startTestAnvil, type TestAnvil } from '../../../test/support/service/anvil.js';
import { sampleChains, startTestService, type TestService } from '../../../test/support/service/service.js';
import { CONFIG_PLACEHOLDER } from './assets.js';
import { DashboardModule } from './module.js';
import { isLoopbackVisitor, renderIndex } from './page.js';

const folders: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  folders.push(dir);
  return dir;
}

/** A stand-in build: the real one comes from scripts/build-dashboard.mjs (the e2e test uses it). */
function fakeAssets(): string {
  const dir = tempDir('dashboard-assets-');
  writeFileSync(join(dir, 'index.html'), `<!doctype html><head>${CONFIG_PLACEHOLDER}</head><body>page</body>`);
  writeFileSync(join(dir, 'app.js'), 'console.log("app")');
  writeFileSync(join(dir, 'app.css'), 'body{}');
  return dir;
}

/** node:http, because fetch will not send a Host header of our choosing. */
function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

let anvils: TestAnvil[];
let test: TestService;
let assets: string;
let keys: string[] = [];

beforeAll(async () => {
  anvils = await Promise.all([startTestAnvil(31_337_001), startTestAnvil(31_337_002)]);
  const chains = sampleChains().map((chain, i) => ({ ...chain, rpcUrl: anvils[i]!.rpcUrl, wsUrl: anvils[i]!.wsUrl }));
  assets = fakeAssets();
  test = await startTestService({ chains, modules: [new DashboardModule({ assetsDir: assets, sandboxKeys: () => keys })] });
});

afterAll(async () => {
  await test?.stop();
  await Promise.all((anvils ?? []).map((anvil) => anvil.stop()));
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

describe('GET /api/v1/sandbox/info', () => {
  it('reports every chain’s head block and chain time, and the clock', async () => {
    const before = await test.request('GET', '/api/v1/sandbox/info', { key: null });
    expect(before.status).toBe(200);
    expect(before.body.environment).toBe('sandbox');
    expect(before.body.workspaceId).toBeNull();
    expect(before.body.clock).toMatchObject({ nowMs: test.clock.now(), kind: 'test', ticking: false });
    expect(before.body.chains.map((c: { name: string; chainId: number; ok: boolean }) => [c.name, c.chainId, c.ok])).toEqual([
      ['alpha', 31_337_001, true],
      ['beta', 31_337_002, true],
    ]);
    expect(before.body.chains[0].tokens.map((t: { symbol: string }) => t.symbol)).toEqual(['USDC', 'USDT']);

    // Mine on alpha with a later timestamp: only alpha's head and time move.
    const alpha = before.body.chains[0];
    const next = alpha.chainTime + 3_600;
    const mined = await fetch(anvils[0]!.rpcUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'evm_mine', params: [next] }),
    });
    expect(mined.status).toBe(200);
    const after = await test.request('GET', '/api/v1/sandbox/info', { key: null });
    expect(after.body.chains[0].headBlock).toBe(alpha.headBlock + 1);
    expect(after.body.chains[0].chainTime).toBe(next);
    expect(after.body.chains[0].chainTimeIso).toBe(new Date(next * 1_000).toISOString());
    expect(after.body.chains[1].headBlock).toBe(before.body.chains[1].headBlock);
  });

  it('names the caller’s workspace with a key and refuses a bad key', async () => {
    const mine = await test.request('GET', '/api/v1/sandbox/info');
    expect(mine.body.workspaceId).toBe(test.workspaceId);
    const bad = await test.request('GET', '/api/v1/sandbox/info', { key: 'svc_test_nope_00' });
    expect(bad.status).toBe(401);
  });

  it('answers ok: false for an unreachable chain instead of failing', async () => {
    const dead = await startTestService({ chains: sampleChains(), modules: [new DashboardModule({ assetsDir: assets })] });
    try {
      const started = performance.now();
      const info = await dead.request('GET', '/api/v1/sandbox/info', { key: null });
      expect(info.status).toBe(200);
      expect(info.body.chains[0]).toMatchObject({ ok: false, headBlock: null, chainTime: null });
      expect(info.body.chains[0].error).toEqual(expect.any(String));
      expect(performance.now() - started).toBeLessThan(5_000);
    } finally {
      await dead.stop();
    }
  });

  it('is documented in the OpenAPI document', async () => {
    const doc = await test.request('GET', '/api/v1/openapi.json', { key: null });
    expect(doc.body.paths['/api/v1/sandbox/info'].get.operationId).toBe('getSandboxInfo');
  });
});

describe('the page at /', () => {
  it('serves the built page with a strict same-origin policy and no caching', async () => {
    const page = await get(`${test.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['cache-control']).toBe('no-store');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    // The page may read transaction blocks from the chains: their RPC origins, and nothing else, are allowed.
    for (const anvil of anvils) expect(csp).toContain(anvil.rpcUrl);
    expect(page.headers['access-control-allow-origin']).toBeUndefined();
    expect(page.body).toContain('<body>page</body>');
  });

  it('gives the sandbox key to loopback visitors only, and only a key the service accepts', async () => {
    keys = [];
    expect((await get(`${test.url}/`)).body).not.toContain('sandbox-api-key');

    keys = ['svc_test_expired_00', test.apiKey];
    const local = await get(`${test.url}/`);
    expect(local.body).toContain(`<meta name="sandbox-api-key" content="${test.apiKey}">`);
    expect(local.body).toContain(`<meta name="sandbox-workspace" content="${test.workspaceId}">`);
    const named = await get(`${test.url}/`, { Host: `localhost:${new URL(test.url).port}` });
    expect(named.body).toContain('sandbox-api-key');

    // A page on a rebound DNS name reaches 127.0.0.1 too, but names itself in Host: no key for it.
    const rebound = await get(`${test.url}/`, { Host: `attacker.example:${new URL(test.url).port}` });
    expect(rebound.status).toBe(200);
    expect(rebound.body).not.toContain('sandbox-api-key');
    expect(rebound.body).not.toContain(test.apiKey);

    keys = ['svc_test_expired_00'];
    expect((await get(`${test.url}/`)).body).not.toContain('sandbox-api-key');
  });

  it('serves only the files of the build', async () => {
    const script = await get(`${test.url}/dashboard/app.js`);
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toMatch(/^text\/javascript/);
    expect(script.headers['x-content-type-options']).toBe('nosniff');
    expect((await get(`${test.url}/dashboard/app.css`)).headers['content-type']).toMatch(/^text\/css/);
    for (const path of ['/dashboard/index.html', '/dashboard/..%2Fpackage.json', '/dashboard/constructor', '/dashboard/']) {
      const response = await get(`${test.url}${path}`);
      expect(response.status, path).toBe(404);
      expect(response.body).not.toContain('sandbox-api-key');
    }
  });

  it('says how to build the page when it is not built', async () => {
    const empty = await startTestService({ modules: [new DashboardModule({ assetsDir: tempDir('dashboard-empty-') })] });
    try {
      const page = await get(`${empty.url}/`);
      expect(page.status).toBe(503);
      expect(page.body).toContain('node scripts/build-dashboard.mjs');
    } finally {
      await empty.stop();
    }
  });

  it('reads the key sandbox up saved beside the store, and tolerates being registered twice', async () => {
    const folder = join(tempDir('dashboard-state-'), 'service');
    mkdirSync(folder, { recursive: true });
    const service = await createService({
      environment: 'sandbox',
      chains: [],
      storePath: join(folder, 'service.sqlite'),
      logger: { level: 'silent' },
      modules: [new DashboardModule({ assetsDir: assets }), new DashboardModule({ assetsDir: assets })],
    });
    try {
      const { workspaceId, apiKey } = service.bootstrapWorkspace('Sandbox workspace');
      writeFileSync(join(folder, 'access.json'), JSON.stringify({ workspaceId, apiKeys: [apiKey] }));
      const page = await get(`${service.url}/`);
      expect(page.body).toContain(`content="${apiKey}"`);
      expect((await get(`${service.url}/api/v1/sandbox/info`)).status).toBe(200);
    } finally {
      await service.stop();
    }
  });

  it('does not exist in production', async () => {
    const production = await createService({
      environment: 'production',
      chains: [],
      logger: { level: 'silent' },
      modules: [new DashboardModule({ assetsDir: assets, sandboxKeys: () => [test.apiKey] })],
    });
    try {
      expect((await get(`${production.url}/`)).status).toBe(404);
      expect((await get(`${production.url}/dashboard/app.js`)).status).toBe(404);
      expect((await get(`${production.url}/api/v1/sandbox/info`)).status).toBe(404);
    } finally {
      await production.stop();
    }
  });
});

describe('page helpers', () => {
  it('escapes injected values', () => {
    const html = renderIndex(`<head>${CONFIG_PLACEHOLDER}</head>`, { apiKey: '"><script>x</script>', workspaceId: 'ws_1' });
    expect(html).toBe(
      '<head><meta name="sandbox-api-key" content="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"><meta name="sandbox-workspace" content="ws_1"></head>',
    );
  });

  it('treats only loopback peers that name a loopback host as local', () => {
    const visitor = (remoteAddress: string, host: string | undefined) =>
      isLoopbackVisitor({ socket: { remoteAddress }, headers: host === undefined ? {} : { host } } as never);
    expect(visitor('127.0.0.1', '127.0.0.1:8080')).toBe(true);
    expect(visitor('::ffff:127.0.0.1', 'localhost:8080')).toBe(true);
    expect(visitor('::1', '[::1]:8080')).toBe(true);
    expect(visitor('127.0.0.1', 'LOCALHOST')).toBe(true);
    expect(visitor('10.0.0.5', '127.0.0.1:8080')).toBe(false);
    expect(visitor('127.0.0.1', 'evil.example:8080')).toBe(false);
    expect(visitor('127.0.0.1', 'localhost.evil.example')).toBe(false);
    expect(visitor('127.0.0.1', '127.0.0.1.nip.io')).toBe(false);
    expect(visitor('127.0.0.1', undefined)).toBe(false);
    expect(visitor('127.0.0.1', '127.0.0.1:8080\r\nX: y')).toBe(false);
  });
});
