import { fork } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { SandboxAlreadyRunningError, SandboxError } from '../devnet/errors.js';
import { isProcessAlive, liveLockOwner, readLockOwner } from '../devnet/lock.js';
import type { SandboxManifest } from '../contracts/deployment.js';
import { createRpcClient } from '../devnet/rpc.js';
import type { SandboxRunOptions } from './run.js';
import { ensureDir, stateLayout } from '../devnet/state-dir.js';
import { processEntry } from './entry-points.js';

/**
 * The detached sandbox: `sandbox up --detach` forks a supervisor (supervisor.ts) that owns the chains and
 * outlives the command; `down` and `status` find it through the state folder's lock file.
 */

/** Messages from the supervisor to the `up --detach` command that started it. */
export type SupervisorMessage =
  | { type: 'progress'; message: string }
  | { type: 'ready'; manifest: SandboxManifest }
  | { type: 'failed'; error: { code: string; message: string; docsPath?: string } };

/** Starts a detached sandbox and resolves once it is ready (or rejects with the supervisor's error). */
export async function startDetached(
  options: SandboxRunOptions,
  onProgress: (message: string) => void = () => {},
): Promise<SandboxManifest> {
  const layout = stateLayout(options.stateDir);
  const owner = liveLockOwner(layout.lock);
  if (owner) throw new SandboxAlreadyRunningError(layout.root, owner.pid);
  const supervisor = processEntry('supervisor');
  if (!existsSync(supervisor)) {
    throw new SandboxError(`Supervisor ${supervisor} is missing: build with \`npm run build\`.`, { code: 'not_built' });
  }
  ensureDir(layout.root);
  const log = openSync(layout.log, 'a');
  const child = fork(supervisor, [JSON.stringify(options)], {
    detached: true,
    stdio: ['ignore', log, log, 'ipc'],
    // A detached sandbox must not inherit the test runner's or CLI's flags (inspector ports, loaders).
    execArgv: [],
  });
  closeSync(log);

  let onInterrupt = () => {};
  try {
    return await new Promise<SandboxManifest>((resolve, reject) => {
      child.on('message', (message: SupervisorMessage) => {
        if (message.type === 'progress') onProgress(message.message);
        else if (message.type === 'ready') resolve(message.manifest);
        else reject(new SandboxError(message.error.message, { code: message.error.code, docsPath: message.error.docsPath }));
      });
      child.once('exit', (code, signal) => {
        reject(
          new SandboxError(
            `The sandbox supervisor exited before it was ready (${signal ?? `code ${code}`}). Its log:\n${tail(layout.log)}`,
            { code: 'supervisor_failed' },
          ),
        );
      });
      child.once('error', reject);
      // Ctrl-C while waiting cancels the start: the supervisor stops what it started (it lives in its own session).
      onInterrupt = () => {
        child.kill('SIGTERM');
        reject(new SandboxError('Start cancelled; the background sandbox is stopping.', { code: 'cancelled' }));
      };
      process.once('SIGINT', onInterrupt);
      process.once('SIGTERM', onInterrupt);
    });
  } finally {
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onInterrupt);
    // Cut every tie so this command can exit while the supervisor lives on.
    child.removeAllListeners();
    if (child.connected) child.disconnect();
    child.unref();
  }
}

export interface StopResult {
  /** A sandbox was running and has stopped. */
  stopped: boolean;
  pid?: number;
  /** It did not stop within the timeout and was killed (its chains were saved on the previous clean stop only). */
  forced: boolean;
}

/** Stops the sandbox of a state folder, detached or in a terminal, and waits until its process is gone. */
export async function stopSandbox(stateDir: string, options: { timeoutMs?: number } = {}): Promise<StopResult> {
  const layout = stateLayout(stateDir);
  const owner = liveLockOwner(layout.lock);
  if (!owner) return { stopped: false, forced: false };
  const timeoutMs = options.timeoutMs ?? 30_000;
  try {
    process.kill(owner.pid, 'SIGTERM');
  } catch {
    return { stopped: true, pid: owner.pid, forced: false };
  }
  if (await waitForExit(owner.pid, timeoutMs)) return { stopped: true, pid: owner.pid, forced: false };
  // Killing the owner is enough: the chains' watchdogs stop every anvil when their owner disappears.
  try {
    process.kill(owner.pid, 'SIGKILL');
  } catch {
    // Gone in the meantime.
  }
  await waitForExit(owner.pid, 5_000);
  return { stopped: true, pid: owner.pid, forced: true };
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isProcessAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return !isProcessAlive(pid);
}

export interface ChainStatus {
  name: string;
  chainId: number;
  rpcUrl: string;
  /** The chain answers on its URL with its own chain id. */
  answering: boolean;
  blockNumber?: number;
  timestamp?: number;
  error?: string;
}

export interface SandboxStatus {
  running: boolean;
  stateDir: string;
  pid?: number;
  startedAt?: string;
  /** A lock file whose process is gone: the sandbox was killed (the next `up` takes the folder over). */
  stale: boolean;
  chains: ChainStatus[];
  manifest?: SandboxManifest;
}

export async function sandboxStatus(stateDir: string): Promise<SandboxStatus> {
  const layout = stateLayout(stateDir);
  const owner = liveLockOwner(layout.lock);
  const stale = !owner && readLockOwner(layout.lock) !== undefined;
  let manifest: SandboxManifest | undefined;
  try {
    manifest = JSON.parse(readFileSync(layout.manifest, 'utf8')) as SandboxManifest;
  } catch {
    manifest = undefined;
  }
  if (!owner) return { running: false, stateDir: layout.root, stale, chains: [], ...(manifest ? { manifest } : {}) };
  const chains = await Promise.all((manifest?.chains ?? []).map((chain) => probeChain(chain)));
  return {
    running: true,
    stateDir: layout.root,
    pid: owner.pid,
    startedAt: owner.startedAt,
    stale,
    chains,
    ...(manifest ? { manifest } : {}),
  };
}

async function probeChain(chain: SandboxManifest['chains'][number]): Promise<ChainStatus> {
  const rpc = createRpcClient(chain.rpcUrl);
  const base = { name: chain.name, chainId: chain.chainId, rpcUrl: chain.rpcUrl };
  try {
    const [chainId, head] = await Promise.all([
      rpc.call<string>('eth_chainId', [], { timeoutMs: 2_000 }),
      rpc.call<{ number: string; timestamp: string }>('eth_getBlockByNumber', ['latest', false], { timeoutMs: 2_000 }),
    ]);
    // Never report a stranger's chain on a reused port as ours.
    if (Number(chainId) !== chain.chainId) return { ...base, answering: false, error: `answers with chain id ${Number(chainId)}` };
    return { ...base, answering: true, blockNumber: Number(head.number), timestamp: Number(head.timestamp) };
  } catch (error) {
    return { ...base, answering: false, error: (error as Error).message };
  } finally {
    rpc.close();
  }
}

function tail(path: string, lines = 20): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
