import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatePrivateKey } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConformanceReport } from './core/report.js';
import { program } from '../test/support/conformance/cli-entry.js';
import { startOwnSandbox, type OwnSandbox } from '../test/support/conformance/own-sandbox.js';

/**
 * A third party's run: the README's command against a fresh sandbox with no sandbox.json in the state folder,
 * then the options a deployment elsewhere needs (taker keys, RPC URLs, expected skips). The caller's mistakes end
 * in exit 2 before any check; a run that leaves checks out says INCOMPLETE; no credential reaches an artifact.
 */

let own: OwnSandbox;
let folder: string;

beforeAll(async () => {
  own = await startOwnSandbox();
  folder = mkdtempSync(join(tmpdir(), 'conformance-third-party-'));
}, 120_000);
afterAll(async () => {
  await own?.stop();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

/** One command in-process, its exit code and everything it printed. */
async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const saved = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };
  process.stdout.write = ((chunk: string) => ((out += chunk), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string) => ((err += chunk), true)) as typeof process.stderr.write;
  process.exitCode = undefined;
  try {
    // The state folder holds no sandbox.json: nothing is read from the sandbox's own files.
    await program().parseAsync(['node', 'sandbox', '--state-dir', folder, ...args]);
  } finally {
    process.stdout.write = saved.out;
    process.stderr.write = saved.err;
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = undefined;
  return { code, out, err };
}

/** Every credential of the sandbox and of the run, by value and by shape. */
function secretsIn(text: string, known: readonly string[]): string[] {
  const hits = known.filter((secret) => text.includes(secret) || text.includes(secret.replace(/^0x/, '')));
  const shapes = [
    /\b(?:svc|wst)_(?:test|live)_[A-Za-z0-9_]{12,}/g,
    /\bwhsec_[A-Za-z0-9_+/=-]{12,}/g,
    /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  ];
  for (const shape of shapes) hits.push(...(text.match(shape) ?? []));
  return hits.map((hit) => `${hit.slice(0, 12)}… (${hit.length})`);
}

function knownSecrets(): string[] {
  return [
    ...(own.file.api?.apiKeys ?? []),
    ...Object.values(own.file.accounts ?? {}).flatMap((accounts) => (accounts ?? []).map((a) => a.privateKey)),
  ];
}

describe('the caller’s inputs are checked before any check', () => {
  it('a wrong or a malformed API key ends in exit 2, "the target refused the API key", and no report', async () => {
    const wrong = `svc_test_${'0'.repeat(32)}_${'ab'.repeat(32)}`;
    for (const key of [wrong, 'not-a-key-at-all']) {
      const report = join(folder, `refused-${key.length}.json`);
      const run = await cli('conformance', '--target', own.url, '--profile', 'A', '--api-key', key, '--report', `json=${report}`);
      expect(run.code).toBe(2);
      expect(run.err).toMatch(/^error: the target refused the API key: 401/m);
      expect(run.out).not.toMatch(/\[\s*1\/\d+\]/);
      expect(existsSync(report)).toBe(false);
      expect(`${run.out}${run.err}`).not.toContain(key);
    }
  }, 60_000);

  it('an unfunded taker key and a chain that does not answer end in exit 2, naming the fix', async () => {
    const unfunded = generatePrivateKey();
    const poor = await cli('conformance', '--target', own.url, '--api-key', own.apiKey, '--taker-key', unfunded, '--no-sign');
    expect(poor.code).toBe(2);
    expect(poor.err).toMatch(/the taker accounts are not funded: 0x[0-9a-fA-F]{40} holds 0 of/);
    expect(`${poor.out}${poor.err}`).not.toContain(unfunded.slice(2));

    const chainId = own.file.chains![0]!.chainId;
    const silent = await cli(
      'conformance',
      '--target',
      own.url,
      '--api-key',
      own.apiKey,
      '--rpc',
      `${chainId}=http://127.0.0.1:9`,
      '--no-sign',
    );
    expect(silent.code).toBe(2);
    expect(silent.err).toMatch(new RegExp(`chain \\S+ \\(${chainId}\\) does not answer at http://127.0.0.1:9: .*--rpc ${chainId}=URL`));
  }, 60_000);
});

describe('the README command against a fresh sandbox, without sandbox.json', () => {
  it('runs every check it can, ends INCOMPLETE (exit 3) naming what is missing, and no secret reaches an artifact', async () => {
    const files = { json: join(folder, 'r.json'), junit: join(folder, 'r.xml'), html: join(folder, 'r.html') };
    const run = await cli(
      'conformance',
      '--target',
      own.url,
      '--profile',
      'A',
      '--api-key',
      own.apiKey,
      '--seed',
      '32',
      '--report',
      `json=${files.json},junit=${files.junit},html=${files.html}`,
    );
    const report = JSON.parse(readFileSync(files.json, 'utf8')) as ConformanceReport;
    const failures = report.results.filter((r) => r.status === 'FAILED' || r.status === 'WARNING').map((r) => `${r.id}: ${r.message}`);
    expect(failures).toEqual([]);
    // The capabilities summary heads the output; pre-flight funded takers through the faucet and found the chains.
    expect(run.out.trimStart()).toMatch(/^Target http:\/\/127\.0\.0\.1:\d+ \(sandbox\), Reference A/);
    expect(run.err).toMatch(/pre-flight: API key accepted/);
    expect(run.err).toMatch(/pre-flight: 5 fresh taker accounts funded through the target's faucet/);
    expect(report.target.capabilities).toEqual(expect.arrayContaining(['chains', 'fundedAccounts', 'workspace', 'clock']));
    const ran = new Set(report.results.filter((r) => r.status === 'PASSED').map((r) => r.id));
    for (const flow of [
      'orders.lifecycle.Permit2Escrow',
      'orders.lifecycle.ResourceLock',
      'orders.refund-after-deadline',
      'webhooks.retry-schedule',
    ])
      expect(ran.has(flow), flow).toBe(true);
    // What did not run is named, with how to provide it; the verdict and the exit code say INCOMPLETE.
    const skipped = report.results.filter((r) => r.status === 'SKIPPED').map((r) => r.id);
    expect(skipped.length).toBeGreaterThan(0);
    expect(report.summary.verdict).toBe('INCOMPLETE');
    expect(run.code).toBe(3);
    expect(report.summary.missing.flatMap((m) => m.checks).sort()).toEqual([...skipped].sort());
    expect(report.summary.missing.find((m) => m.capability === 'long')?.provide).toMatch(/--long/);
    expect(run.out).toMatch(/: INCOMPLETE\n/);
    expect(run.out).toMatch(/INCOMPLETE: \d+ check\(s\) did not run/);
    expect(readFileSync(files.html, 'utf8')).toMatch(/<span class="badge INCOMPLETE">INCOMPLETE<\/span>/);
    expect(readFileSync(files.junit, 'utf8')).toMatch(/<property name="verdict" value="INCOMPLETE"\/>/);

    // The WebSocket auth message is evidence, with its token redacted.
    const auth = report.results.find((r) => r.id === 'ws.auth-message')!;
    const frames = JSON.stringify(auth.evidence);
    expect(frames).toMatch(/\\"token\\":\\"svc_test_\w{2}…\(\d+\)\\"/);

    const artifacts = {
      ...Object.fromEntries(Object.entries(files).map(([k, f]) => [k, readFileSync(f, 'utf8')])),
      stdout: run.out,
      stderr: run.err,
    };
    const found = Object.entries(artifacts).flatMap(([where, text]) => secretsIn(text, knownSecrets()).map((hit) => `${where}: ${hit}`));
    expect(found).toEqual([]);
  }, 240_000);

  it('--taker-key, --rpc and --expected-skips: the flows run with the caller’s keys and named skips are expected (PASSED, exit 0)', async () => {
    const takers = own.file.accounts!.takers!;
    const rpc = own.file.chains!.flatMap((chain) => ['--rpc', `${chain.chainId}=${chain.rpcUrl}`]);
    const expected = join(folder, 'expected-skips.txt');
    writeFileSync(expected, 'webhooks.timeout-30s  # real-time wait; this CI run has no --long\n');
    const keysFile = join(folder, 'takers.txt');
    writeFileSync(
      keysFile,
      `${takers
        .slice(1, 3)
        .map((t) => t.privateKey)
        .join('\n')}\n`,
    );
    const file = join(folder, 'keys.json');
    const run = await cli(
      'conformance',
      '--target',
      own.url,
      '--api-key',
      own.apiKey,
      '--taker-key',
      takers[0]!.privateKey,
      '--taker-keys-file',
      keysFile,
      ...rpc,
      '--only',
      'orders.lifecycle.Permit2Escrow,webhooks.timeout-30s,environment.testnet-chains',
      '--expected-skips',
      expected,
      '--report',
      `json=${file}`,
    );
    const report = JSON.parse(readFileSync(file, 'utf8')) as ConformanceReport;
    expect(report.results.map((r) => `${r.id} ${r.status}`).sort()).toEqual([
      'environment.testnet-chains PASSED',
      'orders.lifecycle.Permit2Escrow PASSED',
      'webhooks.timeout-30s SKIPPED',
    ]);
    expect(run.err).toMatch(/pre-flight: 3 taker account\(s\) funded/);
    expect(report.summary).toMatchObject({ verdict: 'PASSED', expectedSkips: 1, missing: [] });
    expect(run.code).toBe(0);
    expect(secretsIn(`${readFileSync(file, 'utf8')}${run.out}${run.err}`, knownSecrets())).toEqual([]);
  }, 120_000);
});
