import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SandboxManifest } from '../../contracts/deployment.js';
import { startTestService, type TestService } from '../../../test/support/service/service.js';
import { addGlobalOptions } from '../output.js';
import { register as registerClock } from './clock.js';
import { register as registerKeys } from './keys.js';

let t: TestService;
let stateDir: string;

function manifest(): SandboxManifest {
  return JSON.parse(readFileSync(join(stateDir, 'sandbox.json'), 'utf8')) as SandboxManifest;
}

/** Runs `sandbox <args>` through commander as the CLI would, capturing what it prints. */
async function sandbox(...args: string[]): Promise<{ out: string; err: string; exitCode: number }> {
  const program = addGlobalOptions(new Command('sandbox').exitOverride());
  registerKeys(program);
  registerClock(program);
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => out.push(String(chunk)) > 0);
  const error = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => err.push(String(chunk)) > 0);
  const previous = process.exitCode;
  process.exitCode = undefined;
  try {
    await program.parseAsync(['node', 'sandbox', ...args, '--state-dir', stateDir]);
    return { out: out.join('').trimEnd(), err: err.join(''), exitCode: Number(process.exitCode ?? 0) };
  } finally {
    process.exitCode = previous;
    log.mockRestore();
    error.mockRestore();
  }
}

beforeAll(async () => {
  t = await startTestService();
  stateDir = mkdtempSync(join(tmpdir(), 'sandbox-cli-'));
  const initial: SandboxManifest = {
    environment: 'sandbox',
    manifestVersion: 1,
    stateDir,
    chains: [],
    accounts: { deployer: [], serviceRelayer: [], oracleRelayer: [], solvers: [], takers: [] },
    api: { url: t.url, wsUrl: t.service.wsUrl, workspaceId: t.workspaceId, apiKeys: [t.apiKey] },
    startedAt: new Date().toISOString(),
  };
  writeFileSync(join(stateDir, 'sandbox.json'), JSON.stringify(initial));
});
afterAll(async () => {
  await t.stop();
  rmSync(stateDir, { recursive: true, force: true });
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe('sandbox keys', () => {
  it('create adds a working key to sandbox.json', async () => {
    const result = await sandbox('keys', 'create', '--json');
    expect(result.exitCode).toBe(0);
    const created = JSON.parse(result.out);
    expect(created.key).toMatch(/^svc_test_/);
    expect(manifest().api!.apiKeys).toEqual([t.apiKey, created.key]);
    expect((await t.request('GET', '/api/v1/sandbox/keys', { key: created.key })).status).toBe(200);
  });

  it('rotate puts the successor first; the old key expires 24 h later by the sandbox clock', async () => {
    const human = await sandbox('keys', 'rotate');
    expect(human.exitCode).toBe(0);
    expect(human.out).toMatch(/New API key svc_test_/);
    expect(human.out).toMatch(/works until 2030-01-02T00:00:00.000Z/);
    const keys = manifest().api!.apiKeys;
    expect(keys[1]).toBe(t.apiKey);

    const advanced = await sandbox('clock', 'advance', '24h', '--json');
    expect(advanced.exitCode).toBe(0);
    expect(JSON.parse(advanced.out)).toMatchObject({ advancedMs: 86_400_000, now: '2030-01-02T00:00:00.000Z' });
    expect((await t.request('GET', '/api/v1/sandbox/keys')).status).toBe(401);

    // The CLI carries on with the successor.
    const listed = await sandbox('keys', 'list');
    expect(listed.exitCode).toBe(0);
    expect(listed.out).toMatch(/expired/);
  });

  it('clock show prints the time; a bad duration fails before calling the service', async () => {
    const shown = await sandbox('clock', 'show');
    expect(shown.out).toMatch(/^Sandbox time 2030-01-02T00:00:00.000Z \(test clock, frozen\)/);
    const bad = await sandbox('clock', 'advance', 'soon');
    expect(bad.exitCode).toBe(2); // a usage error (README: exit codes)
    expect(bad.err).toMatch(/invalid duration "soon"/);
  });

  it('without a sandbox.json it says how to start one', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'sandbox-none-'));
    try {
      const program = addGlobalOptions(new Command('sandbox').exitOverride());
      registerKeys(program);
      const err: string[] = [];
      vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => err.push(String(chunk)) > 0);
      await program.parseAsync(['node', 'sandbox', 'keys', 'create', '--state-dir', empty]);
      expect(err.join()).toMatch(/sandbox up/);
      expect(process.exitCode).toBe(2); // no sandbox to talk to (README: exit codes)
    } finally {
      process.exitCode = undefined;
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
