#!/usr/bin/env node
// One bench row module in a process of its own: `node scripts/bench/run-row.mjs <module file> <runs> <results file>`.
// run.mjs starts one per module, so no row is measured in a process that earlier rows have warmed up, grown or
// loaded (the settlement row read about a fifth worse after the store and instances rows had run beside it in one
// process). Writes the module's rows as JSON to <results file>; a row that throws exits 1 with its message there.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './lib.mjs';

const [file, runsText, resultsPath] = process.argv.slice(2);
if (file === undefined || resultsPath === undefined) {
  process.stderr.write('usage: run-row.mjs <module file> <runs> <results file>\n');
  process.exit(2);
}
try {
  const row = await import(pathToFileURL(join(ROOT, 'scripts/bench/rows', file)).href);
  const produced = await row.run({ runs: Number(runsText) });
  writeFileSync(resultsPath, JSON.stringify({ rows: Array.isArray(produced) ? produced : [produced] }));
  // Rows stop what they started; whatever handle is left must not keep the parent waiting.
  process.exit(0);
} catch (error) {
  writeFileSync(resultsPath, JSON.stringify({ error: String(error?.message ?? error).split('\n')[0] }));
  process.exit(1);
}
