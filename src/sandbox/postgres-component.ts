import { createHash } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import type { SandboxComponent } from './sandbox.js';
import { postgresServerUser, startLocalPostgres, unreachableAncestor } from '../service/store/postgres/local-server.js';

/** A throwaway Postgres server (campaigns and tests that need one of their own), as the sandbox starts its own. */
export { startScratchPostgres } from '../service/store/postgres/local-server.js';

/**
 * Where `sandbox up --database postgres` keeps its server's data: `<state>/postgres`, unless Postgres cannot reach
 * it there. As root the server runs as the `postgres` user (Postgres refuses root), and that user must be able to
 * enter every folder above its data folder. A state folder inside `mktemp -d` (mode 0700, owned by root: what CI
 * running as root makes by default) shuts it out. Loosening that folder's mode would open someone else's folder to
 * every user, so instead the cluster moves to a folder of the postgres user's own (its home, else the temp folder),
 * named after the state folder and one per state folder (a hash of its real path), and `<state>/postgres-location`
 * says where it went. Removing the state folder leaves that cluster behind (docs/devnet.md says so).
 */
export function postgresDataDir(stateDir: string): string {
  const inState = join(resolve(stateDir), 'postgres');
  const user = postgresServerUser();
  if (user === undefined || unreachableAncestor(inState, user) === undefined) return inState;
  const base = user.home !== '' && existsSync(user.home) ? user.home : tmpdir();
  const id = createHash('sha256')
    .update(realpathSync(resolve(stateDir)))
    .digest('hex')
    .slice(0, 16);
  return join(base, 'settlement-sandbox', `${basename(resolve(stateDir))}-${id}`);
}

/** The folder that holds relocated clusters: the postgres user's own (0700), so it can enter it and nobody else. */
function prepareRelocated(dataDir: string, stateDir: string): void {
  const user = postgresServerUser();
  if (user === undefined || dataDir === join(resolve(stateDir), 'postgres')) return;
  const parent = join(dataDir, '..');
  mkdirSync(parent, { recursive: true, mode: 0o700 });
  chownSync(parent, user.uid, user.gid);
  chmodSync(parent, 0o700);
  writeFileSync(join(resolve(stateDir), 'postgres-location'), `${dataDir}\n`);
}

/**
 * `sandbox up --database postgres` without a URL: a Postgres server of the sandbox's own, data in
 * `<state>/postgres` (or where `postgresDataDir` moved it), started before the service and stopped after it.
 * `--fresh` starts it empty.
 */
export function localPostgresComponent(found: { url?: string }): SandboxComponent {
  return {
    name: 'postgres',
    async start(context) {
      const dataDir = postgresDataDir(context.layout.root);
      prepareRelocated(dataDir, context.layout.root);
      await stopLeftover(dataDir);
      if (context.fresh) rmSync(dataDir, { recursive: true, force: true });
      const server = await startLocalPostgres({ dataDir });
      found.url = server.url;
      context.onProgress(`postgres listening on 127.0.0.1:${server.port} (data in ${dataDir})`);
      return { stop: () => server.stop() };
    },
  };
}

/**
 * A sandbox killed outright (SIGKILL of its supervisor) leaves its Postgres running, holding the data folder. The
 * state folder's lock says no other sandbox owns it, so that server is ours: stop it (fast shutdown) first.
 */
async function stopLeftover(dataDir: string): Promise<void> {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return;
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + 10_000;
  while (alive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  if (alive(pid)) process.kill(pid, 'SIGKILL');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
