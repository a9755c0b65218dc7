// Bundles the two long-lived processes `sandbox up` starts, the detached supervisor and a service instance of
// `--instances N`, from the compiled dist/src into one file each under dist/bundle/. Node 20 spends about half the
// supervisor's start-up CPU reading and linking its ~700 ES modules one file at a time; one bundled file takes
// less (docs/devnet.md#start-up-time). Built from dist (not the sources) so it runs exactly the code
// tsc emitted; src/sandbox/entry-points.ts uses a bundle only when it is at least as new as that code.
// esbuild arrives with vitest (a dev dependency); without it (a production-only install) the compiled entries run.
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  console.warn('bundle: esbuild is not installed (dev dependencies omitted?); the compiled entries run unbundled.');
  process.exit(0);
}

const started = performance.now();
const outdir = join(root, 'dist', 'bundle');
// Chunk names carry hashes: a previous build's chunks would pile up beside the new ones.
rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
await esbuild.build({
  entryPoints: {
    supervisor: join(root, 'dist/src/sandbox/supervisor.js'),
    'service-worker': join(root, 'dist/src/sandbox/service-worker.js'),
  },
  outdir,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  // One copy of what both entries share, in chunks beside them; what they import lazily (Postgres, attaching to
  // chains elsewhere) stays in chunks of its own and is read only when used.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  minify: process.env.BUNDLE_READABLE !== '1',
  // Error classes and logs name themselves by their class names.
  keepNames: true,
  // A native addon, an optional native driver, and the packages whose files are found on disk at run time (the
  // anvil binary, pg's worker, libsecp256k1's WebAssembly module) stay where npm put them.
  external: ['better-sqlite3', 'pg-native', '@foundry-rs/*', 'pg', 'tiny-secp256k1'],
  // Bundled CommonJS code calls require(); an ES module has none of its own.
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  logLevel: 'warning',
});
console.log(`bundle: supervisor and service worker in ${Math.round(performance.now() - started)} ms (dist/bundle)`);
