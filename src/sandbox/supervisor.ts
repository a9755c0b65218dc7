/**
 * Entry point of a detached sandbox (`sandbox up --detach`): owns the chains (and later the service), reports
 * readiness to the command that forked it, and stops everything on SIGTERM (`sandbox down`), SIGINT or
 * SIGHUP. Its own death by SIGKILL is covered by the chains' watchdogs. Output goes to `sandbox.log`.
 */
import type { SupervisorMessage } from './daemon.js';
import { installHeapProbe } from './heap-probe.js';
import type { SandboxRunOptions } from './run.js';
import { runSandbox } from './run.js';
import type { Sandbox } from './sandbox.js';

process.title = 'sandbox-supervisor';

const log = (message: string) => process.stdout.write(`${new Date().toISOString()} ${message}\n`);
const send = (message: SupervisorMessage) => {
  if (process.connected) process.send?.(message);
};

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '{}') as SandboxRunOptions;
  let sandbox: Sandbox | undefined;
  let stopRequested: string | undefined;

  const shutDown = async (why: string, exitCode: number) => {
    log(`stopping (${why})`);
    try {
      await sandbox?.stop();
      log('stopped');
    } catch (error) {
      log(`stop failed: ${(error as Error).message}`);
      exitCode = 1;
    }
    process.exit(exitCode);
  };
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (!sandbox) stopRequested = signal;
      else void shutDown(signal, 0);
    });
  }
  // `kill -USR2 <pid>`: the heap after a full GC in memory.json (the soak's flat-memory figure, heap-probe.ts).
  installHeapProbe(options.stateDir, log);
  // The parent going away is expected (that is what detaching means); it must not stop us.
  process.on('disconnect', () => {});

  log(`starting sandbox in ${options.stateDir}`);
  try {
    sandbox = await runSandbox(options, (message) => {
      log(message);
      send({ type: 'progress', message });
    });
  } catch (error) {
    const { code, docsPath } = error as { code?: string; docsPath?: string };
    log(`failed: ${(error as Error).stack ?? String(error)}`);
    send({
      type: 'failed',
      error: { code: code ?? 'internal_error', message: (error as Error).message, ...(docsPath ? { docsPath } : {}) },
    });
    process.exitCode = 1;
    if (process.connected) process.disconnect();
    return;
  }
  log(`ready: ${sandbox.chains.map((c) => `${c.name} ${c.rpcUrl}`).join(', ')}`);
  if (stopRequested) return shutDown(stopRequested, 0);
  send({ type: 'ready', manifest: sandbox.manifest });

  const exit = await sandbox.exited;
  if (exit.reason === 'chain-exited') await shutDown(`chain ${exit.chain} exited on its own (code ${exit.code ?? '?'})`, 1);
}

void main();
