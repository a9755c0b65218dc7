import { existsSync, mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const DEFAULT_STATE_DIR = '.sandbox';

/**
 * Layout of a sandbox's state folder:
 *
 *   sandbox.json            the manifest (URLs, addresses, accounts and keys)
 *   sandbox.lock            pid of the process that owns the running sandbox
 *   sandbox.log             output of a detached sandbox
 *   chains/<name>/state.json  anvil state, saved on a clean stop and loaded on the next start
 *   chains/<name>/meta.json   what that state belongs to (deployment id, chain id, time offset)
 *   chains/<name>/cache/      anvil --cache-path, removed when the chain stops
 */
export interface StateLayout {
  root: string;
  manifest: string;
  lock: string;
  log: string;
  chainDir(name: string): string;
  chainState(name: string): string;
  chainMeta(name: string): string;
  chainCache(name: string): string;
}

export function stateLayout(stateDir: string): StateLayout {
  const root = resolve(stateDir);
  const chainDir = (name: string) => join(root, 'chains', name);
  return {
    root,
    manifest: join(root, 'sandbox.json'),
    lock: join(root, 'sandbox.lock'),
    log: join(root, 'sandbox.log'),
    chainDir,
    chainState: (name) => join(chainDir(name), 'state.json'),
    chainMeta: (name) => join(chainDir(name), 'meta.json'),
    chainCache: (name) => join(chainDir(name), 'cache'),
  };
}

/**
 * Shared cache of deployments and genesis states, keyed by content: `node_modules/.cache/settlement-sandbox`
 * of this package (the usual home of tool caches), else the system temp folder. `SANDBOX_CACHE_DIR` overrides.
 */
export function defaultCacheDir(): string {
  if (process.env.SANDBOX_CACHE_DIR) return resolve(process.env.SANDBOX_CACHE_DIR);
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'node_modules'))) {
      return join(dir, 'node_modules', '.cache', 'settlement-sandbox');
    }
    const parent = dirname(dir);
    if (parent === dir) return join(tmpdir(), 'settlement-sandbox-cache');
    dir = parent;
  }
}

/**
 * `mkdir -p` that fails instead of spinning. Node's recursive mkdir loops forever, at full CPU, when a folder that
 * exists refuses a child with ENOENT (/proc, some FUSE and overlay mounts): `sandbox up --state-dir /proc/foo`
 * hung there. Creating the missing folders one at a time from the nearest existing ancestor throws the refusal at
 * once, and the CLI reports it as an unwritable state folder (exit 2).
 */
export function ensureDir(path: string): void {
  const missing: string[] = [];
  for (let current = resolve(path); !existsSync(current); current = dirname(current)) {
    missing.unshift(current);
    if (dirname(current) === current) break;
  }
  for (const dir of missing) {
    try {
      mkdirSync(dir);
    } catch (error) {
      // Made by someone else in the meantime: fine, as long as it is a folder (checked below).
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  // A file where the folder should be: mkdir says so (EEXIST), as the recursive form did.
  if (!statSync(path).isDirectory()) mkdirSync(path);
}
