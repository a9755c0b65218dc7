#!/usr/bin/env node
// `npm run fuzz:api [-- --bounded] [-- <st run options…>]`: fuzzes the REST API with Schemathesis against a fresh
// sandbox, from the OpenAPI document the service serves. Starts a sandbox with the CLI in a temporary state folder,
// installs the offline Schemathesis bundle (../shared/tools/schemathesis, or $SCHEMATHESIS_BUNDLE) into a virtual
// environment when it is missing, runs the bundle's run.sh (all checks, all phases), stops the sandbox, and exits
// with Schemathesis' code (non-zero when a check failed).
//
// The sandbox starts with raised rate limits (the config file's `rateLimit`): Schemathesis sends thousands of
// requests on one key, and a 429 to a valid request would be a failure of the run, not of the API. The limits
// themselves are tested by src/service/http/rate-limit.test.ts.
//
//   --bounded       CI's run: fewer examples per operation (FUZZ_MAX_EXAMPLES, default 5) and a fixed seed
//   --faults        only the fault-switch routes, setSandboxFault included (schemathesis.toml leaves it out of the
//                   whole-API run: a switch it sets changes every later answer; docs/openapi.md), without the four
//                   kinds that change the answers of the run itself (scripts/fuzz/fault-hooks.py)
//   --keep          leave the sandbox and its state folder for inspection
//   --report <dir>  where the junit and ndjson reports go (default a new folder under the state folder)
// Anything else is passed to `st run` (e.g. --include-path /api/v1/webhooks, --phases coverage).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist/src/cli/main.js');
// Next to the checkout (../shared), next to the folder of worktrees (../../shared) for a git worktree, or where the
// workplace keeps it (/work/shared): CI runs in a fresh clone wherever it likes, not always beside ../shared.
const BUNDLE = resolve(
  process.env.SCHEMATHESIS_BUNDLE ??
    [join(ROOT, '../shared/tools/schemathesis'), join(ROOT, '../../shared/tools/schemathesis'), '/work/shared/tools/schemathesis'].find(
      (dir) => existsSync(dir),
    ) ??
    join(ROOT, '../shared/tools/schemathesis'),
);
const VENV = resolve(process.env.ST_VENV ?? join(ROOT, 'node_modules/.cache/schemathesis'));
/** High enough that no run meets them; the default (100/s, bursts of 1,000) is what the limiter tests check. */
const FUZZ_RATE_LIMIT = { perSecond: 1_000_000, burst: 1_000_000 };

const args = process.argv.slice(2);
const take = (flag) => {
  const at = args.indexOf(flag);
  if (at === -1) return false;
  args.splice(at, 1);
  return true;
};
const bounded = take('--bounded');
const keep = take('--keep');
const faultsOnly = take('--faults');
let reportDir;
const reportAt = args.indexOf('--report');
if (reportAt !== -1) {
  reportDir = resolve(args[reportAt + 1] ?? '');
  args.splice(reportAt, 2);
}

function run(command, commandArgs, options = {}) {
  const result = spawnSync(command, commandArgs, { stdio: 'inherit', cwd: ROOT, ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

/** The CLI runs compiled: build when an output is missing or older than a source. */
function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}
if (!existsSync(CLI) || statSync(CLI).mtimeMs < newestSource(join(ROOT, 'src'))) {
  console.log('fuzz:api: building the CLI (npm run build)');
  if (run('npm', ['run', 'build', '--silent']) !== 0) process.exit(2);
  // The build is incremental: an entry whose sources did not change is not written again, so it is marked current.
  const now = new Date();
  utimesSync(CLI, now, now);
}

// A virtual environment names its interpreter by absolute path, so one copied or moved with the project (a new
// clone's cache, a renamed folder) is there but cannot run: install again unless `st --version` answers.
const venvRuns = existsSync(join(VENV, 'bin/st')) && spawnSync(join(VENV, 'bin/st'), ['--version'], { stdio: 'ignore' }).status === 0;
if (!venvRuns) {
  rmSync(VENV, { recursive: true, force: true });
  if (!existsSync(join(BUNDLE, 'install.sh'))) {
    console.error(`fuzz:api: no Schemathesis bundle at ${BUNDLE} (set SCHEMATHESIS_BUNDLE)`);
    process.exit(2);
  }
  mkdirSync(dirname(VENV), { recursive: true });
  if (run(join(BUNDLE, 'install.sh'), [VENV]) !== 0) process.exit(2);
}

/** `--faults`: the run's folder, options and environment (see the comment where it is used). */
function faultRouteRun(stateDir) {
  const cwd = join(stateDir, 'faults-run');
  mkdirSync(cwd, { recursive: true });
  const toml = readFileSync(join(ROOT, 'schemathesis.toml'), 'utf8');
  const disabled = /\[\[operations\]\]\ninclude-operation-id = "setSandboxFault"\nenabled = false\n/;
  if (!disabled.test(toml)) throw new Error('schemathesis.toml no longer disables setSandboxFault as --faults expects');
  writeFileSync(join(cwd, 'schemathesis.toml'), toml.replace(disabled, ''));
  return {
    cwd,
    args: ['--include-path-regex', '^/api/v1/sandbox/faults'],
    env: { SCHEMATHESIS_HOOKS: join(ROOT, 'scripts/fuzz/fault-hooks.py') },
  };
}

const state = mkdtempSync(join(tmpdir(), 'sandbox-fuzz-'));
const config = join(state, 'fuzz.config.json');
writeFileSync(config, `${JSON.stringify({ rateLimit: FUZZ_RATE_LIMIT })}\n`);
const up = run('node', [CLI, 'up', '--detach', '--fresh', '--state-dir', state, '--chain-ports', 'any', '--port', '0', '--config', config]);
if (up !== 0) {
  console.error(`fuzz:api: the sandbox did not start (see ${state}/sandbox.log)`);
  process.exit(2);
}

let code = 2;
const started = performance.now();
try {
  const manifest = join(state, 'sandbox.json');
  const { api } = JSON.parse(readFileSync(manifest, 'utf8'));
  const health = await fetch(`${api.url}/api/v1/health`);
  if (health.headers.get('x-ratelimit-limit') !== String(FUZZ_RATE_LIMIT.burst)) {
    throw new Error(`the sandbox did not take the raised rate limit (X-RateLimit-Limit ${health.headers.get('x-ratelimit-limit')})`);
  }
  const stArgs = bounded ? ['--max-examples', process.env.FUZZ_MAX_EXAMPLES ?? '5', '--seed', process.env.FUZZ_SEED ?? '2', ...args] : args;
  const reports = reportDir ?? join(state, 'reports');
  // From the project root: Schemathesis reads ./schemathesis.toml (see docs/openapi.md). The fault routes alone run
  // from a folder of their own, whose copy of it enables setSandboxFault, with hooks that leave out the switches that
  // change every later answer (scripts/fuzz/fault-hooks.py).
  const faults = faultsOnly ? faultRouteRun(state) : undefined;
  code = run(join(BUNDLE, 'run.sh'), [manifest, reports, ...stArgs, ...(faults?.args ?? [])], {
    env: { ...process.env, ST_VENV: VENV, ...(faults?.env ?? {}) },
    cwd: faults?.cwd ?? ROOT,
  });
  console.log(
    `fuzz:api: ${code === 0 ? 'no failures' : code === 1 ? 'failures found' : `Schemathesis could not run (exit ${code})`} in ${Math.round((performance.now() - started) / 1000)} s; reports in ${reports}`,
  );
} catch (error) {
  console.error(`fuzz:api: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  if (keep) {
    console.log(`fuzz:api: sandbox left running; stop it with: node ${CLI} down --state-dir ${state}`);
  } else {
    run('node', [CLI, 'down', '--state-dir', state], { stdio: 'ignore' });
    if (reportDir === undefined && code === 0) rmSync(state, { recursive: true, force: true });
  }
}
process.exit(code);
