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
  const verdict = s.verdict === 'PASSED' ? paint('32', 'PASSED') : paint('31', 'FAILED');
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
      (s.expectedFailures + s.unexpectedPasses > 0
        ? `; ${s.expectedFailures} expected failures, ${s.unexpectedPasses} expected failures that did not fail`
        : '') +
      `\n  ${requirementsRun.length} requirements exercised; MUST failed: ${mustFailed.length === 0 ? 'none' : mustFailed.join(', ')}\n` +
      `  ${(report.run.durationMs / 1000).toFixed(1)} s, seed ${report.run.seed}\n`,
  );
}
