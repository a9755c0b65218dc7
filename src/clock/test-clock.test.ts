import { describe, expect, it } from 'vitest';
import { TestClock } from './test-clock.js';

const T0 = Date.UTC(2030, 0, 1);

describe('TestClock', () => {
  it('stands still until advanced', async () => {
    const clock = new TestClock({ start: T0 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(clock.now()).toBe(T0);
    const result = await clock.advance(1_500);
    expect(result).toEqual({ from: T0, to: T0 + 1_500, jobsRun: 0 });
    expect(clock.date().toISOString()).toBe('2030-01-01T00:00:01.500Z');
  });

  it('runs due jobs in time order, each seeing its own due time', async () => {
    const clock = new TestClock({ start: T0 });
    const seen: Array<[string, number]> = [];
    clock.schedule(T0 + 3_000, () => void seen.push(['c', clock.now()]));
    clock.schedule(T0 + 1_000, () => void seen.push(['a', clock.now()]));
    clock.schedule(T0 + 2_000, () => void seen.push(['b', clock.now()]));
    clock.schedule(T0 + 2_000, () => void seen.push(['b2', clock.now()]));
    clock.schedule(T0 + 10_000, () => void seen.push(['late', clock.now()]));
    const result = await clock.advance(5_000);
    expect(seen).toEqual([
      ['a', T0 + 1_000],
      ['b', T0 + 2_000],
      ['b2', T0 + 2_000],
      ['c', T0 + 3_000],
    ]);
    expect(result.jobsRun).toBe(4);
    expect(clock.now()).toBe(T0 + 5_000);
    expect(clock.pendingJobs().map((job) => job.at)).toEqual([T0 + 10_000]);
  });

  it('runs a job exactly at the boundary (t) but not one a millisecond later (t+1)', async () => {
    const clock = new TestClock({ start: T0 });
    const ran: string[] = [];
    clock.schedule(T0 + 999, () => void ran.push('t-1'));
    clock.schedule(T0 + 1_000, () => void ran.push('t'));
    clock.schedule(T0 + 1_001, () => void ran.push('t+1'));
    await clock.advance(1_000);
    expect(ran).toEqual(['t-1', 't']);
    await clock.advance(1);
    expect(ran).toEqual(['t-1', 't', 't+1']);
  });

  it('runs jobs scheduled by jobs during the same advance when they fall due', async () => {
    const clock = new TestClock({ start: T0 });
    const attempts: number[] = [];
    // A retry ladder like a webhook schedule: each attempt schedules the next.
    const delays = [5_000, 30_000, 600_000, 3_600_000];
    const attempt = (n: number) => () => {
      attempts.push(clock.now() - T0);
      const delay = delays[n];
      if (delay !== undefined) clock.schedule(clock.now() + delay, attempt(n + 1));
    };
    clock.schedule(T0, attempt(0));
    await clock.advance(2 * 3_600_000);
    expect(attempts).toEqual([0, 5_000, 35_000, 635_000, 4_235_000]);
  });

  it('cancels jobs', async () => {
    const clock = new TestClock({ start: T0 });
    const ran: string[] = [];
    const keep = clock.schedule(T0 + 10, () => void ran.push('keep'), { name: 'keep' });
    const drop = clock.schedule(T0 + 5, () => void ran.push('drop'), { name: 'drop' });
    expect(clock.cancel(drop)).toBe(true);
    expect(clock.cancel(drop.id)).toBe(false);
    expect(clock.pendingJobs()).toEqual([keep]);
    await clock.advance(100);
    expect(ran).toEqual(['keep']);
    expect(clock.cancel(keep)).toBe(false);
  });

  it('reports a failing job and keeps running the others', async () => {
    const clock = new TestClock({ start: T0 });
    const errors: string[] = [];
    clock.onJobError((error, job) => errors.push(`${job.name}: ${(error as Error).message}`));
    const ran: number[] = [];
    clock.schedule(
      T0 + 1,
      () => {
        throw new Error('boom');
      },
      { name: 'bad' },
    );
    clock.schedule(T0 + 2, async () => {
      await Promise.resolve();
      ran.push(2);
    });
    const result = await clock.advance(10);
    expect(errors).toEqual(['bad: boom']);
    expect(ran).toEqual([2]);
    expect(result.jobsRun).toBe(2);
  });

  it('calls step listeners before the jobs of each step, with the step bounds', async () => {
    const clock = new TestClock({ start: T0 });
    const log: string[] = [];
    clock.onStep(async (step) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      log.push(`step ${step.from - T0}->${step.to - T0}`);
    });
    clock.schedule(T0 + 100, () => void log.push('job@100'));
    clock.schedule(T0 + 100, () => void log.push('job2@100'));
    clock.schedule(T0 + 250, () => void log.push('job@250'));
    await clock.advance(1_000);
    expect(log).toEqual(['step 0->100', 'job@100', 'job2@100', 'step 100->250', 'job@250', 'step 250->1000']);
  });

  it('serialises concurrent advances', async () => {
    const clock = new TestClock({ start: T0 });
    const seen: number[] = [];
    for (let i = 1; i <= 6; i++) clock.schedule(T0 + i * 1_000, () => void seen.push(clock.now() - T0));
    const results = await Promise.all([clock.advance(2_000), clock.advance(2_000), clock.advance(2_000)]);
    expect(results.map((r) => r.to - T0)).toEqual([2_000, 4_000, 6_000]);
    expect(seen).toEqual([1_000, 2_000, 3_000, 4_000, 5_000, 6_000]);
  });

  it('runs jobs that are already due without an advance', async () => {
    const clock = new TestClock({ start: T0 });
    const ran = new Promise<number>((resolve) => clock.schedule(T0 - 5, () => resolve(clock.now())));
    expect(await ran).toBe(T0);
    clock.stop();
  });

  it('refuses negative or non-finite advances', async () => {
    const clock = new TestClock({ start: T0 });
    await expect(clock.advance(-1)).rejects.toThrow(RangeError);
    await expect(clock.advance(Number.NaN)).rejects.toThrow(RangeError);
    expect(clock.now()).toBe(T0);
  });

  it('a ticking clock flows with wall time and fires future jobs on its own', async () => {
    const clock = new TestClock({ ticking: true });
    const start = clock.now();
    const fired = new Promise<number>((resolve) => clock.schedule(start + 30, () => resolve(clock.now())));
    expect(await fired).toBeGreaterThanOrEqual(start + 30);
    await clock.advance(3_600_000);
    expect(clock.now() - start).toBeGreaterThanOrEqual(3_600_000);
    clock.stop();
  });

  describe('long advances (cost grows with due jobs, not with simulated time)', () => {
    const DAY = 86_400_000;

    it('runs a periodic (coalesced) job once where a jump stops, and steps the chains once for a year with no due job', async () => {
      const clock = new TestClock({ start: T0 });
      const steps: Array<[number, number]> = [];
      clock.onStep((step) => void steps.push([step.from, step.to]));
      const pings: number[] = [];
      const ping = () => {
        pings.push(clock.now());
        clock.schedule(clock.now() + 30_000, ping, { name: 'ping', coalesce: true });
      };
      clock.schedule(T0 + 30_000, ping, { name: 'ping', coalesce: true });
      const result = await clock.advance(366 * DAY);
      expect(pings).toEqual([T0 + 366 * DAY]);
      expect(steps).toEqual([[T0, T0 + 366 * DAY]]);
      expect(result.jobsRun).toBe(1);
      expect(clock.pendingJobs().map((job) => job.at)).toEqual([T0 + 366 * DAY + 30_000]);
    });

    it('still stops at every fixed job, in time order, and runs coalesced jobs due before it first', async () => {
      const clock = new TestClock({ start: T0 });
      const seen: Array<[string, number]> = [];
      clock.schedule(T0 + 1_000, () => void seen.push(['sweep', clock.now()]), { coalesce: true });
      clock.schedule(T0 + 2 * DAY, () => void seen.push(['refund', clock.now()]));
      clock.schedule(T0 + DAY, () => void seen.push(['retry', clock.now()]));
      const steps: number[] = [];
      clock.onStep((step) => void steps.push(step.to));
      await clock.advance(3 * DAY);
      expect(seen).toEqual([
        ['sweep', T0 + DAY],
        ['retry', T0 + DAY],
        ['refund', T0 + 2 * DAY],
      ]);
      expect(steps).toEqual([T0 + DAY, T0 + 2 * DAY, T0 + 3 * DAY]);
    });

    it('a thousand due jobs take a thousand jumps, each job at its own time', async () => {
      const clock = new TestClock({ start: T0 });
      let steps = 0;
      clock.onStep(() => void (steps += 1));
      const late: number[] = [];
      for (let i = 1; i <= 1_000; i += 1) clock.schedule(T0 + i * 60_000, () => void (clock.now() !== T0 + i * 60_000 && late.push(i)));
      const result = await clock.advance(366 * DAY);
      expect(result.jobsRun).toBe(1_000);
      expect(late).toEqual([]);
      expect(steps).toBe(1_001);
    });

    it('an aborted advance stops between jumps, where the last jump left the clock', async () => {
      const clock = new TestClock({ start: T0 });
      const controller = new AbortController();
      const ran: number[] = [];
      clock.schedule(T0 + DAY, () => {
        ran.push(clock.now());
        controller.abort(new Error('cancelled by the caller'));
      });
      clock.schedule(T0 + 2 * DAY, () => void ran.push(clock.now()));
      await expect(clock.advance(10 * DAY, controller.signal)).rejects.toThrow('cancelled by the caller');
      expect(ran).toEqual([T0 + DAY]);
      expect(clock.now()).toBe(T0 + DAY);
      // The clock is not left locked: the next advance runs.
      await clock.advance(DAY);
      expect(ran).toEqual([T0 + DAY, T0 + 2 * DAY]);
    });
  });
});
