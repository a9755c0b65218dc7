#!/usr/bin/env node
// `npm run test:ts [-- <vitest args>…]`: the TypeScript tests on SQLite in two vitest runs, one after the other,
// both run even when the first fails (exit 1 if either failed):
// 1. the tests under src/ with vitest.src.config.ts, whose forks share a module cache between files (but for
//    src/service/cluster and src/service/store/postgres, which always run on Postgres: test:postgres runs them);
// 2. everything else (conformance, scenarios, hardening, test/) with vitest.outside-src.config.ts: the files of a fork
//    share its module cache too, but for the hardening campaigns, which keep a process of their own.
// Extra arguments go to both runs (a file filter, `--exclude`, a reporter); a run the filter leaves empty passes.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './bench/lib.mjs';

const extra = process.argv.slice(2);
const runs = [
  ['--config', 'vitest.src.config.ts', '--exclude', 'src/service/cluster/**', '--exclude', 'src/service/store/postgres/**'],
  ['--config', 'vitest.outside-src.config.ts'],
];
let failed = false;
for (const args of runs) {
  const run = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', ...args, ...(extra.length > 0 ? ['--passWithNoTests'] : []), ...extra],
    {
      cwd: ROOT,
      stdio: 'inherit',
    },
  );
  if (run.status !== 0) failed = true;
}
process.exitCode = failed ? 1 : 0;
