import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServedManifest } from './deployment/target.js';
import type { RunReport } from './runner/result.js';
import { ensureBuiltWith } from '../test/support/devnet/dist.js';
import { runCli } from '../test/support/devnet/processes.js';

/**
 * The whole catalogue against one detached sandbox, as a user runs it: `sandbox up --detach`, then
 * `sandbox scenario run --target <state>` from the built CLI. Every scenario runs (the reference solvers are
 * scripted through the sandbox's solver fault switches, not by the runner reaching into them), none is skipped, and
 * the sandbox is left without fault switches or held relays. One sandbox, one pass: it is the
 * expensive test of the suite (about two minutes on two cores).
 */

let stateDir: string | undefined;

/**
 * What the sandbox said while the scenarios ran, for a failed run: the reference solvers' lines of `sandbox.log`
 * (what they could not do, inventory they moved, errors) and the service's warnings and errors (`service.log`).
 * The runner's own output names only the step that waited in vain.
 */
function sandboxLogTail(state: string): string {
  const lines = (path: string, keep: (line: string) => boolean) =>
    existsSync(path)
      ? readFileSync(path, 'utf8')
          .split('\n')
          .filter(keep)
          .slice(-40)
          .map((line) => line.slice(0, 400))
      : [`(no ${path})`];
  return [
    '--- reference solvers (sandbox.log):',
    ...lines(join(state, 'sandbox.log'), (line) => line.includes(' solver ')),
    '--- service warnings and errors (service/service.log):',
    ...lines(join(state, 'service', 'service.log'), (line) => /"level":(40|50|60)\b/.test(line)),
  ].join('\n');
}

beforeAll(async () => {
  await ensureBuiltWith(['scenarios', 'src/service', 'src/solvers', 'src/sandbox', 'src/clients']);
  stateDir = mkdtempSync(join(tmpdir(), 'sandbox-catalogue-'));
  const up = await runCli(['up', '--detach', '--json', '--state-dir', stateDir, '--chain-ports', 'any'], { timeoutMs: 120_000 });
  expect(up.code, up.stderr).toBe(0);
}, 180_000);

afterAll(async () => {
  // Nothing to stop when the build before it failed.
  if (stateDir === undefined) return;
  await runCli(['down', '--state-dir', stateDir]);
  rmSync(stateDir, { recursive: true, force: true });
});

describe('the scenario catalogue against a detached sandbox', () => {
  it('runs every scenario: none skipped, none failed, and leaves no fault switch armed', async () => {
    const state = stateDir!;
    const run = await runCli(['scenario', 'run', '--target', state, '--json'], { timeoutMs: 900_000 });
    const report = JSON.parse(run.stdout) as RunReport;
    const trouble = report.scenarios
      .filter((s) => s.status !== 'passed')
      .map((s) => `${s.name} ${s.status}: ${s.reason ?? `${s.failure?.step}: ${s.failure?.message}`}`);
    expect(trouble, trouble.length === 0 ? '' : `${sandboxLogTail(state)}\n${run.stderr.slice(-2_000)}`).toEqual([]);
    expect(report.summary).toMatchObject({ failed: 0, skipped: 0 });
    expect(report.summary.passed).toBe(report.summary.total);
    expect(run.code).toBe(0);

    // What the run set on the sandbox it took back: no switch listed, no relay held, no solver paused.
    const manifest = JSON.parse(readFileSync(join(state, 'sandbox.json'), 'utf8')) as ServedManifest;
    const get = async (path: string) =>
      (await fetch(`${manifest.api.url}/api/v1${path}`, { headers: { authorization: `Bearer ${manifest.api.apiKeys[0]}` } })).json();
    expect(((await get('/sandbox/faults')) as { data: unknown[] }).data).toEqual([]);
    const released = await fetch(`${manifest.api.url}/api/v1/sandbox/relays/release`, {
      method: 'POST',
      headers: { authorization: `Bearer ${manifest.api.apiKeys[0]}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(((await released.json()) as { released: unknown[] }).released).toEqual([]);
    const solvers = (await get('/solvers')) as { data: { name: string; connected: boolean }[] };
    expect(solvers.data.filter((s) => s.name.startsWith('reference-') && s.connected)).toHaveLength(3);
  }, 960_000);
});
