import { allChecks } from './checks/index.js';
import { buildReport, exitCodeOf, type ConformanceReport } from './core/report.js';
import { Redactor } from './core/redact.js';
import { runChecks, type Check } from './core/runner.js';
import { selectChecks, type ExpectedFailure, type Selection } from './core/selection.js';
import { signDocument, type SigningKey } from './core/signing.js';
import type { CheckResult, Profile } from './core/types.js';
import { discoverTarget, type Target } from './deployment/discover.js';
import { readSandboxFile, type SandboxFile } from './deployment/sandbox-file.js';
import { preflight } from './preflight/preflight.js';
import { capabilitiesReport, type CapabilitiesReport } from './reporters/capabilities.js';

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
  /** Checks whose skip is expected (`--expected-skips`): they do not make the run INCOMPLETE. */
  expectedSkips?: readonly ExpectedFailure[];
  /** Funded taker private keys (`--taker-key`, `--taker-keys-file`), instead of sandbox.json's takers. */
  takerKeys?: readonly string[];
  /** Chain id → RPC URL the caller can reach (`--rpc`). */
  rpc?: ReadonlyMap<number, string>;
  /** Further secrets the caller handed over, hidden in every report and line of output. */
  secrets?: readonly string[];
  /** Signs the JSON report (Ed25519 over its canonical JSON). */
  signingKey?: SigningKey;
  checks?: readonly Check[];
  timeoutMs?: number;
  toolVersion?: string;
  onTarget?(target: Target): void;
  /** Pre-flight passed: what it established. */
  onPreflight?(lines: readonly string[]): void;
  /** What the target offers and which checks its gaps skip: computed before any check, it heads the output. */
  onCapabilities?(report: CapabilitiesReport): void;
  onStart?(check: Check, index: number, total: number): void;
  onResult?(result: CheckResult, index: number, total: number): void;
}

export interface ConformanceRun {
  report: ConformanceReport;
  target: Target;
  /**
   * 0 PASSED (every selected check ran and passed, or failed or skipped as expected), 1 FAILED, 3 INCOMPLETE (checks
   * skipped for what the target or the caller did not provide). Usage errors, an unreachable target and a failed
   * pre-flight throw (exit 2).
   */
  exitCode: 0 | 1 | 3;
}

/** Discovers the target, runs the selected checks and builds (and signs) the report. */
export async function runConformance(options: ConformanceOptions): Promise<ConformanceRun> {
  const sandbox = typeof options.sandbox === 'string' ? readSandboxFile(options.sandbox) : options.sandbox;
  const discovered = await discoverTarget({
    profile: options.profile,
    ...(options.url === undefined ? {} : { url: options.url }),
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    ...(options.workspaceId === undefined ? {} : { workspaceId: options.workspaceId }),
    ...(sandbox === undefined ? {} : { sandbox }),
    ...(options.long === undefined ? {} : { long: options.long }),
    ...(options.takerKeys === undefined ? {} : { takerKeys: options.takerKeys }),
    ...(options.rpc === undefined ? {} : { rpc: options.rpc }),
  });
  options.onTarget?.(discovered);
  const { target, lines } = await preflight(discovered);
  options.onPreflight?.(lines);
  const redactor = new Redactor([
    target.apiKey,
    ...(options.secrets ?? []),
    ...(options.takerKeys ?? []),
    ...(sandbox?.api?.apiKeys ?? []),
    ...Object.values(target.sandbox?.accounts ?? {}).flatMap((accounts) => (accounts ?? []).map((a) => a.privateKey)),
  ]);
  const checks = options.checks ?? allChecks();
  const capabilities = capabilitiesReport(target, selectChecks(checks, target.profile, options.selection), target.profile);
  options.onCapabilities?.(capabilities);
  const outcome = await runChecks({
    target,
    checks,
    ...(options.selection === undefined ? {} : { selection: options.selection }),
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.expectedFailures === undefined ? {} : { expectedFailures: options.expectedFailures }),
    ...(options.expectedSkips === undefined ? {} : { expectedSkips: options.expectedSkips }),
    redactor,
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
  report = redactor.value({ ...report, capabilities, preflight: lines });
  if (options.signingKey) report = signDocument(report, options.signingKey);
  return { report, target, exitCode: exitCodeOf(report.summary.verdict) };
}
