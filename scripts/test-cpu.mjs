#!/usr/bin/env node
// `npm run test:cpu [-- <part>…] [-- --json]`: runs the test pipeline of a fresh clone part by part (the builds
// `npm install` runs, then what `npm test` runs, then CI's bounded API fuzz) and prints the CPU-seconds (user + sys)
// each part cost, its child processes included. CPU-seconds, not wall time: the machine is shared, and wall time says
// more about the neighbours than about the suite. Run it in a fresh clone (no out/, cache/, dist/) for the figure
// `.ci/run` pays; in a working checkout the builds are cached and cost next to nothing. Writes reports/test-cpu.json.
//
// How a part's CPU is counted: the part runs in a cgroup of its own when this process may create one (cgroup v1
// cpuacct or cgroup v2, e.g. as root in a container), so processes that leave the tree (the tests' Postgres
// servers, anvils) are counted too; otherwise from the rusage of the waited-for children (/proc/self/stat). The
// Docker engine's containers (the image tests) run in the engine's cgroups: their CPU is shown apart, as the
// growth of the engine's cgroup while the part ran (other users of the same engine would be counted there too).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './bench/lib.mjs';

/** The parts, in pipeline order: what each is and the command it runs (from the project root). */
export const PARTS = [
  { name: 'forge compile', command: 'node scripts/build-contracts.mjs', what: 'contracts the sandbox deploys (npm install)' },
  {
    name: 'tsc build',
    command: 'npx tsc -p tsconfig.build.json && node scripts/build-dashboard.mjs && node scripts/build-bundle.mjs',
    what: 'dist/ and the bundle (npm install)',
  },
  { name: 'genesis', command: 'node scripts/warm-genesis.mjs', what: 'default chains deployed once (npm install)' },
  { name: 'lint', command: 'npm run lint', what: 'biome ci, import graph' },
  { name: 'typecheck', command: 'npm run typecheck', what: 'tsc -b: the build (checked, up to date), then the tests' },
  { name: 'forge test', command: 'npm run test:contracts', what: 'Solidity tests: compile and run' },
  { name: 'vitest SQLite', command: 'npm run test:ts -- --exclude "test/container/**"', what: 'test:ts but the image tests' },
  { name: 'image build', command: 'npm run image', what: 'the sandbox image (.ci/run builds it before npm test)' },
  { name: 'image tests', command: 'npx vitest run test/container', what: 'the sandbox image under Docker' },
  { name: 'vitest Postgres', command: 'npm run test:postgres', what: 'src/service on Postgres' },
  { name: 'compose', command: 'npm run test:compose', what: "deploy/compose.yaml in containers (npm test's last step)" },
  { name: 'fuzz', command: 'npm run fuzz:api -- --bounded', what: "CI's bounded Schemathesis run" },
];

const NS_PER_S = 1e9;

/** A vitest part restricted to the test files present both in this tree and at `commit`. */
function sameTestsAs(part, commit) {
  if (!part.name.startsWith('vitest')) return part;
  const listed = spawnSync('git', ['ls-tree', '-r', '--name-only', commit], { cwd: ROOT, encoding: 'utf8' });
  if (listed.status !== 0) {
    process.stderr.write(`test-cpu: cannot list the files of ${commit}: ${listed.stderr}`);
    process.exit(2);
  }
  const files = listed.stdout
    .split('\n')
    .filter((file) => file.endsWith('.test.ts') && existsSync(join(ROOT, file)))
    .filter((file) => (part.name === 'vitest Postgres' ? file.startsWith('src/service/') : !file.startsWith('test/container/')));
  // `npm run test:postgres` names the folder src/service itself, and vitest runs what matches any filter: the files
  // are named to the same command without the folder, or every file of src/service would run.
  const command =
    part.name === 'vitest Postgres' ? 'SANDBOX_TEST_STORE=postgres npx vitest run --config vitest.src.config.ts' : part.command;
  return { ...part, name: `${part.name} (tests of ${commit})`, command: `${command} ${files.map((f) => `'${f}'`).join(' ')}` };
}

/** A cgroup to run one part in, or undefined when none may be created here. */
function createCgroup(label) {
  const candidates = [
    { kind: 'v1', base: '/sys/fs/cgroup/cpuacct' },
    { kind: 'v2', base: '/sys/fs/cgroup' },
  ];
  for (const { kind, base } of candidates) {
    const probe = kind === 'v1' ? 'cpuacct.usage_user' : 'cgroup.controllers';
    if (!existsSync(join(base, probe))) continue;
    const dir = join(base, `test-cpu-${process.pid}-${label}`);
    try {
      mkdirSync(dir);
    } catch {
      // Not ours to create (no permission, read-only mount): try the next kind, then fall back to rusage.
      continue;
    }
    // A process must be able to join it too (cgroup v2 refuses some placements): try with a throwaway shell.
    if (spawnSync('sh', ['-c', `echo $$ > ${dir}/cgroup.procs`], { stdio: 'ignore' }).status === 0) return { kind, dir };
    try {
      rmdirSync(dir);
    } catch {
      // Left empty; harmless.
    }
  }
  return undefined;
}

/** User and system CPU-seconds a cgroup has used. */
function cgroupCpu(group) {
  if (group.kind === 'v1') {
    const read = (file) => Number(readFileSync(join(group.dir, file), 'utf8').trim()) / NS_PER_S;
    return { user: read('cpuacct.usage_user'), sys: read('cpuacct.usage_sys') };
  }
  const stat = Object.fromEntries(
    readFileSync(join(group.dir, 'cpu.stat'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(' ')),
  );
  return { user: Number(stat.user_usec) / 1e6, sys: Number(stat.system_usec) / 1e6 };
}

/** The CPU-seconds of this process's waited-for children so far (cutime, cstime in clock ticks). */
function childrenCpu() {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  const ticks = 100; // USER_HZ on Linux
  return { user: Number(fields[13]) / ticks, sys: Number(fields[14]) / ticks };
}

/** CPU-seconds the Docker engine's containers have used so far, if their cgroup is readable. */
function dockerCpu() {
  for (const file of ['/sys/fs/cgroup/cpuacct/docker/cpuacct.usage', '/sys/fs/cgroup/system.slice/docker.service/cpu.stat']) {
    if (!existsSync(file)) continue;
    const text = readFileSync(file, 'utf8');
    return file.endsWith('cpuacct.usage') ? Number(text.trim()) / NS_PER_S : Number(/usage_usec (\d+)/.exec(text)?.[1] ?? 0) / 1e6;
  }
  return undefined;
}

/** Runs one part; resolves with its CPU-seconds, wall seconds and exit code. */
async function runPart(part, index, quiet) {
  const group = createCgroup(index);
  const dockerFrom = dockerCpu();
  const childrenFrom = childrenCpu();
  const started = performance.now();
  // The shell moves itself into the cgroup before it runs the command, so every descendant starts inside it.
  const script = group === undefined ? part.command : `echo $$ > ${group.dir}/cgroup.procs && ${part.command}`;
  const code = await new Promise((resolve) => {
    const child = spawn('sh', ['-c', script], { cwd: ROOT, stdio: quiet ? ['ignore', 'ignore', 'inherit'] : 'inherit' });
    child.once('close', (exitCode, signal) => resolve(exitCode ?? signal));
  });
  const wall = (performance.now() - started) / 1000;
  let cpu;
  if (group === undefined) {
    const to = childrenCpu();
    cpu = { user: to.user - childrenFrom.user, sys: to.sys - childrenFrom.sys, method: 'rusage' };
  } else {
    cpu = { ...cgroupCpu(group), method: `cgroup ${group.kind}` };
    // Processes the part left running (a leaked sandbox, a server never stopped) are still in its cgroup: say so.
    const left = readFileSync(join(group.dir, 'cgroup.procs'), 'utf8').trim().split('\n').filter(Boolean);
    if (left.length > 0) {
      cpu.leftRunning = left.map(Number);
      process.stderr.write(`test-cpu: ${part.name} left ${left.length} process(es) running: ${left.join(' ')} (cgroup ${group.dir})\n`);
    }
    try {
      rmdirSync(group.dir);
    } catch {
      // A process the part left running still belongs to it; the cgroup goes when it ends.
    }
  }
  const dockerTo = dockerCpu();
  const docker = dockerFrom === undefined || dockerTo === undefined ? undefined : dockerTo - dockerFrom;
  return {
    part: part.name,
    what: part.what,
    command: part.command,
    code,
    wallSeconds: wall,
    ...cpu,
    cpuSeconds: cpu.user + cpu.sys,
    dockerSeconds: docker,
  };
}

const args = process.argv.slice(2);
const json = args.includes('--json');
// `--same-tests-as <commit>`: the vitest parts run only the test files that exist both here and at that commit, so
// two commits whose suites grew apart can be compared on the same tests (the parts' other commands are unchanged).
const sameAt = args.indexOf('--same-tests-as');
const sameCommit = sameAt === -1 ? undefined : args.splice(sameAt, 2)[1];
if (sameAt !== -1 && (sameCommit === undefined || sameCommit.startsWith('--'))) {
  process.stderr.write('usage: --same-tests-as <commit>\n');
  process.exit(2);
}
const filters = args.filter((a) => !a.startsWith('--'));
const parts = sameCommit === undefined ? PARTS : PARTS.map((part) => sameTestsAs(part, sameCommit));
const chosen = parts.filter((p) => filters.length === 0 || filters.some((f) => p.name.includes(f)));
if (chosen.length === 0) {
  process.stderr.write(`no part matches ${filters.join(', ')}; parts: ${PARTS.map((p) => p.name).join(', ')}\n`);
  process.exit(2);
}

const results = [];
for (const [index, part] of chosen.entries()) {
  process.stderr.write(`› ${part.name}: ${part.command}\n`);
  const result = await runPart(part, index, json);
  results.push(result);
  process.stderr.write(
    `› ${part.name}: ${result.cpuSeconds.toFixed(1)} CPU-s (${result.wallSeconds.toFixed(0)} s wall), exit ${result.code}\n`,
  );
}
const total = results.reduce((sum, r) => sum + r.cpuSeconds, 0);
const report = { date: new Date().toISOString(), node: process.version, totalCpuSeconds: total, parts: results };
mkdirSync(join(ROOT, 'reports'), { recursive: true });
writeFileSync(join(ROOT, 'reports/test-cpu.json'), `${JSON.stringify(report, null, 2)}\n`);

if (json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
else {
  const f = (v) => (v === undefined ? '' : v.toFixed(1));
  const rows = [
    ['part', 'CPU s', 'user', 'sys', 'wall s', 'Docker s', 'exit'],
    ...results.map((r) => [r.part, f(r.cpuSeconds), f(r.user), f(r.sys), f(r.wallSeconds), f(r.dockerSeconds), String(r.code)]),
    ['total', f(total), '', '', f(results.reduce((s, r) => s + r.wallSeconds, 0)), '', ''],
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  const line = (row) => `| ${row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join(' | ')} |`;
  process.stdout.write(
    `${[line(rows[0]), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line)].join('\n')}\n` +
      `CPU counted by ${[...new Set(results.map((r) => r.method))].join(', ')}; Docker s: the engine's containers while the part ran.\n`,
  );
}
process.exitCode = results.every((r) => r.code === 0) ? 0 : 1;
