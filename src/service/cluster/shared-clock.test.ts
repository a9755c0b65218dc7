import { afterEach, describe, expect, it } from 'vitest';
import { type ChainTime, TestClock } from '../../clock/index.js';
import { type SharedDatabase, sharedDatabase } from '../../../test/support/service/instances.js';
import { startTestService, TEST_EPOCH, type TestService } from '../../../test/support/service/service.js';

/**
 * One test clock across two service instances on one Postgres store, driven over HTTP: an advance taken by either
 * instance is walked by the singleton holder (its jobs run once, the chains move once), every instance shows the new
 * time when the request answers, a later instance joins at the shared time, and the time survives the holder.
 */
const HOUR = 3_600_000;
let db: SharedDatabase | undefined;
const running: TestService[] = [];

afterEach(async () => {
  for (const service of running.splice(0).reverse()) await service.stop().catch(() => undefined);
  await db?.release();
  db = undefined;
});

/** Chains that only count the seconds they were moved. */
function countingChains(): ChainTime & { moved: number } {
  const chains = {
    moved: 0,
    advance: async (seconds: number) => {
      chains.moved += seconds;
    },
  };
  return chains;
}

async function instance(options: { clock?: TestClock; chainTime?: ChainTime; clockAdvanceAnswerMs?: number } = {}): Promise<TestService> {
  db ??= await sharedDatabase();
  const service = await startTestService({
    databaseUrl: db.url,
    databaseSchema: db.schema,
    leasePollMs: 100,
    clock: options.clock ?? new TestClock({ start: TEST_EPOCH }),
    ...(options.chainTime === undefined ? {} : { chainTime: options.chainTime }),
    ...(options.clockAdvanceAnswerMs === undefined ? {} : { clockAdvanceAnswerMs: options.clockAdvanceAnswerMs }),
  });
  running.push(service);
  return service;
}

async function clockOf(t: TestService): Promise<{ nowMs: number; ticking: boolean }> {
  const response = await fetch(`${t.url}/api/v1/sandbox/clock`);
  expect(response.status).toBe(200);
  return (await response.json()) as { nowMs: number; ticking: boolean };
}

async function advance(t: TestService, duration: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${t.url}/api/v1/sandbox/clock/advance`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${t.apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ duration }),
  });
  return { status: response.status, body: await response.json() };
}

async function until(probe: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const start = Date.now();
  while (!probe()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('one clock across instances', () => {
  it('an advance taken by the other instance is walked by the holder: its job fires once, the chains move once, both show the time', async () => {
    const chainsOfA = countingChains();
    const chainsOfB = countingChains();
    const a = await instance({ chainTime: chainsOfA });
    const b = await instance({ chainTime: chainsOfB });
    expect([a.service.instance.singleton, b.service.instance.singleton]).toEqual([true, false]);
    const fired: number[] = [];
    a.clock.schedule(TEST_EPOCH + HOUR / 2, () => void fired.push(a.clock.now()), { name: 'test.holder-job' });

    const moved = await advance(b, '1h');
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ nowMs: TEST_EPOCH + HOUR, advancedMs: HOUR });
    // The holder's job and its hourly sweep ran in the holder's walk, and the answer counts them.
    expect(moved.body.jobsRun).toBeGreaterThanOrEqual(2);
    expect(fired).toEqual([TEST_EPOCH + HOUR / 2]);
    expect((await clockOf(a)).nowMs).toBe(TEST_EPOCH + HOUR);
    expect((await clockOf(b)).nowMs).toBe(TEST_EPOCH + HOUR);
    expect([chainsOfA.moved, chainsOfB.moved]).toEqual([3_600, 0]);

    // An advance on the holder: the other instance shows it by the time the request answers.
    expect((await advance(a, '2h')).status).toBe(200);
    expect((await clockOf(b)).nowMs).toBe(TEST_EPOCH + 3 * HOUR);
    expect(fired).toHaveLength(1);
    expect([chainsOfA.moved, chainsOfB.moved]).toEqual([3 * 3_600, 0]);
  });

  it('the other instance still runs its own jobs on its copy as it follows', async () => {
    const a = await instance();
    const b = await instance();
    const fired: number[] = [];
    b.clock.schedule(TEST_EPOCH + 10 * 60_000, () => void fired.push(b.clock.now()), { name: 'test.request-job' });
    expect((await advance(a, '1h')).status).toBe(200);
    expect(fired).toEqual([TEST_EPOCH + 10 * 60_000]);
  });

  it('ticking clocks read the same now within a few ms, however far apart they started', async () => {
    const a = await instance({ clock: new TestClock({ ticking: true, start: Date.now() + 5 * 24 * HOUR }) });
    const b = await instance({ clock: new TestClock({ ticking: true }) });
    expect(Math.abs(a.clock.now() - b.clock.now())).toBeLessThan(50);
    expect((await advance(b, '31h')).status).toBe(200);
    expect(Math.abs(a.clock.now() - b.clock.now())).toBeLessThan(50);
    expect((await clockOf(b)).ticking).toBe(true);
    expect(b.clock.now() - Date.now()).toBeGreaterThan(5 * 24 * HOUR + 31 * HOUR - 1_000);
  });

  it('an instance started later joins at the current time', async () => {
    const a = await instance();
    await instance();
    expect((await advance(a, '3h')).status).toBe(200);
    const late = await instance();
    expect(late.clock.now()).toBe(TEST_EPOCH + 3 * HOUR);
    expect((await clockOf(late)).nowMs).toBe(TEST_EPOCH + 3 * HOUR);
  });

  it('when the holder stops the other keeps the time, takes the singleton work over and walks the next advance', async () => {
    const chainsOfB = countingChains();
    const a = await instance();
    const b = await instance({ chainTime: chainsOfB });
    expect((await advance(b, '5h')).status).toBe(200);
    expect(chainsOfB.moved).toBe(0);
    await a.stop();
    running.splice(running.indexOf(a), 1);
    expect((await clockOf(b)).nowMs).toBe(TEST_EPOCH + 5 * HOUR);
    await until(() => b.service.instance.singleton, 'the take-over');
    const fired: number[] = [];
    b.clock.schedule(TEST_EPOCH + 6 * HOUR, () => void fired.push(b.clock.now()), { name: 'test.holder-job' });
    const moved = await advance(b, '2h');
    expect(moved.status).toBe(200);
    expect(moved.body.nowMs).toBe(TEST_EPOCH + 7 * HOUR);
    expect(fired).toEqual([TEST_EPOCH + 6 * HOUR]);
    expect(chainsOfB.moved).toBe(2 * 3_600);
    // A restarted instance joins there too.
    const again = await instance();
    expect((await clockOf(again)).nowMs).toBe(TEST_EPOCH + 7 * HOUR);
  });

  it('a long advance taken by the other instance answers 202 there, reports progress and can be cancelled there', async () => {
    const slowChains: ChainTime = { advance: () => new Promise((resolve) => setTimeout(resolve, 40)) };
    const a = await instance({ chainTime: slowChains });
    const b = await instance({ clockAdvanceAnswerMs: 200 });
    for (let i = 1; i <= 500; i += 1) a.clock.schedule(TEST_EPOCH + i * 60_000, () => undefined, { name: 'test.due' });
    const started = await advance(b, '1d');
    expect(started.status).toBe(202);
    const location = `${b.url}/api/v1/sandbox/clock/advances/${started.body.id}`;
    const auth = { Authorization: `Bearer ${b.apiKey}` };
    // B follows the holder's walk step by step.
    await until(() => b.clock.now() > TEST_EPOCH + 10 * 60_000, 'the walk to show on B');
    const progress = (await (await fetch(location, { headers: auth })).json()) as { status: string; now: string };
    expect(progress.status).toBe('running');
    const cancelled = await fetch(location, { method: 'DELETE', headers: auth });
    expect(cancelled.status).toBe(200);
    expect(((await cancelled.json()) as { status: string }).status).toBe('cancelled');
    expect(a.clock.now()).toBeLessThan(TEST_EPOCH + 24 * HOUR);
    expect(b.clock.now()).toBe(a.clock.now());
  });
});
