import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ConformanceReport } from '../core/report.js';
import type { CheckResult, Evidence } from '../core/types.js';

function esc(text: unknown): string {
  return String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Text from the catalogue and the checks is Markdown-ish: `code` spans render as code, everything else escaped. */
function md(text: unknown): string {
  return esc(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

/** A body as people read it: JSON pretty-printed whole (never cut mid-value; the box scrolls), anything else as is. */
function body(text: string | undefined): string {
  if (text === undefined || text === '') return '';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function evidenceHtml(evidence: Evidence): string {
  switch (evidence.kind) {
    case 'http': {
      const request = `${evidence.request.method} ${evidence.request.url}\n${Object.entries(evidence.request.headers)
        .map(([k, v]) => `${k}: ${v}`)
        .join('\n')}${evidence.request.body ? `\n\n${body(evidence.request.body)}` : ''}`;
      const response = evidence.response
        ? `HTTP ${evidence.response.status} (${evidence.ms} ms)\n${Object.entries(evidence.response.headers)
            .map(([k, v]) => `${k}: ${v}`)
            .join('\n')}\n\n${body(evidence.response.body ?? undefined)}`
        : `no answer: ${evidence.error ?? ''}`;
      return `<details><summary>${esc(evidence.label ?? 'HTTP')}: ${esc(evidence.request.method)} ${esc(new URL(evidence.request.url).pathname)} → ${esc(evidence.response?.status ?? 'no answer')}</summary><div class="pair"><pre>${esc(request)}</pre><pre>${esc(response)}</pre></div></details>`;
    }
    case 'ws':
      return `<details><summary>${esc(evidence.label ?? 'WebSocket')}: ${esc(evidence.url)} (${evidence.frames.length} frames${evidence.close ? `, closed ${evidence.close.code}` : ''})</summary><pre>${esc(
        evidence.frames.map((f) => `${String(f.at).padStart(6)} ms ${f.dir === 'sent' ? '→' : '←'} ${f.data}`).join('\n'),
      )}</pre></details>`;
    case 'deliveries':
      return `<details><summary>${esc(evidence.label ?? 'Webhook deliveries')}: ${evidence.deliveries.length}</summary><pre>${esc(
        evidence.deliveries.map((d) => `${d.at} ${d.path} answered ${d.answered}\n${JSON.stringify(d.headers)}\n${d.body}`).join('\n\n'),
      )}</pre></details>`;
    case 'rpc':
      return `<details><summary>JSON-RPC ${esc(evidence.method)} (chain ${esc(evidence.chainId ?? '?')})</summary><pre>${esc(JSON.stringify(evidence, null, 2))}</pre></details>`;
    case 'note':
      return `<div class="note">${md(evidence.text)}${evidence.data === undefined ? '' : `<pre>${esc(JSON.stringify(evidence.data, null, 2))}</pre>`}</div>`;
  }
}

function row(result: CheckResult): string {
  return `<tr id="check-${esc(result.id)}" class="${result.status}"><td><span class="badge ${result.status}">${result.status}</span></td><td><code class="id">${esc(result.id)}</code><div>${md(result.title)}</div></td><td>${result.requirements
    .map((r) => `<a class="id" href="#req-${esc(r)}">${esc(r)}</a>`)
    .join(
      ' ',
    )}</td><td>${md(result.message)}${result.expected ? `<div class="note">expected failure: ${esc(result.expected.outcome)} — ${md(result.expected.reason)}</div>` : ''}${
    result.evidence.length > 0
      ? `<details><summary>evidence (${result.evidence.length})</summary>${result.evidence.map(evidenceHtml).join('')}</details>`
      : ''
  }</td><td>${result.durationMs} ms</td></tr>`;
}

function missingHtml(report: ConformanceReport): string {
  const missing = report.summary.missing ?? [];
  if (missing.length === 0) return '';
  return `<h2>Incomplete: what the run was missing</h2><p>These checks did not run; the verdict says nothing about them.</p><table><thead><tr><th>Missing</th><th>How to provide it</th><th>Checks skipped</th></tr></thead><tbody>${missing
    .map(
      (m) =>
        `<tr class="SKIPPED"><td>${esc(m.capability ?? 'shown by the run')}<div class="note">${md(m.reason)}</div></td><td>${md(m.provide)}</td><td>${m.checks.map((c) => `<code class="id">${esc(c)}</code>`).join(' ')}</td></tr>`,
    )
    .join('')}</tbody></table>`;
}

/** At the top, before anything else: every check that failed, warned or was skipped, linked to its row. */
function attentionHtml(report: ConformanceReport): string {
  const groups = (['FAILED', 'WARNING', 'SKIPPED'] as const)
    .map((status) => ({ status, results: report.results.filter((r) => r.status === status) }))
    .filter((group) => group.results.length > 0);
  if (groups.length === 0) return '';
  return `<h2>Failures and skips</h2><ul class="attention">${groups
    .map(
      (group) =>
        `<li><span class="badge ${group.status}">${group.status}</span> ${group.results.length}<ul>${group.results
          .map((r) => `<li><a class="id" href="#check-${esc(r.id)}"><code>${esc(r.id)}</code></a> ${md(r.message)}</li>`)
          .join('')}</ul></li>`,
    )
    .join('')}</ul>`;
}

/** One self-contained page (no scripts, no external assets): summary, checks with evidence, requirements. */
export function htmlReport(report: ConformanceReport): string {
  const s = report.summary;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Conformance ${esc(report.target.url)} — Reference ${esc(report.target.profile)}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2rem;color:#222}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.4rem;vertical-align:top;text-align:left}
.badge{padding:.1rem .4rem;border-radius:.3rem;font-weight:600;font-size:12px}.PASSED{background:#e6f4ea}.FAILED{background:#fce8e6}.WARNING{background:#fef7e0}.SKIPPED{background:#f1f3f4}
.badge.PASSED{background:#137333;color:#fff}.badge.INCOMPLETE{background:#b06000;color:#fff}.badge.FAILED{background:#c5221f;color:#fff}.badge.WARNING{background:#b06000;color:#fff}.badge.SKIPPED,.badge.NOT-RUN,.badge.NOT-CHECKABLE{background:#5f6368;color:#fff}
pre{white-space:pre-wrap;word-break:break-all;background:#f8f9fa;padding:.5rem;max-height:24rem;overflow:auto;font-size:12px}.pair{display:grid;grid-template-columns:1fr 1fr;gap:.5rem}.note{color:#555;font-size:12px}
code.id,a.id,td:first-child>code{white-space:nowrap}.attention{padding-left:1.2rem}.attention li{margin:.2rem 0}
</style></head><body>
<h1>Conformance to Reference ${esc(report.target.profile)}: <span class="badge ${s.verdict}">${s.verdict}</span></h1>
<p>Target <code>${esc(report.target.url)}</code> (${esc(report.target.environment)}), ${esc(report.run.startedAt)}, ${(report.run.durationMs / 1000).toFixed(1)} s, seed ${report.run.seed}.
${s.total} checks: ${s.passed} passed, ${s.failed} failed, ${s.warning} warnings, ${s.skipped} skipped${s.expectedSkips ? ` (${s.expectedSkips} as expected)` : ''}.${report.signature ? ` Signed by <code>${esc(report.signature.keyId)}</code>.` : ' Unsigned.'}</p>
<p class="note">Capabilities: ${esc(report.target.capabilities.join(', ') || 'none')}. Missing: ${esc(
    Object.entries(report.target.missingCapabilities)
      .map(([k, v]) => `${k} (${v})`)
      .join('; ') || 'none',
  )}.</p>
${attentionHtml(report)}${missingHtml(report)}<h2>Checks</h2><table><thead><tr><th>Result</th><th>Check</th><th>Requirements</th><th>Detail</th><th>Time</th></tr></thead><tbody>
${report.results.map(row).join('\n')}
</tbody></table>
<h2>Requirements</h2><table><thead><tr><th>Id</th><th>Level</th><th>Outcome</th><th>Requirement</th><th>Checks</th></tr></thead><tbody>
${report.requirements
  .map(
    (r) =>
      `<tr id="req-${esc(r.id)}"><td><code>${esc(r.id)}</code></td><td>${esc(r.level)}</td><td><span class="badge ${esc(r.outcome)}">${esc(r.outcome)}</span></td><td>${md(r.text)}<div class="note">${esc(r.section)} — ${esc(r.link)}</div></td><td>${r.checks
        .map((c) => `<code>${esc(c)}</code>`)
        .join(' ')}</td></tr>`,
  )
  .join('\n')}
</tbody></table></body></html>
`;
}

export function writeHtmlReport(report: ConformanceReport, path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, htmlReport(report));
}
