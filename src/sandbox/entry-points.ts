import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Processes the sandbox forks: the detached supervisor (`up --detach`) and a service instance (`--instances N`). */
export type ProcessEntry = 'supervisor' | 'service-worker';

const HERE = dirname(fileURLToPath(import.meta.url));

/**
 * The file to fork for `entry`. scripts/build-bundle.mjs bundles both entries into dist/bundle/ from the compiled
 * dist/src/sandbox/ (one file starts in about half the CPU of ~700 modules). The bundle is used only when it is at
 * least as new as the compiled entry: tsc rewrites every output on each build, so a `tsc` run after the bundle was
 * made (a developer's, or the tests' ensureBuilt) falls back to the compiled code instead of running stale code.
 * Inside the bundle (this module bundled with the supervisor) its sibling bundle is the one to fork.
 */
export function processEntry(entry: ProcessEntry): string {
  // Bundled, this module sits in dist/bundle/ or in one of its shared chunks (dist/bundle/chunks/).
  const bundleRoot = basename(HERE) === 'chunks' && basename(dirname(HERE)) === 'bundle' ? dirname(HERE) : HERE;
  if (basename(bundleRoot) === 'bundle') return join(bundleRoot, `${entry}.js`);
  const compiled = join(HERE, `${entry}.js`);
  const bundled = join(HERE, '..', '..', 'bundle', `${entry}.js`);
  try {
    if (existsSync(bundled) && statSync(bundled).mtimeMs >= statSync(compiled).mtimeMs) return bundled;
  } catch {
    // The compiled entry is missing too: the caller reports that.
  }
  return compiled;
}
