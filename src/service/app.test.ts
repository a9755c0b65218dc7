import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { Writable } from 'node:stream';
import WebSocket, { WebSocketServer } from 'ws';
import { createService } from './app.js';
import { serviceLayout, startSandboxService } from '../sandbox/service-component.js';
import type { ServiceModule } from './module.js';
import { startTestService } from '../../test/support/service/service.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'service-app-'));
  dirs.push(dir);
  return dir;
}

describe('createService', () => {
  it('listens on 127.0.0.1 with a free port and reports its URLs', async () => {
    const t = await startTestService();
    try {
      expect(t.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(t.service.wsUrl).toBe(`${t.url.replace('http', 'ws')}/api/v1/ws`);
      expect(t.service.server.listening).toBe(true);
    } finally {
      await t.stop();
      await t.stop();
    }
    expect(t.service.server.listening).toBe(false);
    expect(t.service.store.open).toBe(false);
  });

  it('writes one structured log line per request, carrying the X-Request-Id', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const t = await startTestService({ logger: pino({ level: 'info' }, sink) });
    try {
      const response = await t.request('GET', '/api/v1/sandbox/keys');
      const requestId = response.headers.get('x-request-id');
      expect(requestId).toMatch(/^req_/);
      await new Promise((resolve) => setImmediate(resolve));
      const line = lines.find((entry) => entry.requestId === requestId);
      expect(line).toMatchObject({ msg: 'request', method: 'GET', path: '/api/v1/sandbox/keys', status: 200, workspaceId: t.workspaceId });
      expect(typeof line!.durationMs).toBe('number');
      expect(JSON.stringify(lines)).not.toContain(t.apiKey);
    } finally {
      await t.stop();
    }
  });

  it('runs module setup, start and stop in order, with their migrations', async () => {
    const log: string[] = [];
    const module = (name: string): ServiceModule => ({
      name,
      migrations: { module: name, migrations: [{ name: '001', up: (db) => db.exec(`CREATE TABLE ${name}_things (id TEXT)`) }] },
      setup: (ctx) =>
        void log.push(`setup ${name} ${ctx.store.db.prepare(`SELECT COUNT(*) AS n FROM ${name}_things`).get() ? 'tables' : ''}`),
      start: (ctx) => void log.push(`start ${name} ${ctx.url.startsWith('http://') ? 'url' : ''}`),
      stop: () => void log.push(`stop ${name}`),
    });
    const t = await startTestService({ modules: [module('first'), module('second')] });
    await t.stop();
    expect(log).toEqual(['setup first tables', 'setup second tables', 'start first url', 'start second url', 'stop second', 'stop first']);
  });

  it('a line logged after stop is dropped, not thrown from a closed log file', async () => {
    const file = join(tempDir(), 'service.log');
    const service = await createService({ environment: 'sandbox', chains: [], logger: { file } });
    service.logger.warn('before stop');
    await service.stop();
    // The log file is closed by now; late work of the stopped service (a chain read in flight, an idle connection's
    // error) still logs.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(() => service.logger.error({ err: new Error('late') }, 'log delivery failed; reconnecting to re-read')).not.toThrow();
    const lines = readFileSync(file, 'utf8');
    expect(lines).toContain('before stop');
    expect(lines).not.toContain('log delivery failed');
  });

  it('a module that fails to start stops the ones started and closes everything', async () => {
    const log: string[] = [];
    await expect(
      createService({
        environment: 'sandbox',
        chains: [],
        logger: { level: 'silent' },
        modules: [
          { name: 'ok', stop: () => void log.push('stop ok') },
          { name: 'broken', start: () => Promise.reject(new Error('cannot start')), stop: () => void log.push('stop broken') },
        ],
      }),
    ).rejects.toThrow('cannot start');
    expect(log).toEqual(['stop broken', 'stop ok']);
  });

  it('hosts WebSocket upgrades of modules on the same server; unknown paths get 404', async () => {
    const sockets = new WebSocketServer({ noServer: true });
    sockets.on('connection', (socket) => socket.send(JSON.stringify({ type: 'hello' })));
    const t = await startTestService({
      modules: [
        {
          name: 'echo-ws',
          setup: (ctx) =>
            ctx.upgrades.add('/api/v1/echo-ws', (req, socket, head) =>
              sockets.handleUpgrade(req, socket, head, (ws) => sockets.emit('connection', ws, req)),
            ),
          stop: () => sockets.close(),
        },
      ],
    });
    try {
      const message = await new Promise<string>((resolve, reject) => {
        const client = new WebSocket(`${t.url.replace('http', 'ws')}/api/v1/echo-ws`);
        client.on('message', (data) => {
          resolve(data.toString());
          client.close();
        });
        client.on('error', reject);
      });
      expect(JSON.parse(message)).toEqual({ type: 'hello' });
      const refused = await new Promise<number>((resolve) => {
        const client = new WebSocket(`${t.url.replace('http', 'ws')}/nowhere`);
        client.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        client.on('error', () => undefined);
      });
      expect(refused).toBe(404);
    } finally {
      await t.stop();
    }
  });
});

describe('startSandboxService', () => {
  it('keeps its store in the state folder, creates a workspace and key, and reuses them on restart', async () => {
    const stateDir = tempDir();
    const first = await startSandboxService({ stateDir, chains: [], logger: { level: 'silent' } });
    expect(first.api.store).toEqual({ kind: 'sqlite', location: serviceLayout(stateDir).store });
    // Under `npm run test:postgres` a file store is a Postgres schema, so the file itself is SQLite's alone.
    if (process.env.SANDBOX_TEST_STORE !== 'postgres') expect(existsSync(serviceLayout(stateDir).store)).toBe(true);
    expect(first.api.apiKeys).toHaveLength(1);
    expect(first.api.apiKeys[0]).toMatch(/^svc_test_/);
    expect(first.api.url).toBe(first.service.url);
    expect(first.service.clock.kind).toBe('test');
    await first.service.stop();

    const second = await startSandboxService({ stateDir, chains: [], logger: { level: 'silent' }, previous: first.api });
    try {
      expect(second.api.workspaceId).toBe(first.api.workspaceId);
      expect(second.api.apiKeys).toEqual(first.api.apiKeys);
      const response = await fetch(`${second.api.url}/api/v1/sandbox/keys`, {
        headers: { Authorization: `Bearer ${second.api.apiKeys[0]}` },
      });
      expect(response.status).toBe(200);
    } finally {
      await second.service.stop();
    }

    const fresh = await startSandboxService({
      stateDir,
      chains: [],
      logger: { level: 'silent' },
      previous: { ...first.api, apiKeys: ['svc_test_0000000000000000_' + '0'.repeat(64)] },
    });
    try {
      expect(fresh.api.workspaceId).not.toBe(first.api.workspaceId);
    } finally {
      await fresh.service.stop();
    }
  });
});
