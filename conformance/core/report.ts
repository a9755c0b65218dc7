import { coverage, requirementLink, type Level } from '../catalogue/index.js';
import type { Target } from '../deployment/discover.js';
import { missingInputs, type MissingInput } from './missing.js';
import type { Check, RunOutcome } from './runner.js';
import type { Selection } from './selection.js';
import type { ReportSignature } from './signing.js';
import type { CheckResult, Profile, Status } from './types.js';

export const REPORT_FORMAT = 'settlement-conformance-report/1';

export interface RequirementOutcome {
  id: string;
  level: Level;
  section: string;
  text: string;
  link: string;
  checks: string[];
  /** Worst status among the checks that ran for it; NOT-RUN when none ran. */
  outcome: Status | 'NOT-RUN' | 'NOT-CHECKABLE';
}

export interface ReportSummary {
  total: number;
  passed: number;
  failed: number;
  warning: number;
  skipped: number;
  /** FAILED checks listed in the expected-failures file. */
  expectedFailures: number;
  /** Checks listed as expected failures that did not fail: they fail the run. */
  unexpectedPasses: number;
  /** SKIPPED checks listed in the expected-skips file. */
  expectedSkips: number;
  /**
   * PASSED: every selected check ran and passed (or failed or skipped as expected). FAILED: a check failed (or an
   * expected failure did not happen). INCOMPLETE: nothing failed, but checks were skipped for something the target
   * or the caller did not provide (`missing` names it and how to provide it).
   */
  verdict: Verdict;
  /** What the skipped checks lacked, grouped; empty unless something was skipped unexpectedly. */
  missing: MissingInput[];
}

export type Verdict = 'PASSED' | 'FAILED' | 'INCOMPLETE';

/** Exit code of a verdict: 0 PASSED, 1 FAILED, 3 INCOMPLETE (2 is kept for usage errors and refused inputs). */
export function exitCodeOf(verdict: Verdict): 0 | 1 | 3 {
  return verdict === 'PASSED' ? 0 : verdict === 'FAILED' ? 1 : 3;
}

export interface ConformanceReport {
  format: typeof REPORT_FORMAT;
  tool: { name: string; version: string };
  target: {
    url: string;
    profile: Profile;
    environment: string;
    capabilities: string[];
    missingCapabilities: Record<string, string>;
  };
  run: { startedAt: string; finishedAt: string; durationMs: number; seed: number; selection: Selection; expectedFailures: number };
  summary: ReportSummary;
  results: CheckResult[];
  requirements: RequirementOutcome[];
  signature?: ReportSignature;
  [key: string]: unknown;
}

export function summarise(results: readonly CheckResult[]): ReportSummary {
  const count = (status: Status) => results.filter((r) => r.status === status).length;
  const expectedFailures = results.filter((r) => r.expected?.outcome === 'failed-as-expected').length;
  const unexpectedPasses = results.filter((r) => r.expected?.outcome === 'did-not-fail').length;
  const realFailures = results.filter((r) => r.status === 'FAILED' && r.expected === undefined).length;
  const missing = missingInputs(results);
  return {
    total: results.length,
    passed: count('PASSED'),
    failed: count('FAILED'),
    warning: count('WARNING'),
    skipped: count('SKIPPED'),
    expectedFailures,
    unexpectedPasses,
    expectedSkips: results.filter((r) => r.expectedSkip !== undefined).length,
    verdict: realFailures > 0 || unexpectedPasses > 0 ? 'FAILED' : missing.length > 0 ? 'INCOMPLETE' : 'PASSED',
    missing,
  };
}

const SEVERITY: Record<Status, number> = { FAILED: 3, WARNING: 2, PASSED: 1, SKIPPED: 0 };

export function requirementOutcomes(
  checks: readonly Check[],
  results: readonly CheckResult[],
  profile: Profile,
  onlyCovered = false,
): RequirementOutcome[] {
  const report = coverage(checks.filter((c) => c.profiles.includes(profile)));
  const byCheck = new Map(results.map((r) => [r.id, r]));
  return report.entries
    .filter((e) => !(e.requirement.id.startsWith('A-') && profile === 'B') && !(e.requirement.id.startsWith('B-') && profile === 'A'))
    .filter((e) => !onlyCovered || e.checks.length > 0)
    .map((entry) => {
      const ran = entry.checks.map((id) => byCheck.get(id)).filter((r): r is CheckResult => r !== undefined);
      let outcome: RequirementOutcome['outcome'];
      if (entry.requirement.level === 'NOT-CHECKABLE') outcome = 'NOT-CHECKABLE';
      else if (ran.length === 0) outcome = 'NOT-RUN';
      else outcome = ran.reduce<Status>((worst, r) => (SEVERITY[r.status] > SEVERITY[worst] ? r.status : worst), 'SKIPPED');
      return {
        id: entry.requirement.id,
        level: entry.requirement.level,
        section: entry.requirement.section,
        text: entry.requirement.text,
        link: requirementLink(entry.requirement),
        checks: entry.checks,
        outcome,
      };
    });
}

export function buildReport(input: {
  target: Target;
  outcome: RunOutcome;
  checks: readonly Check[];
  selection?: Selection;
  expectedFailures?: number;
  toolVersion?: string;
  /** Certify modes: list only the requirements their checks cover. */
  onlyCovered?: boolean;
}): ConformanceReport {
  const { target, outcome } = input;
  return {
    format: REPORT_FORMAT,
    tool: { name: 'settlement-sandbox conformance', version: input.toolVersion ?? '0.1.0' },
    target: {
      url: target.url,
      profile: target.profile,
      environment: target.environment,
      capabilities: [...target.capabilities].sort(),
      missingCapabilities: Object.fromEntries(Object.entries(target.missing).filter(([name]) => !target.capabilities.has(name as never))),
    },
    run: {
      startedAt: outcome.startedAt,
      finishedAt: outcome.finishedAt,
      durationMs: outcome.durationMs,
      seed: outcome.seed,
      selection: input.selection ?? {},
      expectedFailures: input.expectedFailures ?? 0,
    },
    summary: summarise(outcome.results),
    results: outcome.results,
    requirements: requirementOutcomes(input.checks, outcome.results, target.profile, input.onlyCovered ?? false),
  };
}
