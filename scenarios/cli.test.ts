import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { register } from '../src/cli/commands/scenario.js';
import { startInProcessTarget } from './deployment/in-process.js';
import type { ScenarioTarget } from './deployment/target.js';

/** `sandbox scenario …` in-process: exit codes, output, reports; commander's own usage exits are caught. */
class Exit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

let folder: string;

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'scenario-cli-'));
});

afterAll(() => rmSync(folder, { recursive: true, force: true }));

afterEach(() => {
  process.exitCode = undefined;
  vi.restoreAllMocks();
});

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const program = new Command('sandbox').option('--json').option('--state-dir <path>');
  register(program);
  const capture = (append: (chunk: string) => void) =>
    ((chunk: string, ...rest: unknown[]) => {
      append(chunk);
      const done = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
      done?.();
      return true;
    }) as never;
  vi.spyOn(process.stdout, 'write').mockImplementation(capture((chunk) => (out += chunk)));
  vi.spyOn(process.stderr, 'write').mockImplementation(capture((chunk) => (err += chunk)));
  vi.spyOn(process, 'exit').mockImplementation(((code: number) => {
    throw new Exit(code);
  }) as never);
  process.exitCode = undefined;
  let code: number;
  try {
    await program.parseAsync(['node', 'sandbox', ...args]);
    code = Number(process.exitCode ?? 0);
  } catch (error) {
    if (!(error instanceof Exit)) throw error;
    code = error.code;
  } finally {
    vi.restoreAllMocks();
  }
  process.exitCode = undefined;
  return { code, out, err };
}

describe('sandbox scenario: usage', () => {
  it('exits 2 on an unknown scenario, a bad seed, a bad report spec, an unknown option or an unreadable target', async () => {
    const unknown = await cli('scenario', 'run', 'no-such-scenario');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/no scenario matches "no-such-scenario"\. Scenarios: success-permit2-direct/);
    expect((await cli('scenario', 'run', '--seed', 'x')).code).toBe(2);
    expect((await cli('scenario', 'run', '--report', 'html=r.html')).code).toBe(2);
    expect((await cli('scenario', 'run', '--timeout', '-5')).code).toBe(2);
    expect((await cli('scenario', 'run', '--no-such-flag')).code).toBe(2);
    expect((await cli('scenario', 'run', '--workspace', 'sandbox')).code).toBe(2);
    const target = await cli('--json', 'scenario', 'run', '--target', join(folder, 'missing.json'));
    expect(target.code).toBe(2);
    expect(JSON.parse(target.out)).toMatchObject({ error: { code: 'target_unusable' } });
  });

  it('lists every scenario with its tags, and the invariants', async () => {
    const listed = await cli('scenario', 'list', '--json');
    expect(listed.code).toBe(0);
    const body = JSON.parse(listed.out) as { scenarios: { name: string; tags: string[] }[]; invariants: Record<string, string> };
    expect(body.scenarios.map((s) => s.name)).toContain('webhook-exhaustion-pause-enable');
    expect(body.scenarios.length).toBeGreaterThanOrEqual(20);
    expect(Object.keys(body.invariants)).toEqual([
      'escrow-accounting',
      'single-fill',
      'one-terminal-event',
      'ledger-verifies',
      'webhook-signatures',
      'paid-for-fill',
    ]);
    const human = await cli('scenario', 'list');
    expect(human.out).toMatch(/service-crash-restart\s+restart,clock/);
  });
});

describe('sandbox scenario run against a running sandbox (--target)', () => {
  let target: ScenarioTarget;
  let manifestPath: string;

  beforeAll(async () => {
    target = await startInProcessTarget({ seed: 3 });
    manifestPath = join(folder, 'sandbox.json');
    writeFileSync(manifestPath, JSON.stringify(target.manifest, null, 2));
  }, 60_000);

  afterAll(async () => {
    await target?.stop();
  });

  it('runs every scenario there: solvers scripted through fault switches, other settings on a sandbox of its own; writes reports', async () => {
    const junit = join(folder, 'out', 'scenarios.xml');
    const json = join(folder, 'out', 'scenarios.json');
    const run = await cli(
      'scenario',
      'run',
      'success-permit2-direct',
      'late-fill-loses-to-refund',
      'production-sanctioned-taker',
      '--target',
      manifestPath,
      '--seed',
      '5',
      '--report',
      `junit=${junit},json=${json}`,
    );
    expect(run.code, run.err).toBe(0);
    expect(run.err).toMatch(/\[1\/3\] success-permit2-direct/);
    expect(run.err).toMatch(/✓ expect order o/);
    expect(run.out).toMatch(/success-permit2-direct\s+passed\s+4\/4/);
    expect(run.out).toMatch(/3 scenarios: 3 passed, 0 failed, 0 skipped/);
    const report = JSON.parse(readFileSync(json, 'utf8')) as {
      seed: number;
      scenarios: { name: string; status: string; target: string; reason?: string; participants: Record<string, string> }[];
    };
    expect(report.seed).toBe(5);
    expect(report.scenarios.map((s) => [s.name, s.status])).toEqual([
      ['success-permit2-direct', 'passed'],
      ['late-fill-loses-to-refund', 'passed'],
      ['production-sanctioned-taker', 'passed'],
    ]);
    // The production scenario says where it ran: not on the sandbox it was pointed at.
    expect(report.scenarios[2]!.target).toMatch(/in-process production .* of its own, not the target/);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(/<testsuites name="settlement scenarios" tests="3" failures="0" errors="0" skipped="0"/);
    // Every switch the late-fill scenario set to script the solvers is cleared again.
    const faults = await fetch(`${target.manifest.api.url}/api/v1/sandbox/faults`, {
      headers: { authorization: `Bearer ${target.adminKey}` },
    });
    expect(((await faults.json()) as { data: unknown[] }).data).toEqual([]);

    // The same seed draws the same participant names, but every run has keys (addresses) of its own: what an earlier
    // run left on a long-lived sandbox never shows in a later run's balances.
    const again = await cli('--json', 'scenario', 'run', 'success-permit2-direct', '--target', manifestPath, '--seed', '5');
    expect(again.code, `${again.err}\n${again.out}`).toBe(0);
    const second = JSON.parse(again.out) as typeof report;
    const split = (participants: Record<string, string>) =>
      Object.values(participants).map((p) => ({ name: p.replace(/ 0x[0-9a-fA-F]{40}$/, ''), address: p.match(/0x[0-9a-fA-F]{40}$/)?.[0] }));
    const [first, next] = [split(report.scenarios[0]!.participants), split(second.scenarios[0]!.participants)];
    expect(next.map((p) => p.name)).toEqual(first.map((p) => p.name));
    expect(next.map((p) => p.address)).not.toEqual(first.map((p) => p.address));
  }, 120_000);

  it('--workspace sandbox plays in the sandbox’s own workspace: its orders are the ones sandbox.json’s key lists', async () => {
    const run = await cli('--json', 'scenario', 'run', 'success-permit2-direct', '--target', manifestPath, '--workspace', 'sandbox');
    expect(run.code, `${run.err}\n${run.out}`).toBe(0);
    const report = JSON.parse(run.out) as { scenarios: { orders: Record<string, { orderId: string }> }[] };
    const orderId = report.scenarios[0]!.orders.o!.orderId;
    const answer = await fetch(`${target.manifest.api.url}/api/v1/orders/${orderId}`, {
      headers: { authorization: `Bearer ${target.manifest.api.apiKeys[0]}` },
    });
    expect(answer.status).toBe(200);
  }, 60_000);

  it('exits 1 when scenarios fail: a target whose service does not answer fails them at setup', async () => {
    const dead = join(folder, 'dead.json');
    writeFileSync(
      dead,
      JSON.stringify({
        ...target.manifest,
        api: { ...target.manifest.api, url: 'http://127.0.0.1:9', wsUrl: 'ws://127.0.0.1:9/api/v1/ws' },
      }),
    );
    const run = await cli('--json', 'scenario', 'run', 'success-permit2-direct', '--target', dead);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.out) as { summary: { failed: number }; scenarios: { failure?: { step: string; message: string } }[] };
    expect(report.summary.failed).toBe(1);
    expect(report.scenarios[0]!.failure).toMatchObject({ step: 'setup', message: expect.stringMatching(/does not answer/) });
  }, 60_000);

  it('names a refusal that differs from the expected one', async () => {
    const { ScenarioSession } = await import('./runner/session.js');
    const { defineScenario } = await import('./core/scenario.js');
    const { quote } = await import('./steps/index.js');
    const session = new ScenarioSession({ target: manifestPath });
    const result = await session.run(
      defineScenario({
        name: 'refused-quote',
        title: 'a quote below the corridor minimum is refused',
        tags: ['self-test'],
        actors: { takers: ['alice'] },
        steps: [quote('q', { taker: 'alice', amount: 5n, expectError: { status: 400, code: 'parameter_invalid' } })],
      }),
    );
    await session.close();
    expect(result.status).toBe('failed');
    expect(result.failure?.message).toBe(
      'quote q refusal: expected {"status":400,"code":"parameter_invalid"}, got {"status":422,"code":"amount_too_small"}',
    );
  }, 60_000);
});
