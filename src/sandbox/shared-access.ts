import { linkSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
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
