import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateSigningKey, signDocument } from './core/signing.js';
import { program } from '../test/support/conformance/cli-entry.js';

const exec = promisify(execFile);
let folder: string;
let quiet: { out: typeof process.stdout.write; err: typeof process.stderr.write };

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'conformance-cli-'));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Runs one command in-process and returns its exit code and output. */
async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  quiet = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };
  process.stdout.write = ((chunk: string) => ((out += chunk), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string) => ((err += chunk), true)) as typeof process.stderr.write;
  process.exitCode = undefined;
  try {
    await program().parseAsync(['node', 'sandbox', '--state-dir', folder, ...args]);
  } finally {
    process.stdout.write = quiet.out;
    process.stderr.write = quiet.err;
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = undefined;
  return { code, out, err };
}

afterEach(() => {
  process.exitCode = undefined;
});

describe('sandbox conformance verify', () => {
  it('exits 0 for a valid signed report and 1 for a tampered or unsigned one', async () => {
    const report = signDocument(
      { format: 'settlement-conformance-report/1', summary: { verdict: 'PASSED' }, target: { url: 'http://x', profile: 'A' }, results: [] },
      generateSigningKey(),
    );
    const good = join(folder, 'good.json');
    writeFileSync(good, JSON.stringify(report, null, 2));
    expect(await cli('conformance', 'verify', good)).toMatchObject({ code: 0 });
    const tampered = join(folder, 'tampered.json');
    writeFileSync(tampered, JSON.stringify({ ...report, summary: { verdict: 'FAILED' } }));
    const bad = await cli('conformance', 'verify', tampered);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/invalid: .*changed after signing/);
    const { signature: _s, ...unsigned } = report;
    writeFileSync(join(folder, 'unsigned.json'), JSON.stringify(unsigned));
    expect((await cli('conformance', 'verify', join(folder, 'unsigned.json'))).code).toBe(1);
    expect((await cli('--json', 'conformance', 'verify', join(folder, 'missing.json'))).code).toBe(1);
  });
});

describe('sandbox conformance usage and reachability', () => {
  let closed: Server;
  let deadUrl: string;
  beforeAll(async () => {
    closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((r) => closed.close(r));
  });

  it('exits 2 when the target does not answer', async () => {
    const run = await cli('conformance', '--target', deadUrl, '--no-sign');
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/does not answer/);
  });

  it('exits 2 on a malformed --report, --seed or missing target', async () => {
    expect((await cli('conformance', '--target', deadUrl, '--report', 'xml=out.xml')).code).toBe(2);
    expect((await cli('conformance', '--target', deadUrl, '--seed', 'abc')).code).toBe(2);
    expect((await cli('conformance', '--no-sign')).code).toBe(2);
  });

  it('exits 2 with a clear message for --image when no Docker engine answers', async () => {
    // An engine may run on this machine (CI starts one): point the client at a socket nobody serves.
    const saved = process.env.DOCKER_HOST;
    process.env.DOCKER_HOST = `unix://${join(folder, 'no-engine.sock')}`;
    try {
      const run = await cli('conformance', '--image', 'example/settlement:latest', '--no-sign');
      expect(run.code).toBe(2);
      expect(run.err).toMatch(/--image needs a Docker engine and none answers/);
    } finally {
      if (saved === undefined) delete process.env.DOCKER_HOST;
      else process.env.DOCKER_HOST = saved;
    }
  });

  it('lists the selected checks with --list and prints the coverage (exit 0: every MUST covered)', async () => {
    const list = await cli('conformance', '--list', '--only', 'quotes.*');
    expect(list.code).toBe(0);
    expect(list.out).toMatch(/quotes\.ranked-best-first/);
    expect(list.out).not.toMatch(/orders\./);
    const coverage = await cli('conformance', 'coverage');
    expect(coverage.code).toBe(0);
    expect(coverage.out).toMatch(/MUST without a check: none/);
  });

  it('exits 2 on an option commander rejects (separate process: commander exits)', async () => {
    const entry = join(import.meta.dirname, '../test/support/conformance/cli-main.ts');
    const failed = await exec(join(import.meta.dirname, '../node_modules/.bin/vite-node'), [entry, 'conformance', '--profile', 'C']).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect((failed as { code: number }).code).toBe(2);
    expect((failed as { stderr: string }).stderr).toMatch(/profile/);
  }, 30_000);
});

describe('sandbox conformance keygen', () => {
  it('writes a key that signs (mode 0600) and refuses to overwrite it', async () => {
    const out = join(folder, 'keys', 'signer.pem');
    const made = await cli('--json', 'conformance', 'keygen', '--out', out);
    expect(made.code).toBe(0);
    expect(JSON.parse(made.out).keyId).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(readFileSync(out, 'utf8')).toMatch(/BEGIN PRIVATE KEY/);
    expect((await cli('conformance', 'keygen', '--out', out)).code).toBe(2);
  });
});
