import type { ConformanceReport } from '../core/report.js';
import type { CheckResult, Status } from '../core/types.js';

export interface ConsoleStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

const ICON: Record<Status, string> = { PASSED: '✓', FAILED: '✗', WARNING: '!', SKIPPED: '-' };
const COLOR: Record<Status, string> = { PASSED: '32', FAILED: '31', WARNING: '33', SKIPPED: '2' };

function painter(stream: ConsoleStream) {
  const on = stream.isTTY === true && !process.env.NO_COLOR;
  return (code: string, text: string) => (on ? `\u001b[${code}m${text}\u001b[0m` : text);
}

/** Progress for people: one line per check as it finishes, the reason under every non-pass. */
export function consoleProgress(stream: ConsoleStream) {
  const paint = painter(stream);
  return (result: CheckResult, index: number, total: number) => {
    const width = String(total).length;
    const counter = `[${String(index + 1).padStart(width)}/${total}]`;
    const expected = result.expected ? paint('2', ` (expected failure: ${result.expected.outcome})`) : '';
    stream.write(
      `${paint('2', counter)} ${paint(COLOR[result.status], `${ICON[result.status]} ${result.status.padEnd(7)}`)} ${result.id} ${paint('2', `${result.durationMs} ms`)}${expected}\n`,
    );
    if (result.status !== 'PASSED') {
      const requirements = result.requirements.length > 0 ? paint('2', ` [${result.requirements.join(', ')}]`) : '';
      stream.write(`${' '.repeat(counter.length + 1)}${paint('2', '└')} ${result.message}${requirements}\n`);
    }
  };
}

export function consoleSummary(report: ConformanceReport, stream: ConsoleStream): void {
  const paint = painter(stream);
  const s = report.summary;
  const verdict = paint(s.verdict === 'PASSED' ? '32' : s.verdict === 'FAILED' ? '31' : '33', s.verdict);
  const requirementsRun = report.requirements.filter((r) => r.outcome !== 'NOT-RUN' && r.outcome !== 'NOT-CHECKABLE');
  const mustFailed = report.requirements.filter((r) => r.level === 'MUST' && r.outcome === 'FAILED').map((r) => r.id);
  const subject =
    report.subject === 'solver'
      ? 'Certification of the solver'
      : report.subject === 'webhook-receiver'
        ? `Certification of the webhook receiver ${report.target.url}`
        : `Conformance of ${report.target.url} to Reference ${report.target.profile}`;
  stream.write(
    `\n${subject}: ${verdict}\n` +
      `  ${s.total} checks: ${s.passed} passed, ${s.failed} failed, ${s.warning} warnings, ${s.skipped} skipped` +
      (s.expectedSkips > 0 ? `; ${s.expectedSkips} skipped as expected` : '') +
      (s.expectedFailures + s.unexpectedPasses > 0
        ? `; ${s.expectedFailures} expected failures, ${s.unexpectedPasses} expected failures that did not fail`
        : '') +
      `\n  ${requirementsRun.length} requirements exercised; MUST failed: ${mustFailed.length === 0 ? 'none' : mustFailed.join(', ')}\n` +
      `  ${(report.run.durationMs / 1000).toFixed(1)} s, seed ${report.run.seed}\n` +
      missingText(report),
  );
}

/** INCOMPLETE: what was missing, how to provide it, and the checks it left out. */
export function missingText(report: ConformanceReport): string {
  const missing = report.summary.missing ?? [];
  if (missing.length === 0) return '';
  const skipped = missing.reduce((n, m) => n + m.checks.length, 0);
  const lines = [`  INCOMPLETE: ${skipped} check(s) did not run; the verdict says nothing about them. Missing:`];
  for (const m of missing) {
    const shown = m.checks.slice(0, 6).join(', ') + (m.checks.length > 6 ? `, … (${m.checks.length - 6} more)` : '');
    lines.push(`  - ${m.capability ?? 'the run showed'}: ${m.reason}`, `      to provide: ${m.provide}`, `      skipped: ${shown}`);
  }
  lines.push('  (name skips that are by design in --expected-skips FILE)');
  return `${lines.join('\n')}\n`;
}
