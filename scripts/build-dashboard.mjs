// Builds the sandbox dashboard page into dist/dashboard/ (index.html, app.js, app.css): one esbuild bundle,
// no CDN, nothing fetched at run time. Run by scripts/prepare.mjs on npm install; the service serves the
// result at `/` of the API port (src/service/dashboard).
// esbuild arrives with vitest (a dev dependency); where it is missing (a production-only install) the
// dashboard is skipped with a message, and the service answers `/` with a note instead of the page.
import { copyFileSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'src', 'dashboard');
const out = join(root, 'dist', 'dashboard');

let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  console.warn('dashboard: esbuild is not installed (dev dependencies omitted?); the page is not built.');
  process.exit(0);
}

const started = performance.now();
mkdirSync(out, { recursive: true });
await esbuild.build({
  entryPoints: [join(source, 'main.ts')],
  outfile: join(out, 'app.js'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome110', 'firefox110', 'safari16'],
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
});
copyFileSync(join(source, 'index.html'), join(out, 'index.html'));
copyFileSync(join(source, 'app.css'), join(out, 'app.css'));

const size = ['app.js', 'app.css', 'index.html'].reduce((total, file) => total + statSync(join(out, file)).size, 0);
if (!process.argv.includes('--quiet')) {
  console.log(`dashboard: built dist/dashboard (${(size / 1024).toFixed(1)} KiB) in ${Math.round(performance.now() - started)} ms`);
}
