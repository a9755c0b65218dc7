import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxManifest } from '../contracts/deployment.js';
import { type LocalPostgres, startLocalPostgres } from '../service/store/postgres/local-server.js';
import { ensureBuilt } from '../../test/support/devnet/dist.js';
import { runCli } from '../../test/support/devnet/processes.js';

const dirs: string[] = [];
/** As root the sandbox's Postgres runs as the postgres user, which must be able to enter the state folder. */
const stateDir = (name: string) => {
  const dir = mkdtempSync(join(tmpdir(), `sandbox-db-${name}-`));
  chmodSync(dir, 0o755);
  dirs.push(dir);
  return dir;
};

let server: LocalPostgres | undefined;
beforeAll(async () => {
  await ensureBuilt();
  server = await startLocalPostgres({ dataDir: join(stateDir('server'), 'data'), ephemeral: true });
}, 180_000);
afterAll(async () => {
  for (const dir of dirs) await runCli(['down', '--state-dir', dir]);
  await server?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function api(manifest: SandboxManifest, method: string, path: string, body?: unknown) {
  const response = await fetch(`${manifest.api?.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${manifest.api?.apiKeys[0]}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('sandbox up --database postgres', () => {
  it('runs a Postgres of its own in the state folder, keeps the store across down and up, and stops it with down', async () => {
    const dir = stateDir('own');
    const up = await runCli([
      'up',
      '--detach',
      '--json',
      '--database',
      'postgres',
      '--solvers',
      '0',
      '--state-dir',
      dir,
      '--chain-ports',
      'any',
    ]);
    expect(up.code, up.stderr).toBe(0);
    const manifest = JSON.parse(up.stdout) as SandboxManifest;
    expect(manifest.api?.store).toMatchObject({
      kind: 'postgres',
      location: expect.stringMatching(/^postgres:\/\/sandbox@127\.0\.0\.1:\d+\/sandbox$/),
    });
    expect(existsSync(join(dir, 'postgres', 'PG_VERSION'))).toBe(true);
    expect(existsSync(join(dir, 'service', 'service.sqlite'))).toBe(false);

    const created = await api(manifest, 'POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['order.*'] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    // The rows are in Postgres itself, read here with another client.
    const client = new pg.Client({ connectionString: manifest.api?.store?.location });
    await client.connect();
    const rows = await client.query('SELECT id FROM webhooks');
    await client.end();
    expect(rows.rows.map((row) => row.id)).toEqual([created.body.webhookId]);

    const down = await runCli(['down', '--state-dir', dir]);
    expect(down.code, down.stderr).toBe(0);
    // A clean Postgres shutdown removes its pid file.
    expect(existsSync(join(dir, 'postgres', 'postmaster.pid'))).toBe(false);

    const again = await runCli([
      'up',
      '--detach',
      '--json',
      '--database',
      'postgres',
      '--solvers',
      '0',
      '--state-dir',
      dir,
      '--chain-ports',
      'any',
    ]);
    expect(again.code, again.stderr).toBe(0);
    const second = JSON.parse(again.stdout) as SandboxManifest;
    expect(second.api?.workspaceId).toBe(manifest.api?.workspaceId);
    const listed = await api(second, 'GET', '/api/v1/webhooks');
    expect((listed.body.data as Array<{ webhookId: string }>).map((hook) => hook.webhookId)).toEqual([created.body.webhookId]);
    await runCli(['down', '--state-dir', dir]);
  });

  it('uses --database-url, or DATABASE_URL when it names a Postgres database', async () => {
    const url = server?.url as string;
    const dir = stateDir('url');
    const up = await runCli(['up', '--detach', '--json', '--solvers', '0', '--state-dir', dir, '--chain-ports', 'any'], {
      env: { DATABASE_URL: url },
    });
    expect(up.code, up.stderr).toBe(0);
    const manifest = JSON.parse(up.stdout) as SandboxManifest;
    expect(manifest.api?.store).toEqual({ kind: 'postgres', location: url });
    expect(existsSync(join(dir, 'postgres'))).toBe(false);
    expect((await api(manifest, 'GET', '/api/v1/webhooks')).status).toBe(200);
    await runCli(['down', '--state-dir', dir]);

    // Another tool's DATABASE_URL is not ours to read: the default SQLite store.
    const other = stateDir('other');
    const sqlite = await runCli(['up', '--detach', '--json', '--solvers', '0', '--state-dir', other, '--chain-ports', 'any'], {
      env: { DATABASE_URL: 'mysql://root@localhost/app' },
    });
    expect(sqlite.code, sqlite.stderr).toBe(0);
    expect((JSON.parse(sqlite.stdout) as SandboxManifest).api?.store).toEqual({
      kind: 'sqlite',
      location: join(other, 'service', 'service.sqlite'),
    });
    await runCli(['down', '--state-dir', other]);
  });

  it('refuses unknown stores, non-Postgres URLs, conflicting flags and --fresh on a database it does not own', async () => {
    const dir = stateDir('bad');
    const cases: Array<[string[], RegExp]> = [
      [['--database', 'mysql'], /--database: "mysql" is not sqlite or postgres/],
      [['--database-url', 'http://127.0.0.1/x'], /--database-url: "http:\/\/127\.0\.0\.1\/x" is not a postgres/],
      [['--database', 'sqlite', '--database-url', 'postgres://a@127.0.0.1/b'], /--database sqlite and --database-url: use one of them/],
      [['--fresh', '--database-url', 'postgres://a@127.0.0.1/b'], /--fresh with a Postgres URL/],
    ];
    for (const [flags, message] of cases) {
      const result = await runCli(['up', '--detach', '--state-dir', dir, ...flags]);
      expect(result.code, flags.join(' ')).toBe(1);
      expect(result.stderr).toMatch(message);
    }
  });
});
