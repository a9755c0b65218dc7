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

/** A manifest whose sandbox runs a service: what every command calling the service's API reads. */
export type ServiceManifest = SandboxManifest & { api: NonNullable<SandboxManifest['api']> };

/**
 * `sandbox.json` of a sandbox with a service: the API's URL and keys. A missing file says how to start one; a
 * manifest without its `api` block belongs to a sandbox still starting (the block is written once the service listens).
 */
export function readServiceManifest(stateDir: string = DEFAULT_STATE_DIR): ServiceManifest {
  const path = stateLayout(stateDir).manifest;
  let manifest: SandboxManifest;
  try {
    manifest = readManifest(stateDir);
  } catch (error) {
    if (!(error instanceof SandboxNotRunningError)) throw error;
    throw new SandboxError(`no sandbox at ${path}: start one with \`sandbox up\` (or pass --state-dir)`, {
      code: 'not_running',
      docsPath: 'docs/devnet.md#state-folder',
    });
  }
  if (manifest.api === undefined || manifest.api.apiKeys.length === 0) {
    throw new SandboxError(`${path} lists no running service (no api block): is \`sandbox up\` still starting?`, {
      code: 'service_not_ready',
      docsPath: 'docs/devnet.md#state-folder',
    });
  }
  return manifest as ServiceManifest;
}

/** Writes `sandbox.json` of a state folder (atomically: readers never see half of it). */
export function writeManifest(layout: StateLayout, manifest: SandboxManifest): void {
  // It holds private keys (public test keys by default, but a custom mnemonic is someone's secret).
  writeFileAtomic(layout.manifest, JSON.stringify(manifest, null, 2) + '\n', 0o600);
}
