import { readFileSync } from 'node:fs';
import { SandboxError, SandboxNotRunningError } from './errors.js';
import { liveLockOwner } from './lock.js';
import type { SandboxManifest } from '../contracts/deployment.js';
import { writeFileAtomic } from './chain-state.js';
import { DEFAULT_STATE_DIR, stateLayout, type StateLayout } from './state-dir.js';

/**
 * Reads `sandbox.json` of a state folder: what every other command (`clock`, `keys`, `scenario`, …) uses to
 * find the chains, contracts and keys of a sandbox started elsewhere. With `requireRunning`, a folder whose
 * sandbox is not running is an error (its URLs would point at nothing, or at a stranger on a reused port).
 */
export function readManifest(stateDir: string = DEFAULT_STATE_DIR, options: { requireRunning?: boolean } = {}): SandboxManifest {
  const layout = stateLayout(stateDir);
  if (options.requireRunning && !liveLockOwner(layout.lock)) throw new SandboxNotRunningError(layout.root);
  try {
    return JSON.parse(readFileSync(layout.manifest, 'utf8')) as SandboxManifest;
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') throw new SandboxNotRunningError(layout.root);
    throw new SandboxError(`${layout.manifest} is not readable: ${(cause as Error).message}`, { code: 'manifest_unreadable', cause });
  }
}

/** Writes `sandbox.json` of a state folder (atomically: readers never see half of it). */
export function writeManifest(layout: StateLayout, manifest: SandboxManifest): void {
  // It holds private keys (public test keys by default, but a custom mnemonic is someone's secret).
  writeFileAtomic(layout.manifest, JSON.stringify(manifest, null, 2) + '\n', 0o600);
}
