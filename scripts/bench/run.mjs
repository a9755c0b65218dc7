#!/usr/bin/env node
// Benchmark runner: `npm run bench [-- <row name filter>…] [-- --json] [-- --runs=N] [-- --readme]`.
// Each module in scripts/bench/rows/ (run in file-name order, each in a process of its own: run-row.mjs) exports `name`, `description` and
// `run({ runs })`, which returns one or more rows `{ benchmark, result, detail, values }`; a result names the floor
// it is compared against. Add a row by adding a module. Results are printed as a table and written to
// reports/bench.json; a filtered run replaces only its own modules' rows there, so the file always holds the latest
// figure of every row. `--readme` then regenerates README.md's performance table from that file.
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { ROOT, requireBuilt, tempDir } from './lib.mjs';

const args = process.argv.slice(2);
const json = args.includes('--json');
const readme = args.includes('--readme');
const runsArg = args.find((a) => a.startsWith('--runs='));
const runs = runsArg ? Number(runsArg.slice('--runs='.length)) : 5;
const filters = args.filter((a) => !a.startsWith('--'));

requireBuilt();
const rowsDir = join(ROOT, 'scripts/bench/rows');
const modules = readdirSync(rowsDir)
  .filter((f) => f.endsWith('.mjs'))
  .sort();

/**
 * Runs one row module in a process of its own (run-row.mjs), with this process's environment and node options:
 * resolves with its rows, or throws with the reason it gave none.
 */
async function runInOwnProcess(file) {
  const folder = tempDir('bench-row-');
  const resultsPath = join(folder.dir, 'rows.json');
  const child = spawn(process.execPath, [...process.execArgv, join(ROOT, 'scripts/bench/run-row.mjs'), file, String(runs), resultsPath], {
    // The row's table goes to this process's stdout at the end; the row's own progress goes to stderr.
    stdio: ['ignore', json ? 'ignore' : 'inherit', 'inherit'],
  });
  const [code, signal] = await once(child, 'exit');
  const answer = existsSync(resultsPath) ? JSON.parse(readFileSync(resultsPath, 'utf8')) : {};
  folder.remove();
  if (answer.rows !== undefined) return answer.rows;
  throw new Error(answer.error ?? `the row's process ended with ${signal ?? `exit code ${code}`} and no figures`);
}

const results = [];
const ran = new Set();
for (const file of modules) {
  const row = await import(pathToFileURL(join(rowsDir, file)).href);
  if (filters.length > 0 && !filters.some((f) => row.name.includes(f) || file.includes(f))) continue;
  ran.add(row.name);
  if (!json) process.stderr.write(`› ${row.name}: ${row.description}\n`);
  try {
    const produced = await runInOwnProcess(file);
    results.push(...produced.map((r) => ({ module: row.name, ...r })));
  } catch (error) {
    process.exitCode = 1;
    results.push({ module: row.name, benchmark: row.name, result: 'failed', detail: error.message.split('\n')[0] });
  }
}

mkdirSync(join(ROOT, 'reports'), { recursive: true });
const reportPath = join(ROOT, 'reports/bench.json');
const date = new Date().toISOString();
const stamped = results.map((r) => ({ ...r, date, runs }));
const order = new Map(modules.map((file, index) => [file.replace(/^\d+-/, '').replace(/\.mjs$/, ''), index]));
const earlier = existsSync(reportPath) ? (JSON.parse(readFileSync(reportPath, 'utf8')).results ?? []) : [];
const kept = earlier.filter((r) => !ran.has(r.module));
const merged = [...kept, ...stamped].sort((a, b) => (order.get(a.module) ?? 99) - (order.get(b.module) ?? 99));
const report = { date, node: process.version, runs, results: merged };
writeFileSync(reportPath, JSON.stringify(report, null, 2) + '\n');
if (readme) {
  // The README table is the whole set: regenerating it from a file that lacks some rows would drop them silently.
  const expected = modules.map((file) => file.replace(/^\d+-/, '').replace(/\.mjs$/, ''));
  await import('./readme-table.mjs').then((m) => m.writeReadmeTable(report, undefined, expected));
}

if (json) {
  process.stdout.write(JSON.stringify(report, null, 2) + '\n');
} else {
  const table = [['benchmark', 'result', 'detail'], ...results.map((r) => [r.benchmark, r.result, r.detail ?? ''])];
  const widths = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)));
  const line = (row) => `| ${row.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  process.stdout.write(
    [line(table[0]), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...table.slice(1).map(line)].join('\n') + '\n',
  );
}
