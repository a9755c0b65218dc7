import { allChecks } from './checks/index.js';
import { buildReport, type ConformanceReport } from './core/report.js';
import { runChecks, type Check } from './core/runner.js';
import type { ExpectedFailure, Selection } from './core/selection.js';
import { signDocument, type SigningKey } from './core/signing.js';
import type { CheckResult, Profile } from './core/types.js';
import { discoverTarget, type Target } from './deployment/discover.js';
import { readSandboxFile, type SandboxFile } from './deployment/sandbox-file.js';

export interface ConformanceOptions {
  /** Base URL of the deployment; default `api.url` of the sandbox file. */
  url?: string;
  profile: Profile;
  apiKey?: string;
  workspaceId?: string;
  /** sandbox.json (path or parsed): funded accounts, chains, key and workspace. */
  sandbox?: SandboxFile | string;
  long?: boolean;
  seed?: number;
  selection?: Selection;
  expectedFailures?: readonly ExpectedFailure[];
  /** Signs the JSON report (Ed25519 over its canonical JSON). */
  signingKey?: SigningKey;
  checks?: readonly Check[];
  timeoutMs?: number;
  toolVersion?: string;
  onTarget?(target: Target): void;
  onStart?(check: Check, index: number, total: number): void;
  onResult?(result: CheckResult, index: number, total: number): void;
}

export interface ConformanceRun {
  report: ConformanceReport;
  target: Target;
  /** 0 every check passed (or failed as expected), 1 otherwise. Usage errors and an unreachable target throw. */
  exitCode: 0 | 1;
}

/** Discovers the target, runs the selected checks and builds (and signs) the report. */
export async function runConformance(options: ConformanceOptions): Promise<ConformanceRun> {
  const sandbox = typeof options.sandbox === 'string' ? readSandboxFile(options.sandbox) : options.sandbox;
  const target = await discoverTarget({
    profile: options.profile,
    ...(options.url === undefined ? {} : { url: options.url }),
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    ...(options.workspaceId === undefined ? {} : { workspaceId: options.workspaceId }),
    ...(sandbox === undefined ? {} : { sandbox }),
    ...(options.long === undefined ? {} : { long: options.long }),
  });
  options.onTarget?.(target);
  const checks = options.checks ?? allChecks();
  const outcome = await runChecks({
    target,
    checks,
    ...(options.selection === undefined ? {} : { selection: options.selection }),
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.expectedFailures === undefined ? {} : { expectedFailures: options.expectedFailures }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.onStart === undefined ? {} : { onStart: options.onStart }),
    ...(options.onResult === undefined ? {} : { onResult: options.onResult }),
  });
  let report = buildReport({
    target,
    outcome,
    checks,
    ...(options.selection === undefined ? {} : { selection: options.selection }),
    expectedFailures: options.expectedFailures?.length ?? 0,
    ...(options.toolVersion === undefined ? {} : { toolVersion: options.toolVersion }),
  });
  if (options.signingKey) report = signDocument(report, options.signingKey);
  return { report, target, exitCode: report.summary.verdict === 'PASSED' ? 0 : 1 };
}
