import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../support/devnet/dist.js';

/**
 * examples/first-order.mjs as a newcomer runs it before the sandbox is right: no sandbox.json, half a sandbox.json
 * (a start that failed), a manifest without its chains' tokens, a sandbox that stopped. Each ends with one line
 * saying what to do and exit code 2, never a stack trace.
 */

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function stateDir(manifest?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-example-'));
  dirs.push(dir);
  if (manifest !== undefined) writeFileSync(join(dir, 'sandbox.json'), manifest);
  return dir;
}

function runExample(dir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'examples/first-order.mjs'), '--state-dir', dir],
      { cwd: ROOT, timeout: 30_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

const stopped = JSON.stringify({
  manifestVersion: 1,
  chains: [
    { name: 'alpha', chainId: 31337, tokens: [{ symbol: 'USDC', address: '0x0000000000000000000000000000000000000001' }] },
    { name: 'beta', chainId: 31338, tokens: [{ symbol: 'USDC', address: '0x0000000000000000000000000000000000000001' }] },
  ],
  accounts: { takers: [{ privateKey: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d' }] },
  api: { url: 'http://127.0.0.1:9', apiKeys: ['svc_test_gone'] },
});

describe('examples/first-order.mjs without a working sandbox', () => {
  it.each([
    ['no sandbox.json', undefined, /no sandbox at .*sandbox\.json: start one with `npx sandbox up --detach --state-dir /],
    ['half a sandbox.json', '{"api": {"url": "http://127.0.0.1:9"', /is not complete JSON .*run `npx sandbox up --detach/],
    [
      'chains without tokens',
      stopped.replaceAll(/"tokens":\[[^\]]*\]/g, '"tokens":[]'),
      /lists no running service, two chains and a funded taker/,
    ],
    ['a stopped sandbox', stopped, /the sandbox service at http:\/\/127\.0\.0\.1:9 does not answer: is it running\?/],
  ])('%s: one line, exit 2', async (_case, manifest, message) => {
    await ensureBuilt();
    const run = await runExample(stateDir(manifest));
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr.trim().split('\n'), run.stderr).toHaveLength(1);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
