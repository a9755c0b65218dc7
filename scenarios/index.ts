/**
 * Scenario runner: scripted takers and solvers through every path of the settlement service, with invariants checked
 * after every step. `sandbox scenario run` is its command line; tests and the benchmark use it from here.
 */
export { catalogue } from './catalogue/index.js';
export { defineScenario, respond, type Scenario, type Step } from './core/scenario.js';
export { DEFAULT_SEED } from './core/random.js';
export { INVARIANTS } from './invariants/monitor.js';
export { describeFailure, progressPrinter, summaryTable } from './report/console.js';
export { jsonReport } from './report/json.js';
export { junitReport } from './report/junit.js';
export type { RunEvent, RunReport, ScenarioResult, StepResult } from './runner/result.js';
export { runScenarios, writeReports, type RunOptions } from './runner/run.js';
export { parseReportSpec, parseSeed, ScenarioUsageError, selectScenarios } from './runner/select.js';
export { SANDBOX_WORKSPACE, ScenarioSession, type SessionOptions } from './runner/session.js';
export { readTargetManifest, TargetError } from './deployment/remote.js';
