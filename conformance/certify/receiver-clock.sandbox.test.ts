import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookListener, type Listener } from '../../src/api/webhook-listener.js';
import type { ConformanceReport } from '../core/report.js';
import { program } from '../../test/support/conformance/cli-entry.js';
import { startOwnSandbox, type OwnSandbox } from '../../test/support/conformance/own-sandbox.js';

/**
 * One clock for the certifier and the receiver: after `sandbox clock advance 31h`, the project's receiver
 * (`webhooks listen --no-register --secret …`) judges timestamps by the sandbox clock, and `certify
 * webhook-receiver` signs by the same clock, so the project's receiver passes the project's certifier.
 */

let own: OwnSandbox;
let listener: Listener;
let stateDir: string;
const secret = `whsec_${'c0ffee'.repeat(6)}`;

beforeAll(async () => {
  own = await startOwnSandbox({ solvers: 1 });
  stateDir = own.sandbox.stateDir;
  const advanced = await fetch(`${own.url}/api/v1/sandbox/clock/advance`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${own.apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ seconds: 31 * 3600 }),
  });
  expect(advanced.status).toBe(200);
  listener = await startWebhookListener({ stateDir, register: false, secret });
}, 180_000);
afterAll(async () => {
  await listener?.close();
  await own?.stop();
});

async function certify(...extra: string[]): Promise<{ code: number; report: ConformanceReport; err: string }> {
  let out = '';
  let err = '';
  const saved = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };
  process.stdout.write = ((chunk: string) => ((out += chunk), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string) => ((err += chunk), true)) as typeof process.stderr.write;
  process.exitCode = undefined;
  try {
    await program().parseAsync([
      'node',
      'sandbox',
      '--json',
      '--state-dir',
      stateDir,
      'certify',
      'webhook-receiver',
      '--url',
      listener.url,
      '--secret',
      secret,
      '--no-sign',
      ...extra,
    ]);
  } finally {
    process.stdout.write = saved.out;
    process.stderr.write = saved.err;
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = undefined;
  return { code, report: JSON.parse(out) as ConformanceReport, err };
}

describe('certify webhook-receiver against the project’s receiver after a 31 h clock advance', () => {
  it('signs by the sandbox clock the receiver judges by: 12/12', async () => {
    const { code, report } = await certify();
    const problems = report.results.filter((r) => r.status !== 'PASSED').map((r) => `${r.id}: ${r.message}`);
    expect(problems).toEqual([]);
    expect(report.summary).toMatchObject({ total: 12, passed: 12, verdict: 'PASSED' });
    expect(String(report.clock)).toMatch(/^sandbox \(1116\d\d s ahead\)$/);
    expect(code).toBe(0);
    // The secret never appears in the report.
    expect(JSON.stringify(report)).not.toContain(secret);
  }, 60_000);

  it('with --clock wall the two clocks disagree by 31 h and a valid delivery is refused as too old', async () => {
    const { code, report } = await certify('--clock', 'wall');
    const valid = report.results.find((r) => r.id === 'receiver.valid-delivery')!;
    expect(valid.status).toBe('FAILED');
    expect(code).toBe(1);
  }, 60_000);
});
