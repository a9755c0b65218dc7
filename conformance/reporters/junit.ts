import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ConformanceReport } from '../core/report.js';
import type { CheckResult, Evidence } from '../core/types.js';

/** XML 1.0 forbids most control characters even when escaped: drop them. */
export function xmlEscape(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
      .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
  );
}

function evidenceText(evidence: readonly Evidence[]): string {
  return evidence
    .slice(0, 12)
    .map((e): string => {
      switch (e.kind) {
        case 'http':
          return `${e.request.method} ${e.request.url} → ${e.response ? e.response.status : `no answer (${e.error})`}${e.response?.body ? `\n  ${e.response.body.slice(0, 400)}` : ''}`;
        case 'ws':
          return `WS ${e.url}: ${e.frames.length} frames${e.close ? `, closed ${e.close.code} ${e.close.reason}` : ''}`;
        case 'deliveries':
          return `webhook deliveries: ${e.deliveries.length}`;
        case 'rpc':
          return `JSON-RPC ${e.method} → ${e.error ?? JSON.stringify(e.result)?.slice(0, 120)}`;
        case 'note':
          return e.text;
        default:
          return '';
      }
    })
    .join('\n');
}

function testcase(result: CheckResult, profile: string): string {
  const classname = `conformance.${profile}.${result.id.split('.')[0]}`;
  const name = `${result.id}: ${result.title}`;
  const time = (result.durationMs / 1000).toFixed(3);
  const properties =
    `<properties>${result.requirements.map((r) => `<property name="requirement" value="${xmlEscape(r)}"/>`).join('')}` +
    `<property name="status" value="${result.status}"/></properties>`;
  let body = properties;
  const expectedNote = result.expected ? `expected failure (${result.expected.outcome}): ${result.expected.reason}\n` : '';
  if (result.status === 'FAILED' && result.expected?.outcome !== 'failed-as-expected') {
    body += `<failure message="${xmlEscape(result.message)}" type="FAILED">${xmlEscape(evidenceText(result.evidence))}</failure>`;
  } else if (result.expected?.outcome === 'did-not-fail') {
    body += `<failure message="${xmlEscape(`expected to fail but ${result.status}: ${result.expected.reason}`)}" type="UNEXPECTED_PASS"/>`;
  } else if (result.status === 'SKIPPED') {
    body += `<skipped message="${xmlEscape(result.expectedSkip ? `expected skip (${result.expectedSkip.reason}): ${result.message}` : result.message)}"/>`;
  } else if (result.status === 'FAILED') {
    body += `<skipped message="${xmlEscape(`expected failure: ${result.message}`)}"/>`;
  }
  const out = result.status === 'WARNING' ? `WARNING: ${result.message}\n` : result.status === 'PASSED' ? `${result.message}\n` : '';
  if (out || expectedNote) body += `<system-out>${xmlEscape(expectedNote + out)}</system-out>`;
  return `    <testcase classname="${xmlEscape(classname)}" name="${xmlEscape(name)}" time="${time}">${body}</testcase>`;
}

/** JUnit XML: one testcase per check; WARNING passes with the warning in system-out. */
export function junitXml(report: ConformanceReport): string {
  const failures = report.results.filter(
    (r) => (r.status === 'FAILED' && r.expected?.outcome !== 'failed-as-expected') || r.expected?.outcome === 'did-not-fail',
  ).length;
  const skipped = report.results.filter((r) => r.status === 'SKIPPED' || r.expected?.outcome === 'failed-as-expected').length;
  const suite = `conformance Reference ${report.target.profile} ${report.target.url}`;
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<testsuites name="conformance" tests="${report.results.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${(report.run.durationMs / 1000).toFixed(3)}">\n` +
    `  <testsuite name="${xmlEscape(suite)}" tests="${report.results.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${(report.run.durationMs / 1000).toFixed(3)}" timestamp="${report.run.startedAt.replace(/\.\d+Z$/, '')}">\n` +
    `    <properties><property name="seed" value="${report.run.seed}"/><property name="verdict" value="${report.summary.verdict}"/>${(report.summary.missing ?? []).map((m) => `<property name="missing" value="${xmlEscape(`${m.capability ?? m.reason}: ${m.provide} (${m.checks.length} checks)`)}"/>`).join('')}</properties>\n` +
    report.results.map((r) => testcase(r, report.target.profile)).join('\n') +
    `\n  </testsuite>\n</testsuites>\n`
  );
}

export function writeJunitReport(report: ConformanceReport, path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, junitXml(report));
}
