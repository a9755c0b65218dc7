import { linkSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ApiRequestError } from '../clients/rest-client.js';
import { SandboxError } from '../devnet/errors.js';
import { readSavedAccess, type SavedAccess } from './service-layout.js';

/**
 * The workspace and API key several service replicas hand out as one (`--access-file` on a shared volume). Every
 * replica reaches the same store, so a key made by one works on all; what must not happen is that each replica makes
 * its own and users get a different key depending on which replica answered first. The file is the tie-break: it is
 * created with link(2), which fails when the file exists, so exactly one replica's key is published, and a replica
 * that lost the race takes the winner's.
 */
export function publishSharedAccess(path: string, mine: SavedAccess, valid: (access: SavedAccess) => boolean): SavedAccess {
  mkdirSync(dirname(path), { recursive: true });
  const staged = `${path}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(staged, `${JSON.stringify(mine, null, 2)}\n`, { mode: 0o600 });
  try {
    linkSync(staged, path);
    return mine;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const theirs = readSavedAccess(path);
    if (theirs !== undefined && valid(theirs)) return theirs;
    // A file left from a store that was since emptied: its key opens nothing, so ours replaces it.
    renameSync(staged, path);
    return mine;
  } finally {
    rmSync(staged, { force: true });
  }
}

/** The solvers role: waits for a replica to publish the shared key (replicas and solvers start in any order). */
export async function waitForSharedAccess(path: string, timeoutMs: number): Promise<SavedAccess> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const access = readSavedAccess(path);
    if (access !== undefined && access.apiKeys.length > 0) return access;
    if (Date.now() > deadline)
      throw new SandboxError(`no service replica wrote ${path} within ${Math.round(timeoutMs / 1000)} s`, { code: 'access_missing' });
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Whether a failure to reach the service is one a replica restart or a load balancer without a backend explains. */
export function isServiceAway(error: unknown): boolean {
  if (error instanceof ApiRequestError) return error.status === 502 || error.status === 503 || error.status === 504;
  // fetch's "fetch failed" (connection refused or reset) and a WebSocket that could not open.
  const text = error instanceof Error ? `${error.message} ${String((error as { cause?: unknown }).cause ?? '')}` : String(error);
  return /fetch failed|ECONNREFUSED|ECONNRESET|EHOSTUNREACH|socket hang up|Unexpected server response: 50[234]/.test(text);
}

/**
 * The solvers role: starts its solvers once the service answers. A load balancer whose replicas are still starting
 * (or one being replaced) answers 502/503, or the connection is refused; the start is tried again, every second,
 * until `timeoutMs`. Any other failure (a refused key, a bad manifest) is thrown at once.
 */
export async function startWhenServiceAnswers<T>(
  start: () => Promise<T>,
  timeoutMs: number,
  onRetry: (reason: string) => void,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await start();
    } catch (error) {
      if (!isServiceAway(error) || Date.now() >= deadline) throw error;
      onRetry(
        `the service does not answer yet (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); trying again (${attempt})`,
      );
      await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, Math.max(0, deadline - Date.now()))));
    }
  }
}
