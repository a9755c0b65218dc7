import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runConformance } from './run.js';
import { generateSigningKey, verifyDocument } from './core/signing.js';
import { writeJsonReport } from './reporters/json.js';
import { writeJunitReport } from './reporters/junit.js';
import { startOwnSandbox, type OwnSandbox } from '../test/support/conformance/own-sandbox.js';

/**
 * The whole suite against our own sandbox, once per interface generation: every check passes or is skipped for
 * a reason the sandbox cannot change (no corridor without solvers; real-time waits need --long).
 */
const ALLOWED_SKIPS = new Set(['quotes.corridor-unavailable', 'webhooks.timeout-30s']);

const started: OwnSandbox[] = [];
const folders: string[] = [];
afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
  for (const f of folders) rmSync(f, { recursive: true, force: true });
});

describe.each(['A', 'B'] as const)('conformance of our sandbox to Reference %s', (profile) => {
  it('passes completely, with a signed report and one JUnit testcase per check', async () => {
    const own = await startOwnSandbox({ webhookProfile: profile });
    started.push(own);
    const key = generateSigningKey();
    const expectedSkips = [...ALLOWED_SKIPS].map((check) => ({ check, reason: 'the sandbox cannot offer it (see ALLOWED_SKIPS)' }));
    const run = await runConformance({ profile, sandbox: own.file, seed: 20_301, signingKey: key, expectedSkips });
    const problems = run.report.results
      .filter((r) => r.status === 'FAILED' || r.status === 'WARNING' || (r.status === 'SKIPPED' && !ALLOWED_SKIPS.has(r.id)))
      .map((r) => `${r.status} ${r.id}: ${r.message}`);
    expect(problems).toEqual([]);
    expect(run.exitCode).toBe(0);
    expect(run.report.summary.verdict).toBe('PASSED');
    // The flows really ran: orders settled, events and deliveries seen, schedules walked.
    const passed = new Set(run.report.results.filter((r) => r.status === 'PASSED').map((r) => r.id));
    const core =
      profile === 'A'
        ? [
            'orders.lifecycle.Permit2Escrow',
            'orders.lifecycle.EIP3009Escrow',
            'orders.lifecycle.ResourceLock',
            'orders.refund-after-deadline',
            'events.a.success-sequence',
            'events.a.failure-sequence',
            'webhooks.retry-schedule',
            'webhooks.pause-and-enable',
            'ratelimit.burst-then-429',
            'pagination.walk',
          ]
        : [
            'b.accept',
            'b.audit',
            'events.b.success-sequence',
            'events.b.failure-sequence',
            'webhooks.retry-schedule',
            'webhooks.disable-after-5-failures',
            'ratelimit.burst-then-429',
          ];
    for (const id of core) expect(passed.has(id), id).toBe(true);
    expect(verifyDocument(run.report)).toMatchObject({ valid: true });

    const folder = mkdtempSync(join(tmpdir(), 'conformance-report-'));
    folders.push(folder);
    writeJsonReport(run.report, join(folder, 'report.json'));
    writeJunitReport(run.report, join(folder, 'junit.xml'));
    expect(verifyDocument(JSON.parse(readFileSync(join(folder, 'report.json'), 'utf8')))).toMatchObject({ valid: true });
    const junit = readFileSync(join(folder, 'junit.xml'), 'utf8');
    expect(junit.match(/<testcase /g)).toHaveLength(run.report.results.length);
  }, 180_000);
});
