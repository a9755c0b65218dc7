import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxManifest } from '../contracts/deployment.js';
import { findPostgresBinaries, type LocalPostgres, startScratchPostgres } from '../service/store/postgres/local-server.js';
import { ensureBuilt } from '../../test/support/devnet/dist.js';
import { runCli } from '../../test/support/devnet/processes.js';

const dirs: string[] = [];
/** Clusters kept outside their state folder (root, a folder the postgres user cannot enter): removed at the end. */
const relocated: string[] = [];
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
  server = await startScratchPostgres();
}, 180_000);
afterAll(async () => {
  for (const dir of dirs) await runCli(['down', '--state-dir', dir]);
  await server?.stop();
  for (const dir of [...dirs, ...relocated]) rmSync(dir, { recursive: true, force: true });
});

/** `sandbox up --detach --json` with no solvers on free chain ports; the manifest it printed. */
async function up(dir: string, flags: string[] = [], env?: NodeJS.ProcessEnv): Promise<SandboxManifest> {
  const answer = await runCli(['up', '--detach', '--json', '--solvers', '0', '--state-dir', dir, '--chain-ports', 'any', ...flags], {
    ...(env === undefined ? {} : { env }),
  });
  expect(answer.code, answer.stderr).toBe(0);
  return JSON.parse(answer.stdout) as SandboxManifest;
}

/**
 * Postgres's own client (psql, over libpq): the store is read from outside with another library than the `pg` the
 * service uses. Resolves with stdout, or rejects with what Postgres said.
 */
function psql(url: string, sql: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(join(findPostgresBinaries(), 'psql'), [url, '-X', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-c', sql], (error, stdout, stderr) =>
      error ? reject(new Error(stderr.trim() || error.message)) : resolve(stdout.trim()),
    );
  });
}

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
    const manifest = await up(dir, ['--database', 'postgres']);
    expect(manifest.api?.store).toMatchObject({
      kind: 'postgres',
      location: expect.stringMatching(/^postgres:\/\/sandbox@127\.0\.0\.1:\d+\/sandbox$/),
    });
    expect(existsSync(join(dir, 'postgres', 'PG_VERSION'))).toBe(true);
    expect(existsSync(join(dir, 'service', 'service.sqlite'))).toBe(false);

    const created = await api(manifest, 'POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['order.*'] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    // The rows are in Postgres itself, read here with Postgres's own client.
    const url = manifest.api?.store?.location as string;
    expect(await psql(url, 'SELECT id FROM webhooks')).toBe(created.body.webhookId);
    // The ledger is append-only in the database itself: another client cannot rewrite or empty it either.
    expect((await api(manifest, 'POST', '/api/v1/sandbox/faults', { kind: 'oracle.withhold', count: 1 })).status).toBe(201);
    expect(Number(await psql(url, 'SELECT count(*) FROM ledger_entries'))).toBeGreaterThan(0);
    await expect(psql(url, "UPDATE ledger_entries SET payload = '{}'")).rejects.toThrow(/append-only/);
    await expect(psql(url, 'DELETE FROM ledger_entries')).rejects.toThrow(/append-only/);
    await expect(psql(url, 'TRUNCATE ledger_entries')).rejects.toThrow(/append-only/);
    // `sandbox ledger verify` reads the Postgres store named in sandbox.json.
    const verified = await runCli(['ledger', 'verify', '--json', '--state-dir', dir]);
    expect(verified.code, verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({
      path: url,
      ok: true,
      entries: Number(await psql(url, 'SELECT count(*) FROM ledger_entries')),
    });

    const down = await runCli(['down', '--state-dir', dir]);
    expect(down.code, down.stderr).toBe(0);
    // A clean Postgres shutdown removes its pid file.
    expect(existsSync(join(dir, 'postgres', 'postmaster.pid'))).toBe(false);

    const second = await up(dir, ['--database', 'postgres']);
    expect(second.api?.workspaceId).toBe(manifest.api?.workspaceId);
    const listed = await api(second, 'GET', '/api/v1/webhooks');
    expect((listed.body.data as Array<{ webhookId: string }>).map((hook) => hook.webhookId)).toEqual([created.body.webhookId]);
    await runCli(['down', '--state-dir', dir]);
  });

  it('works from a state folder inside a `mktemp -d` folder (0700): as root the cluster moves where Postgres can reach it', async () => {
    // What CI running as root makes by default: a private temp folder the postgres user cannot enter.
    const parent = mkdtempSync(join(tmpdir(), 'sandbox-db-private-'));
    dirs.push(parent);
    const dir = join(parent, 'state');
    dirs.push(dir);
    const manifest = await up(dir, ['--database', 'postgres']);
    const asRoot = process.getuid?.() === 0;
    const dataDir = asRoot ? readFileSync(join(dir, 'postgres-location'), 'utf8').trim() : join(dir, 'postgres');
    if (asRoot) relocated.push(dataDir);
    expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(true);
    // The private folder stays private: nothing loosened its mode.
    expect(statSync(parent).mode & 0o777).toBe(0o700);

    const created = await api(manifest, 'POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['order.*'] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await runCli(['down', '--state-dir', dir])).code).toBe(0);
    // The same cluster again on the next up: the store survived.
    const second = await up(dir, ['--database', 'postgres']);
    const listed = await api(second, 'GET', '/api/v1/webhooks');
    expect((listed.body.data as Array<{ webhookId: string }>).map((hook) => hook.webhookId)).toEqual([created.body.webhookId]);
    expect((await runCli(['down', '--state-dir', dir])).code).toBe(0);
    expect(existsSync(join(dataDir, 'postmaster.pid'))).toBe(false);
  });

  it('uses --database-url, or DATABASE_URL when it names a Postgres database', async () => {
    const url = server?.url as string;
    const dir = stateDir('url');
    const manifest = await up(dir, [], { DATABASE_URL: url });
    expect(manifest.api?.store).toEqual({ kind: 'postgres', location: url });
    expect(existsSync(join(dir, 'postgres'))).toBe(false);
    expect((await api(manifest, 'GET', '/api/v1/webhooks')).status).toBe(200);
    await runCli(['down', '--state-dir', dir]);

    // Another tool's DATABASE_URL is not ours to read: the default SQLite store.
    const other = stateDir('other');
    const sqlite = await up(other, [], { DATABASE_URL: 'mysql://root@localhost/app' });
    expect(sqlite.api?.store).toEqual({
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
      [['--instances', '2'], /--instances 2 needs Postgres: add --database postgres or --database-url/],
      [['--instances', '2', '--database', 'sqlite'], /--instances 2 needs Postgres/],
      [['--instances', '0', '--database', 'postgres'], /--instances: "0" must be a whole number from 1 to 16/],
      [['--instances', 'two', '--database', 'postgres'], /--instances: "two" must be a whole number/],
    ];
    for (const [flags, message] of cases) {
      const result = await runCli(['up', '--detach', '--state-dir', dir, ...flags]);
      // A flag value that cannot run is a usage error: exit 2 (README, Exit codes).
      expect(result.code, flags.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
    }
  });

  it('--instances 2: two service processes behind one port; the holder of the singleton work SIGKILLed, a live instance takes it over and a new worker joins', async () => {
    const dir = stateDir('instances');
    const manifest = await up(dir, ['--database', 'postgres', '--instances', '2']);
    expect(manifest.api?.instances).toBe(2);
    const instancesFile = join(dir, 'service', 'instances.json');
    const read = () => JSON.parse(readFileSync(instancesFile, 'utf8')) as Array<{ pid: number; instanceId: string; singleton: boolean }>;
    const before = read();
    expect(before).toHaveLength(2);
    expect(before.filter((instance) => instance.singleton)).toHaveLength(1);
    // Both answer on the one port: connections go to the workers in turn, and each names itself in Postgres.
    const names = await psql(
      manifest.api!.store!.location.replace(':***', ''),
      "SELECT count(DISTINCT application_name) FROM pg_stat_activity WHERE application_name LIKE 'settlement-sandbox bus %'",
    );
    expect(Number(names)).toBe(2);
    for (let i = 0; i < 4; i++) expect((await api(manifest, 'GET', '/api/v1/corridors')).status).toBe(200);
    // `sandbox status` names the instances and the holder of the singleton work.
    const status = await runCli(['status', '--json', '--state-dir', dir]);
    expect(status.code, status.stderr).toBe(0);
    const reported = (JSON.parse(status.stdout) as { instances: Array<{ pid: number; singleton: boolean }> }).instances;
    expect(reported.map((instance) => instance.pid).sort()).toEqual(before.map((instance) => instance.pid).sort());
    expect(reported.filter((instance) => instance.singleton)).toHaveLength(1);
    const text = await runCli(['status', '--state-dir', dir]);
    expect(text.stdout).toMatch(/Service instances \(2\): pid \d+.*\(singleton work\)/);

    const holder = before.find((instance) => instance.singleton)!;
    const other = before.find((instance) => !instance.singleton)!;
    process.kill(holder.pid, 'SIGKILL');
    const started = Date.now();
    let after = read();
    // Whichever live instance asks first takes the singleton work: the survivor, or the worker started in place of the
    // killed one (seen in about half the runs). Either is a take-over; what matters is that exactly one live instance
    // holds it, soon, and that the service keeps answering.
    const tookOver = (list: typeof after) =>
      list.length === 2 && !list.some((i) => i.pid === holder.pid) && list.filter((i) => i.singleton).length === 1;
    while (Date.now() - started < 10_000 && !tookOver(after)) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = read();
    }
    expect(tookOver(after), JSON.stringify({ holder: holder.pid, other: other.pid, after })).toBe(true);
    expect(after.some((instance) => instance.pid === other.pid)).toBe(true);
    expect(after).toHaveLength(2);
    expect(after.some((instance) => instance.pid === holder.pid)).toBe(false);
    expect(Date.now() - started).toBeLessThan(5_000 + 3_000);
    // The service kept answering through it.
    expect((await api(manifest, 'GET', '/api/v1/corridors')).status).toBe(200);
    expect((await runCli(['down', '--state-dir', dir])).code).toBe(0);
    for (const instance of after) expect(() => process.kill(instance.pid, 0)).toThrow();
  }, 120_000);
});
