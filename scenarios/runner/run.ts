import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Scenario } from '../core/scenario.js';
import { INVARIANTS } from '../invariants/monitor.js';
import { jsonReport } from '../report/json.js';
import { junitReport } from '../report/junit.js';
import type { RunReport, ScenarioResult } from './result.js';
import type { ReportKind } from './select.js';
import { ScenarioSession, type SessionOptions } from './session.js';

export interface RunOptions extends SessionOptions {
  scenarios: readonly Scenario[];
}

/** Runs the scenarios one after another on one session and summarises them. */
export async function runScenarios(options: RunOptions): Promise<RunReport> {
  const session = new ScenarioSession(options);
  const startedAt = new Date();
  const began = performance.now();
  const results: ScenarioResult[] = [];
  let target = session.targetDescription;
  // Interrupted: the scenario playing now still takes back its fault switches and held relays before the process
  // ends, so a Ctrl-C never leaves a shared sandbox armed against the next run.
  const interrupted = (signal: NodeJS.Signals) => {
    void session.abort().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    for (const [i, scenario] of options.scenarios.entries()) {
      results.push(await session.run(scenario, { index: i + 1, total: options.scenarios.length }));
    }
    target = session.targetDescription;
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    await session.close();
  }
  return {
    seed: session.seed,
    runSalt: session.runSalt,
    target,
    startedAt: startedAt.toISOString(),
    durationMs: performance.now() - began,
    summary: {
      total: results.length,
      passed: results.filter((r) => r.status === 'passed').length,
      failed: results.filter((r) => r.status === 'failed').length,
      skipped: results.filter((r) => r.status === 'skipped').length,
    },
    invariants: INVARIANTS,
    scenarios: results,
  };
}

/** Writes the reports `--report` asked for; returns the absolute paths written. */
export function writeReports(report: RunReport, files: Partial<Record<ReportKind, string>>): string[] {
  const written: string[] = [];
  for (const [kind, file] of Object.entries(files) as [ReportKind, string][]) {
    const path = resolve(file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, kind === 'junit' ? junitReport(report) : jsonReport(report));
    written.push(path);
  }
  return written;
}
