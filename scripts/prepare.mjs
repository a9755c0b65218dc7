// Runs on `npm install` / `npm ci`: compile contracts (cached by source hash), the TypeScript, the dashboard,
// and link our own `sandbox` binary into node_modules/.bin so that `npx sandbox` in this folder runs the local
// build (npm does not link a package's own bin into its own node_modules; without the link, npx would try to
// install the project into its cache).
import { chmodSync, existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const run = (cmd, args) => execFileSync(cmd, args, { stdio: 'inherit', cwd: root });

run(process.execPath, [join(root, 'scripts/build-contracts.mjs')]);
run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')]);
if (existsSync(join(root, 'scripts/build-dashboard.mjs'))) run(process.execPath, [join(root, 'scripts/build-dashboard.mjs')]);
run(process.execPath, [join(root, 'scripts/build-bundle.mjs')]);

const cli = join(root, 'dist/src/cli/main.js');
chmodSync(cli, 0o755);
const binDir = join(root, 'node_modules/.bin');
mkdirSync(binDir, { recursive: true });
// `settlement-sandbox` is the same program under a name of our own (a registry package named `sandbox` exists).
for (const name of ['sandbox', 'settlement-sandbox']) {
  const link = join(binDir, name);
  rmSync(link, { force: true });
  symlinkSync(relative(binDir, cli), link);
}

// The one-time deployment of the default chains, done here so that the first `sandbox up` only loads state.
if (process.env.SANDBOX_SKIP_GENESIS !== '1') run(process.execPath, [join(root, 'scripts/warm-genesis.mjs')]);
