import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../../../test/support/devnet/dist.js';
import { runCli } from '../../../test/support/devnet/processes.js';

/**
 * `sandbox demo refund|attestation|retries` against a running sandbox (`up --detach`, as a presenter runs it): each
 * demo drives a real order in the sandbox's own workspace to the ending it shows, reports the steps as they happen,
 * links the dashboard's journey of the order, and leaves no fault switch behind.
 */

interface DemoJson {
  demo: string;
  outcome: string;
  orderId: string;
  status: string;
  dashboard: string;
  steps: Array<{ step: string; detail: string; chain?: string; txHash?: string }>;
  deliveries?: Array<{ attempt: number; succeeded: boolean; statusCode: number | null }>;
}

let stateDir: string;
let apiUrl: string;

beforeAll(async () => {
  await ensureBuilt();
  stateDir = mkdtempSync(join(tmpdir(), 'sandbox-demo-'));
  const up = await runCli(['up', '--detach', '--json', '--state-dir', stateDir, '--chain-ports', 'any'], { timeoutMs: 120_000 });
  expect(up.code, up.stderr).toBe(0);
  apiUrl = (JSON.parse(up.stdout) as { api: { url: string } }).api.url;
}, 180_000);

afterAll(async () => {
  await runCli(['down', '--state-dir', stateDir]);
  rmSync(stateDir, { recursive: true, force: true });
});

async function demo(...args: string[]): Promise<DemoJson> {
  const run = await runCli(['demo', ...args, '--json', '--state-dir', stateDir], { timeoutMs: 90_000 });
  expect(run.code, run.stderr + run.stdout).toBe(0);
  const result = JSON.parse(run.stdout) as DemoJson;
  // Under --json every step is also a progress line on stderr, as it happens.
  const progress = run.stderr
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { progress: { step: string } });
  expect(progress.map((line) => line.progress.step)).toEqual(result.steps.map((step) => step.step));
  expect(result.dashboard).toBe(`${apiUrl}/#order=${result.orderId}`);
  return result;
}

const stages = (result: DemoJson) => result.steps.map((step) => step.step);

async function faultSwitchesLeft(): Promise<unknown[]> {
  const list = await runCli(['fault', 'list', '--json', '--state-dir', stateDir]);
  return (JSON.parse(list.stdout) as { data: Array<{ active: boolean }> }).data.filter((fault) => fault.active);
}

describe('sandbox demo', () => {
  it('refund: nobody fills, the clock passes the expiry, the escrow refunds on the origin chain', async () => {
    const result = await demo('refund');
    expect(result.status).toBe('Refunded');
    expect(stages(result)).toEqual(expect.arrayContaining(['fault', 'order', 'journey', 'deposited', 'no fill', 'clock', 'refunded']));
    expect(stages(result)).not.toContain('filled');
    const refund = result.steps.find((step) => step.step === 'refunded');
    expect(refund?.chain).toBe('alpha');
    expect(refund?.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await faultSwitchesLeft()).toEqual([]);
  }, 120_000);

  it('attestation: fill, attestation and claim, in that order, each with its chain and transaction', async () => {
    const result = await demo('attestation');
    expect(result.status).toBe('Claimed');
    const chainSteps = result.steps.filter((step) => ['deposited', 'filled', 'attested', 'claimed'].includes(step.step));
    expect(chainSteps.map((step) => [step.step, step.chain])).toEqual([
      ['deposited', 'alpha'],
      ['filled', 'beta'],
      ['attested', 'alpha'],
      ['claimed', 'alpha'],
    ]);
  }, 120_000);

  it('attestation --lying-oracle: the escrow refuses the claim against the wrong record and the taker is refunded', async () => {
    const result = await demo('attestation', '--lying-oracle');
    expect(result.status).toBe('Refunded');
    expect(stages(result)).toEqual(expect.arrayContaining(['filled', 'fault.oracle', 'claim refused', 'refunded']));
    expect(stages(result)).not.toContain('claimed');
    expect(await faultSwitchesLeft()).toEqual([]);
  }, 120_000);

  it('retries: the endpoint fails twice, the service retries on its schedule, the third attempt is delivered', async () => {
    const result = await demo('retries');
    expect(result.deliveries?.map((d) => [d.attempt, d.succeeded, d.statusCode])).toEqual([
      [1, false, 500],
      [2, false, 500],
      [3, true, 200],
    ]);
    // The demo's endpoint is removed afterwards.
    const list = await runCli(['webhooks', 'list', '--json', '--state-dir', stateDir]);
    expect(JSON.parse(list.stdout)).toEqual([]);
  }, 120_000);

  it('tells the story on stdout for people, with the journey link', async () => {
    const run = await runCli(['demo', 'attestation', '--state-dir', stateDir], { timeoutMs: 90_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/ 1\. quote/);
    expect(run.stdout).toMatch(/claimed +the solver claimed the input/);
    expect(run.stdout).toContain(`${apiUrl}/#order=ord_`);
  }, 120_000);
});
