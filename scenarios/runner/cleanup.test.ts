import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient } from '../../src/clients/rest-client.js';
import { setFault } from '../catalogue/faults.js';
import { ScenarioRandom } from '../core/random.js';
import { defineScenario } from '../core/scenario.js';
import { check } from '../steps/index.js';
import { ScenarioSession } from './session.js';

/**
 * What a scenario sets on a shared sandbox it takes back, even when it fails: an armed switch left behind fired on
 * later scenarios' orders. And each run has participant keys of its own.
 */
let session: ScenarioSession;

beforeAll(() => {
  session = new ScenarioSession({ seed: 3 });
});

afterAll(async () => {
  await session?.close();
});

const failsWithSwitchesArmed = defineScenario({
  name: 'fails-with-switches-armed',
  title: 'sets two fault switches, then fails before anything fires them',
  tags: ['self-test'],
  actors: { takers: ['alice'] },
  steps: [
    setFault('hold the next attestation relay', { kind: 'relay.hold', relay: 'attestation', count: 1 }),
    setFault('delay the next refund relay', { kind: 'relay.delay', relay: 'refund', delay: '5m', count: 1 }),
    check('fail on purpose', () => {
      throw new Error('deliberate failure');
    }),
  ],
});

describe('scenario teardown', () => {
  it('clears the fault switches a failed scenario set, and says so in its notes', async () => {
    const result = await session.run(failsWithSwitchesArmed);
    expect(result.status).toBe('failed');
    expect(result.failure?.message).toBe('deliberate failure');
    expect(result.notes).toContain('teardown cleared 2 fault switch(es) and released 0 held relay(s)');
    const target = await session.sharedTarget();
    const admin = new RestClient({ baseUrl: target.manifest.api.url, apiKey: target.adminKey });
    const { data } = await admin.request<{ data: { id: string; active: boolean }[] }>('GET', '/api/v1/sandbox/faults');
    expect(data.filter((fault) => fault.active)).toEqual([]);
  }, 120_000);

  it('an interrupted scenario is torn down at once: the switch it set is cleared while it is still playing', async () => {
    let switchSet!: () => void;
    const set = new Promise<void>((resolve) => {
      switchSet = resolve;
    });
    let resume!: () => void;
    const held = new Promise<void>((resolve) => {
      resume = resolve;
    });
    const interrupted = defineScenario({
      name: 'interrupted-with-a-switch-armed',
      title: 'sets a fault switch, then waits until the test interrupts it',
      tags: ['self-test'],
      steps: [
        setFault('hold the next attestation relay', { kind: 'relay.hold', relay: 'attestation', count: 1 }),
        check('wait for the interrupt', async () => {
          switchSet();
          await held;
        }),
      ],
    });
    const running = session.run(interrupted);
    await set;
    const target = await session.sharedTarget();
    const admin = new RestClient({ baseUrl: target.manifest.api.url, apiKey: target.adminKey });
    const active = async () =>
      (await admin.request<{ data: { active: boolean }[] }>('GET', '/api/v1/sandbox/faults')).data.filter((f) => f.active).length;
    expect(await active()).toBe(1);
    await session.interrupt();
    expect(await active()).toBe(0);
    resume();
    expect((await running).status).toBe('passed');
  }, 120_000);

  it('draws participant keys of its own per run: same seed, same names, other addresses', () => {
    const other = new ScenarioSession({ seed: 3 });
    const scenario = failsWithSwitchesArmed;
    const mine = session.participants(scenario, new ScenarioRandom(3, scenario.name, session.runSalt)).participants.takers.alice!;
    const theirs = other.participants(scenario, new ScenarioRandom(3, scenario.name, other.runSalt)).participants.takers.alice!;
    expect(theirs.name).toBe(mine.name);
    expect(theirs.address).not.toBe(mine.address);
    expect(other.runSalt).not.toBe(session.runSalt);
  });
});
