import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformance } from './run.js';
import type { SandboxFile } from './deployment/sandbox-file.js';
import { FaultProxy } from '../test/support/conformance/fault-proxy.js';
import { stripExtensions } from '../test/support/conformance/extension-stripper.js';
import { startOwnSandbox, type OwnSandbox } from '../test/support/conformance/own-sandbox.js';
import { program } from '../test/support/conformance/cli-entry.js';
import type { CapabilitiesReport } from './reporters/capabilities.js';

/** `sandbox conformance …` in-process; its stdout. */
async function cli(...args: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const write = process.stdout.write.bind(process.stdout);
  const writeErr = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: string) => ((out += chunk), true)) as typeof process.stdout.write;
  process.stderr.write = (() => true) as typeof process.stderr.write;
  process.exitCode = undefined;
  try {
    await program().parseAsync(['node', 'sandbox', ...args]);
  } finally {
    process.stdout.write = write;
    process.stderr.write = writeErr;
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = undefined;
  return { code, out };
}

/**
 * A deployment that implements only the spec: our sandbox behind a proxy that strips every project extension
 * (quote request fields, typedData and nonce, WS cursor, webhook replay, solver-stream order messages, sandbox
 * routes). The suite passes it: the flows build the OIF payload from the quote's standardOrder and lockType with
 * their own nonces, and what needs an extension is SKIPPED with the reason, never FAILED.
 */
let own: OwnSandbox;
let proxy: FaultProxy;

beforeAll(async () => {
  own = await startOwnSandbox();
  proxy = await FaultProxy.start(own.url, stripExtensions());
}, 120_000);
afterAll(async () => {
  await proxy?.stop();
  await own?.stop();
});

describe('conformance of a spec-only deployment', () => {
  it('every applicable check passes; extension checks are skipped with their reason, so the run is INCOMPLETE', async () => {
    const sandbox: SandboxFile = { ...own.file, api: { ...own.file.api, url: proxy.url } };
    const run = await runConformance({ profile: 'A', sandbox, seed: 4_242 });
    const byId = Object.fromEntries(run.report.results.map((r) => [r.id, r]));
    const problems = run.report.results
      .filter((r) => r.status === 'FAILED' || r.status === 'WARNING')
      .map((r) => `${r.status} ${r.id}: ${r.message}`);
    const skipped = run.report.results.filter((r) => r.status === 'SKIPPED').map((r) => `${r.id}: ${r.message}`);
    console.log(`spec-only target: ${run.report.results.length} checks, ${skipped.length} skipped\n${skipped.join('\n')}`);
    expect(problems).toEqual([]);
    // Nothing failed, but the extension checks did not run: INCOMPLETE (exit 3), each gap named with how to provide it.
    expect(run.report.summary.verdict).toBe('INCOMPLETE');
    expect(run.exitCode).toBe(3);
    expect(run.report.summary.missing.flatMap((m) => m.checks).length).toBe(skipped.length);
    // Discovery saw a target without the extensions…
    for (const capability of ['clock', 'keys', 'namedTaker', 'quoteLockType', 'quoteSettlementPath'] as const)
      expect(run.target.capabilities.has(capability), capability).toBe(false);
    // …and the spec's own flow still ran end to end: a Permit2 order signed from standardOrder with the taker's nonce.
    expect(byId['orders.lifecycle.Permit2Escrow']?.status).toBe('PASSED');
    expect(byId['orders.lifecycle.EIP3009Escrow']?.message).toMatch(/lockType/);
    expect(byId['ws.replay-by-cursor']?.message).toMatch(/no cursor replay/);
  }, 240_000);

  it('--capabilities reports what the target lacks and the checks that skips, without running any', async () => {
    const plain = await cli('conformance', '--target', proxy.url, '--api-key', own.apiKey, '--capabilities');
    expect(plain.code).toBe(0);
    expect(plain.out).toMatch(/no  clock\s+no sandbox clock control/);
    expect(plain.out).toMatch(/no  namedTaker\s+the OpenAPI document's POST \/quotes request has no `user`/);
    const { code, out } = await cli('--json', 'conformance', '--target', proxy.url, '--api-key', own.apiKey, '--capabilities');
    expect(code).toBe(0);
    const report = JSON.parse(out) as CapabilitiesReport;
    const line = (name: string) => report.capabilities.find((c) => c.capability === name)!;
    expect(line('apiKey')).toMatchObject({ offered: true, neededBy: [] });
    expect(line('openapi').offered).toBe(true);
    expect(line('keys')).toMatchObject({ offered: false });
    expect(line('keys').neededBy).toContain('ratelimit.per-key');
    // No sandbox file: no funded takers, so the flows are reported as skipped for that.
    expect(line('fundedAccounts').neededBy).toContain('orders.lifecycle.Permit2Escrow');
    expect(report.skipped).toBeGreaterThan(0);
    expect(report.runnable + report.skipped).toBeGreaterThan(50);
  }, 60_000);
});
