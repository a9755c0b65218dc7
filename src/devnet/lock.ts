import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { SandboxAlreadyRunningError } from './errors.js';

/** Content of `sandbox.lock`: who owns the running sandbox of a state folder. */
export interface LockOwner {
  pid: number;
  startedAt: string;
}

export interface StateLock {
  readonly owner: LockOwner;
  release(): void;
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to someone else, which still means the lock is held.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

/**
 * A detached supervisor is re-parented to pid 1 when `up --detach` exits; where pid 1 reaps late (some
 * container inits), the exited process lingers as a zombie that signal 0 still reaches.
 */
function isZombie(pid: number): boolean {
  if (process.platform !== 'linux') return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state === 'Z' || state === 'X';
  } catch {
    return false;
  }
}

export function readLockOwner(lockPath: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(readFileSync(lockPath, 'utf8')) as Partial<LockOwner>;
    return typeof owner.pid === 'number' ? { pid: owner.pid, startedAt: String(owner.startedAt ?? '') } : undefined;
  } catch {
    return undefined;
  }
}

/** The owner of the lock if its process is alive; a lock left by a killed process counts as free. */
export function liveLockOwner(lockPath: string): LockOwner | undefined {
  const owner = readLockOwner(lockPath);
  return owner && isProcessAlive(owner.pid) ? owner : undefined;
}

/**
 * One running sandbox per state folder. The lock file is created exclusively; a stale one (its pid is gone)
 * is taken over, so a killed sandbox never blocks the next `up`.
 */
export function acquireStateLock(lockPath: string, stateDir: string, pid: number = process.pid): StateLock {
  const owner: LockOwner = { pid, startedAt: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = openSync(lockPath, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readLockOwner(lockPath);
      // A lock naming this pid but written before this process started is a leftover of an earlier life with the
      // same pid: a container killed and started again runs its main process as pid 1 both times, and would
      // otherwise refuse its own state folder. (A lock this process took itself still counts.)
      const leftOver = holder?.pid === process.pid && Date.parse(holder.startedAt) < performance.timeOrigin;
      if (holder && !leftOver && isProcessAlive(holder.pid)) throw new SandboxAlreadyRunningError(stateDir, holder.pid);
      if (!holder && attempt === 0) {
        // Created an instant ago by a process still writing it: give it a moment before calling it stale.
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
        continue;
      }
      rmSync(lockPath, { force: true });
      continue;
    }
    writeSync(fd, JSON.stringify(owner));
    closeSync(fd);
    let released = false;
    return {
      owner,
      release() {
        if (released) return;
        released = true;
        if (readLockOwner(lockPath)?.pid === pid) rmSync(lockPath, { force: true });
      },
    };
  }
  const holder = readLockOwner(lockPath);
  throw new SandboxAlreadyRunningError(stateDir, holder?.pid ?? 0);
}
