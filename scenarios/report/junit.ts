import type { RunReport, ScenarioResult } from '../runner/result.js';

/** XML 1.0 text: escaped, and without the control characters XML cannot carry. */
export function xmlText(value: string): string {
  return value
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const seconds = (ms: number) => (ms / 1_000).toFixed(3);

function stepsText(result: ScenarioResult): string {
  return result.steps
    .map(
      (step) =>
        `${step.status === 'passed' ? '✓' : step.status === 'failed' ? '✗' : step.status === 'skipped' ? '–' : '·'} ${step.title} (${Math.round(step.durationMs)} ms)${step.summary ? `: ${step.summary}` : ''}${step.error ? `: ${step.error}` : ''}`,
    )
    .join('\n');
}

function testcase(result: ScenarioResult): string {
  const head = `    <testcase classname="scenarios.${xmlText(result.tags[0] ?? 'scenario')}" name="${xmlText(result.name)}" time="${seconds(result.durationMs)}">`;
  const body: string[] = [];
  if (result.status === 'skipped') body.push(`      <skipped message="${xmlText(result.reason ?? 'skipped')}"/>`);
  if (result.status === 'failed' && result.failure !== undefined) {
    const text = [`step: ${result.failure.step}`, result.failure.message, result.failure.details, result.failure.timelines]
      .filter(Boolean)
      .join('\n\n');
    body.push(
      `      <failure message="${xmlText(result.failure.message)}" type="${xmlText(result.failure.step)}">${xmlText(text)}</failure>`,
    );
  }
  const out = [
    stepsText(result),
    ...(result.escrow.length > 0 ? ['', ...result.escrow] : []),
    ...(result.notes.length > 0 ? ['', ...result.notes] : []),
  ].join('\n');
  body.push(`      <system-out>${xmlText(out)}</system-out>`);
  return [head, ...body, '    </testcase>'].join('\n');
}

/** JUnit XML, one test case per scenario: what CI systems display. */
export function junitReport(report: RunReport): string {
  const { total, failed, skipped } = report.summary;
  const attributes = `tests="${total}" failures="${failed}" errors="0" skipped="${skipped}" time="${seconds(report.durationMs)}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="settlement scenarios" ${attributes}>`,
    `  <testsuite name="scenarios" ${attributes} timestamp="${xmlText(report.startedAt)}">`,
    '    <properties>',
    `      <property name="seed" value="${report.seed}"/>`,
    `      <property name="target" value="${xmlText(report.target)}"/>`,
    '    </properties>',
    ...report.scenarios.map(testcase),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
