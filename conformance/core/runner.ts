import { strictestLevel } from '../catalogue/index.js';
import type { Target } from '../deployment/discover.js';
import { CheckContext, RunState } from './context.js';
import { Redactor } from './redact.js';
import { selectChecks, type ExpectedFailure, type Selection } from './selection.js';
import { CheckFailed, CheckSkipped, type CheckDefinition, type CheckResult, type Status } from './types.js';

export type Check = CheckDefinition<CheckContext>;

export interface RunOptions {
  target: Target;
  checks: readonly Check[];
  selection?: Selection;
  /** Seed of the property-based generators; the same seed replays the same inputs. */
  seed?: number;
  expectedFailures?: readonly ExpectedFailure[];
  /** Checks whose skip the caller expects (same file format): a skip of one does not make the run INCOMPLETE. */
  expectedSkips?: readonly ExpectedFailure[];
  /** Hides credentials in every result before anyone sees it (console, reports). */
  redactor?: Redactor;
  /** Default per-check time limit. */
  timeoutMs?: number;
  /** Settings the checks read from `ctx.state.params` (certify modes). */
  params?: Record<string, unknown>;
  onStart?(check: Check, index: number, total: number): void;
  onResult?(result: CheckResult, index: number, total: number): void;
}

export interface RunOutcome {
  results: CheckResult[];
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  seed: number;
  /** Expected failures whose check was not selected at all. */
  expectedNotRun: ExpectedFailure[];
}

const DEFAULT_TIMEOUT_MS = 60_000;

/** Runs the selected checks one after the other, in phase order: checks share one target and its clock. */
export async function runChecks(options: RunOptions): Promise<RunOutcome> {
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  const selected = selectChecks(options.checks, options.target.profile, options.selection)
    .map((check, order) => ({ check, order }))
    .sort((a, b) => (a.check.phase ?? 50) - (b.check.phase ?? 50) || a.order - b.order)
    .map(({ check }) => check);
  const expected = new Map((options.expectedFailures ?? []).map((e) => [e.check, e.reason]));
  const expectedSkips = new Map((options.expectedSkips ?? []).map((e) => [e.check, e.reason]));
  const redactor = options.redactor ?? new Redactor([options.target.apiKey]);
  const state = new RunState(options.target, seed, options.params);
  const started = Date.now();
  const results: CheckResult[] = [];
  try {
    for (const [index, check] of selected.entries()) {
      options.onStart?.(check, index, selected.length);
      state.currentCheck = check.id;
      const result = redactor.value(await runOne(check, state, options.timeoutMs ?? DEFAULT_TIMEOUT_MS));
      const reason = expected.get(check.id);
      if (reason !== undefined) {
        result.expected = {
          reason,
          outcome: result.status === 'FAILED' ? 'failed-as-expected' : result.status === 'SKIPPED' ? 'not-run' : 'did-not-fail',
        };
      }
      const skipReason = expectedSkips.get(check.id);
      if (skipReason !== undefined && result.status === 'SKIPPED') result.expectedSkip = { reason: skipReason };
      results.push(result);
      options.onResult?.(result, index, selected.length);
    }
  } finally {
    await state.finish();
  }
  const ran = new Set(selected.map((c) => c.id));
  return {
    results,
    startedAt: new Date(started).toISOString(),
    finishedAt: new Date().toISOString(),
    durationMs: Date.now() - started,
    seed,
    expectedNotRun: (options.expectedFailures ?? []).filter((e) => !ran.has(e.check)),
  };
}

async function runOne(check: Check, state: RunState, defaultTimeoutMs: number): Promise<CheckResult> {
  const started = performance.now();
  const ctx = new CheckContext(state, check.id);
  const base = {
    id: check.id,
    title: check.title,
    requirements: [...check.requirements],
    tags: [...check.tags],
    profile: state.target.profile,
  };
  const missing = (check.needs ?? []).filter((need) => !state.target.capabilities.has(need));
  const anyOf = check.needsAnyOf ?? [];
  if (missing.length > 0 || (anyOf.length > 0 && !anyOf.some((need) => state.target.capabilities.has(need)))) {
    const reasons =
      missing.length > 0
        ? missing.map((m) => state.target.missing[m] ?? m)
        : [anyOf.map((m) => state.target.missing[m] ?? m).join(', or ')];
    return {
      ...base,
      status: 'SKIPPED',
      message: reasons.join('; '),
      durationMs: 0,
      evidence: [],
      missing: missing.length > 0 ? missing : [...anyOf],
    };
  }

  const softLevel = check.severity ?? (strictestLevel(check.requirements) === 'MUST' ? 'fail' : 'warn');
  let skipped: string | undefined;
  const timeoutMs = check.timeoutMs ?? defaultTimeoutMs;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check.run(ctx),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new CheckFailed(`the check did not finish within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
      }),
    ]);
  } catch (error) {
    if (error instanceof CheckSkipped) skipped = error.message;
    else if (error instanceof CheckFailed) {
      if (!error.recorded) ctx.findings.push({ level: softLevel, message: error.message });
    } else {
      ctx.findings.push({ level: 'fail', message: `unexpected answer or harness error: ${(error as Error).message ?? String(error)}` });
      ctx.evidence.push({ kind: 'note', text: 'stack', data: (error as Error).stack?.split('\n').slice(0, 6).join('\n') });
    }
  } finally {
    clearTimeout(timer);
    await ctx.dispose();
  }
  const durationMs = Math.round(performance.now() - started);
  if (skipped !== undefined && ctx.findings.length === 0) {
    return { ...base, status: 'SKIPPED', message: skipped, durationMs, evidence: ctx.evidence };
  }
  const findings = ctx.findings.map((f) => ({ ...f, level: check.severity === 'warn' ? ('warn' as const) : f.level }));
  const status: Status = findings.some((f) => f.level === 'fail') ? 'FAILED' : findings.length > 0 ? 'WARNING' : 'PASSED';
  const message =
    status === 'PASSED'
      ? (ctx.notes.filter((n) => !n.startsWith('WebSocket')).slice(-1)[0] ?? 'conforms')
      : findings
          .filter((f) => (status === 'FAILED' ? f.level === 'fail' : true))
          .map((f) => (f.requirement ? `[${f.requirement}] ${f.message}` : f.message))
          .concat(status === 'FAILED' ? findings.filter((f) => f.level === 'warn').map((f) => `(warning) ${f.message}`) : [])
          .join('; ');
  return { ...base, status, message, durationMs, evidence: ctx.evidence };
}
