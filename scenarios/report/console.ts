import { bold, dim, green, red, table, yellow } from '../../src/terminal/style.js';
import type { RunEvent, RunReport, ScenarioResult } from '../runner/result.js';

const time = (ms: number) => (ms < 1_000 ? `${Math.round(ms)} ms` : `${(ms / 1_000).toFixed(1)} s`);
const indent = (text: string, by: string) =>
  text
    .split('\n')
    .map((line) => `${by}${line}`)
    .join('\n');

/** What went wrong in a failed scenario: the step, the message, the expected and seen timelines. */
export function describeFailure(result: ScenarioResult): string {
  if (result.failure === undefined) return '';
  const parts = [`${red('✗')} ${bold(result.name)} failed at: ${result.failure.step}`, indent(result.failure.message, '    ')];
  if (result.failure.details !== undefined) parts.push(indent(result.failure.details, '    '));
  if (result.failure.timelines !== undefined) parts.push(indent(result.failure.timelines, '    '));
  parts.push(dim(`    reproduce: sandbox scenario run ${result.name} --seed <this run's seed>`));
  return parts.join('\n');
}

/**
 * Live progress for people: each scenario as it starts, each step as it ends (with what it did), and a failure's
 * evidence as soon as it happens. Written to stderr so stdout keeps only the summary.
 */
export function progressPrinter(write: (text: string) => void): (event: RunEvent) => void {
  return (event) => {
    switch (event.type) {
      case 'target.starting':
        write(dim(`› starting ${event.description}…\n`));
        return;
      case 'target.ready':
        write(dim(`› ready in ${time(event.durationMs)}: ${event.description}\n`));
        return;
      case 'scenario.start':
        write(`${bold(`[${event.index}/${event.total}] ${event.name}`)} ${dim(event.title)}\n`);
        return;
      case 'step.end': {
        const mark = event.result.status === 'passed' ? green('✓') : event.result.status === 'skipped' ? yellow('–') : red('✗');
        const detail = event.result.summary ?? event.result.error;
        write(`    ${mark} ${event.result.title} ${dim(`(${time(event.result.durationMs)})`)}${detail ? dim(` ${detail}`) : ''}\n`);
        return;
      }
      case 'scenario.end': {
        const { result } = event;
        if (result.status === 'passed')
          write(`  ${green('passed')} in ${time(result.durationMs)}, invariants checked ${result.invariantChecks}×\n`);
        else if (result.status === 'skipped') write(`  ${yellow('skipped')}: ${result.reason}\n`);
        else write(`${describeFailure(result)}\n`);
        return;
      }
      default:
        return;
    }
  };
}

/** The summary table, one row per scenario, and the totals. */
export function summaryTable(report: RunReport): string {
  const status = { passed: green('passed'), failed: red('failed'), skipped: yellow('skipped') } as const;
  const rows = [
    [bold('scenario'), bold('result'), bold('steps'), bold('time'), bold('note')],
    ...report.scenarios.map((r) => {
      const ran = r.steps.filter((s) => s.status !== 'not run').length;
      const note = r.status === 'skipped' ? (r.reason ?? '') : r.status === 'failed' ? (r.failure?.step ?? '') : '';
      return [r.name, status[r.status], `${ran}/${r.steps.length}`, time(r.durationMs), note.length > 70 ? `${note.slice(0, 67)}…` : note];
    }),
  ];
  const { total, passed, failed, skipped } = report.summary;
  const totals = `${total} scenario${total === 1 ? '' : 's'}: ${green(`${passed} passed`)}, ${failed > 0 ? red(`${failed} failed`) : '0 failed'}, ${skipped} skipped in ${time(report.durationMs)} (seed ${report.seed}, ${report.target})`;
  return `${table(rows)}\n\n  ${totals}`;
}
