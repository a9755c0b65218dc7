// Runs on `npm install` / `npm ci`: compile contracts (cached by source hash) and the TypeScript.
// Skips quietly while the scripts it needs are not there yet (bootstrapping a fresh checkout).
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
const run = (cmd, args) => execFileSync(cmd, args, { stdio: 'inherit' });
if (existsSync('scripts/build-contracts.mjs')) run(process.execPath, ['scripts/build-contracts.mjs']);
if (existsSync('tsconfig.build.json')) run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json']);
