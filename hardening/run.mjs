#!/usr/bin/env node
// `npm run harden [-- --quick] [-- --json] [-- --seed=n] [-- --only=crash,tamper,fuzz,load,chain,failover] [-- --keep]`
// Runs the hardening campaigns (hardening/main.ts, TypeScript run in place through ts-hooks.mjs), prints the
// figures — one JSON object on stdout with --json, a table otherwise; progress goes to stderr — writes
// reports/harden.json, and exits 1 when a figure misses its goal.
import { mkdirSync, writeFileSync } from 'node:fs';
import { register } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
if (args[0] === 'soak') await soak(args.slice(1));
const flag = (name) => args.includes(`--${name}`);
const value = (name) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const known = new Set(['quick', 'json', 'keep', 'seed', 'only', 'help']);
const unknown = args.filter((a) => !known.has(a.replace(/^--/, '').split('=')[0]));
if (flag('help') || unknown.length > 0) {
  if (unknown.length > 0) process.stderr.write(`unknown option(s): ${unknown.join(' ')}\n`);
  process.stderr.write('usage: npm run harden -- [--quick] [--json] [--seed=n] [--only=crash,tamper,fuzz,load,chain,failover] [--keep]\n');
  process.exit(unknown.length > 0 ? 2 : 0);
}

register('./ts-hooks.mjs', import.meta.url);
const { runHardening, CAMPAIGNS, GOALS } = await import(pathToFileURL(join(root, 'hardening/main.ts')).href);

const json = flag('json');
const seed = value('seed') === undefined ? 1 : Number(value('seed'));
const only = value('only')
  ?.split(',')
  .map((c) => c.trim())
  .filter(Boolean);
if (!Number.isSafeInteger(seed)) {
  process.stderr.write(`--seed must be an integer, got ${value('seed')}\n`);
  process.exit(2);
}
if (only?.some((c) => !CAMPAIGNS.includes(c))) {
  process.stderr.write(`--only takes ${CAMPAIGNS.join(', ')}\n`);
  process.exit(2);
}

const report = await runHardening({
  quick: flag('quick'),
  seed,
  keep: flag('keep'),
  ...(only === undefined ? {} : { campaigns: only }),
  log: (line) => process.stderr.write(`${line}\n`),
});

mkdirSync(join(root, 'reports'), { recursive: true });
writeFileSync(join(root, 'reports/harden.json'), `${JSON.stringify(report, null, 2)}\n`);

if (json) {
  process.stdout.write(`${JSON.stringify(report)}\n`);
} else {
  const rows = [['figure', 'value', 'goal']];
  for (const [name, , goal] of GOALS) rows.push([name, String(report[name]), goal]);
  for (const name of [
    'quotesRps',
    'quotesP99Ms',
    'orderReadsRps',
    'orderReadsP99Ms',
    'heapGrowthMb',
    'fuzzRequests',
    'wsFrames',
    'tamperMutations',
    'lifecycles',
    'kills',
    'wallMs',
  ]) {
    rows.push([name, String(report[name]), '']);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  const line = (row) => `| ${row.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  process.stdout.write(
    [line(rows[0]), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line)].join('\n') + '\n',
  );
  if (report.failed.length > 0) process.stdout.write(`\nmissed: ${report.failed.join('; ')}\n`);
}
// Exit now rather than when the event loop drains: @viem/anvil's stop() leaves a 15 s timer behind.
process.exit(report.failed.length > 0 ? 1 : 0);

/**
 * `npm run harden -- soak [--runs N] [--conformance-every M] [--seed=n] [--json] [--keep] [--heap-snapshots=R1,R2…]`:
 * the whole scenario catalogue N times (default 10) against one detached sandbox, a conformance run every M (default
 * 10), figures per run and growth per run (hardening/soak.ts); the supervisor writes a heap snapshot after the
 * catalogue runs named by --heap-snapshots (kept with --keep); writes reports/soak.json, exits 1 when a run failed or
 * the ledger does not verify at the end.
 */
async function soak(rest) {
  const option = (name, fallback) => {
    const at = rest.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
    if (at < 0) return fallback;
    const text = rest[at].includes('=') ? rest[at].split('=')[1] : rest[at + 1];
    const number = Number(text);
    if (!Number.isSafeInteger(number) || number < 0) {
      process.stderr.write(`--${name} takes a whole number, got ${text}\n`);
      process.exit(2);
    }
    return number;
  };
  const allowed = /^--(runs|conformance-every|seed)(=.*)?$|^--heap-snapshots=\d+(,\d+)*$|^--(json|keep|help)$|^\d+$/;
  const unknownArgs = rest.filter((a) => !allowed.test(a));
  if (rest.includes('--help') || unknownArgs.length > 0) {
    if (unknownArgs.length > 0) process.stderr.write(`unknown option(s): ${unknownArgs.join(' ')}\n`);
    process.stderr.write(
      'usage: npm run harden -- soak [--runs N] [--conformance-every M] [--seed=n] [--json] [--keep] [--heap-snapshots=R1,R2…]\n',
    );
    process.exit(unknownArgs.length > 0 ? 2 : 0);
  }
  register('./ts-hooks.mjs', import.meta.url);
  const { runSoak } = await import(pathToFileURL(join(root, 'hardening/soak.ts')).href);
  mkdirSync(join(root, 'reports'), { recursive: true });
  const report = await runSoak({
    onRun: (runs) => writeFileSync(join(root, 'reports/soak.json'), `${JSON.stringify({ partial: true, runs }, null, 2)}\n`),
    runs: option('runs', 10),
    conformanceEvery: option('conformance-every', 10),
    seed: option('seed', 1),
    keep: rest.includes('--keep'),
    heapSnapshotRuns: (rest.find((a) => a.startsWith('--heap-snapshots='))?.split('=')[1] ?? '').split(',').filter(Boolean).map(Number),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  mkdirSync(join(root, 'reports'), { recursive: true });
  writeFileSync(join(root, 'reports/soak.json'), `${JSON.stringify(report, null, 2)}\n`);
  if (rest.includes('--json')) process.stdout.write(`${JSON.stringify(report)}\n`);
  else {
    const rows = [
      ['run', 'kind', 'pass', 'fail', 'skip', 'wall s', 'rss MB', 'heap MB', 'store MB', 'ledger', 'verify ms', 'unhandled', 'faults'],
    ];
    for (const r of report.runs)
      rows.push(
        [
          r.run,
          r.kind,
          r.passed,
          r.failed,
          r.skipped,
          (r.wallMs / 1000).toFixed(1),
          r.totalRssMb,
          r.supervisorHeapMb ?? '–',
          (r.storeBytes / 1048576).toFixed(1),
          r.ledgerEntries,
          r.ledgerVerifyMs,
          r.unhandledErrors,
          r.faultFirings,
        ].map(String),
      );
    const g = report.growthPerRun;
    rows.push([
      'growth/run',
      '',
      '',
      '',
      '',
      (g.wallMs / 1000).toFixed(2),
      String(g.totalRssMb),
      String(g.supervisorHeapMb),
      (g.storeBytes / 1048576).toFixed(3),
      String(g.ledgerEntries),
      String(g.ledgerVerifyMs),
      '',
      '',
    ]);
    const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
    const line = (row) => `| ${row.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
    process.stdout.write(
      [line(rows[0]), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line)].join('\n') + '\n',
    );
    process.stdout.write(`ledger verifies at the end: ${report.ledgerVerifiesAtEnd}; failed runs: ${report.failedRuns}\n`);
  }
  process.exit(report.failedRuns > 0 || !report.ledgerVerifiesAtEnd ? 1 : 0);
}
