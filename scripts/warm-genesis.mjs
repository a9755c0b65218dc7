// Runs at the end of `npm install` (scripts/prepare.mjs): deploys the contracts once on the default chains and
// caches their genesis state, so that a newcomer's first `sandbox up` only loads state instead of deploying.
// Best effort: if it fails, the first `up` builds the genesis itself, as it always could.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const started = performance.now();
try {
  const { startDevnet } = await import(pathToFileURL(join(root, 'dist/src/devnet/devnet.js')).href);
  const sandbox = await startDevnet({});
  await sandbox.stop();
  console.log(`genesis: default chains deployed and cached in ${((performance.now() - started) / 1000).toFixed(1)} s`);
} catch (error) {
  console.log(`genesis: not cached now (${error?.message ?? error}); the first \`sandbox up\` will build it`);
}
