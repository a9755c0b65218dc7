// The whole conformance suite (Reference A, every check) against a local sandbox — chains, the settlement
// service and 3 reference solvers, as `sandbox up` starts them — over the wire, wall time from the first
// request to the signed report. Also how long the time-travelling checks spent moving the sandbox clock.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, median, ms } from '../lib.mjs';

export const name = 'conformance';
export const description = 'the whole conformance suite (Reference A) against a local sandbox with 3 reference solvers';

const GOAL_MS = 30_000;
const RUNS = Number(process.env.BENCH_CONFORMANCE_RUNS ?? 1);

const load = (path) => import(pathToFileURL(join(ROOT, 'dist', path)).href);

export async function run() {
  const { startSandbox } = await load('src/sandbox/sandbox.js');
  const { settlementServiceComponent } = await load('src/sandbox/service-component.js');
  const { referenceSolversComponent } = await load('src/sandbox/solvers-component.js');
  const { runConformance, generateSigningKey } = await load('conformance/index.js');

  const times = [];
  let last;
  for (let i = 0; i < RUNS; i++) {
    const sandbox = await startSandbox({
      components: [settlementServiceComponent({ logLevel: 'silent' }), referenceSolversComponent({ count: 3 })],
    });
    try {
      const started = performance.now();
      const run = await runConformance({ profile: 'A', sandbox: sandbox.manifest, seed: 1, signingKey: generateSigningKey() });
      times.push(performance.now() - started);
      last = run.report;
    } finally {
      await sandbox.stop();
    }
  }
  const value = median(times);
  const s = last.summary;
  const clockMs = last.results.filter((r) => r.tags.includes('timing')).reduce((sum, r) => sum + r.durationMs, 0);
  return {
    benchmark: 'conformance suite, Reference A',
    result: `${ms(value)} (no floor: a whole-suite wall time; compared with its goal)`,
    detail:
      `${s.total} checks: ${s.passed} passed, ${s.failed} failed, ${s.warning} warnings, ${s.skipped} skipped (${last.summary.verdict}); ` +
      `timing checks ${ms(clockMs)}; ${RUNS === 1 ? 'one run' : `median of ${RUNS}`}; goal ≤ ${GOAL_MS / 1000} s`,
    values: {
      medianMs: value,
      runsMs: times,
      checks: s.total,
      passed: s.passed,
      failed: s.failed,
      skipped: s.skipped,
      timingChecksMs: clockMs,
      goalMs: GOAL_MS,
      meetsGoal: value <= GOAL_MS,
    },
  };
}
