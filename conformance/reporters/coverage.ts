import { coverage, type CoverageReport } from '../catalogue/index.js';
import type { Check } from '../core/runner.js';

/** Every requirement with the checks that test it, as text: the catalogue's promise made visible. */
export function coverageText(checks: readonly Check[]): { text: string; report: CoverageReport } {
  const report = coverage(checks);
  const lines: string[] = [];
  let section = '';
  for (const entry of report.entries) {
    const req = entry.requirement;
    const family = req.id.replace(/-\d+$/, '');
    if (family !== section) {
      section = family;
      lines.push('');
    }
    const mark = req.level === 'NOT-CHECKABLE' ? '·' : entry.checks.length > 0 ? '✓' : req.level === 'MUST' ? '✗' : '!';
    lines.push(
      `${mark} ${req.id.padEnd(10)} ${req.level.padEnd(13)} ${entry.checks.length > 0 ? entry.checks.join(', ') : req.level === 'NOT-CHECKABLE' ? '(not checkable)' : '(no check)'}`,
    );
  }
  const checkable = report.entries.filter((e) => e.requirement.level !== 'NOT-CHECKABLE');
  lines.push(
    '',
    `${report.entries.length} requirements: ${checkable.filter((e) => e.requirement.level === 'MUST').length} MUST, ${checkable.filter((e) => e.requirement.level === 'SHOULD').length} SHOULD, ${report.notCheckable.length} not checkable; ${checks.length} checks.`,
    `MUST without a check: ${report.uncoveredMust.length === 0 ? 'none' : report.uncoveredMust.join(', ')}`,
    `SHOULD without a check: ${report.uncoveredShould.length === 0 ? 'none' : report.uncoveredShould.join(', ')}`,
  );
  if (report.unknownReferences.length > 0) {
    lines.push(
      `Unknown requirement ids named by checks: ${report.unknownReferences.map((u) => `${u.check} → ${u.requirement}`).join(', ')}`,
    );
  }
  return { text: lines.join('\n').trimStart(), report };
}
