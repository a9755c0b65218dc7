import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Files of the built page, the only ones served (no directory listing, no path from the request). */
export const DASHBOARD_FILES = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
} as const;

export type DashboardFile = keyof typeof DASHBOARD_FILES;

/** Where the page is injected into the served index.html. */
export const CONFIG_PLACEHOLDER = '<!--sandbox-config-->';

/**
 * The package root, found from this file whether it runs from `src/` (vitest, tsx) or from `dist/src/`
 * (the installed CLI): the first folder upwards with our package.json.
 */
export function packageRoot(from: string = dirname(fileURLToPath(import.meta.url))): string {
  let folder = from;
  for (;;) {
    const manifest = join(folder, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'settlement-sandbox') return folder;
      } catch {
        // An unreadable package.json is not ours; keep walking.
      }
    }
    const parent = dirname(folder);
    if (parent === folder) throw new Error('settlement-sandbox package root not found');
    folder = parent;
  }
}

/** `scripts/build-dashboard.mjs` writes here. */
export function defaultAssetsDir(): string {
  return join(packageRoot(), 'dist', 'dashboard');
}

export function readAsset(assetsDir: string, file: DashboardFile): Buffer | undefined {
  try {
    return readFileSync(join(assetsDir, file));
  } catch {
    return undefined;
  }
}
