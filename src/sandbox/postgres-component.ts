import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { SandboxComponent } from './sandbox.js';
import { startLocalPostgres } from '../service/store/postgres/local-server.js';

/** A throwaway Postgres server (campaigns and tests that need one of their own), as the sandbox starts its own. */
export { startScratchPostgres } from '../service/store/postgres/local-server.js';

/** Where `sandbox up --database postgres` keeps its server's data. */
export function postgresDataDir(stateDir: string): string {
  return join(stateDir, 'postgres');
}

/**
 * `sandbox up --database postgres` without a URL: a Postgres server of the sandbox's own, data in
 * `<state>/postgres`, started before the service and stopped after it. `--fresh` starts it empty.
 */
export function localPostgresComponent(found: { url?: string }): SandboxComponent {
  return {
    name: 'postgres',
    async start(context) {
      const dataDir = postgresDataDir(context.layout.root);
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
