import { describe, expect, it } from 'vitest';
import { RealClock } from './real-clock.js';

describe('RealClock', () => {
  it('follows the wall clock', () => {
    const clock = new RealClock();
    const before = Date.now();
    const now = clock.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now - before).toBeLessThan(1_000);
  });

  it('fires jobs at their time, in order, and not cancelled ones', async () => {
    const clock = new RealClock();
    const start = clock.now();
    const order: string[] = [];
    clock.schedule(start + 40, () => void order.push('second'));
    const dropped = clock.schedule(start + 30, () => void order.push('dropped'));
    clock.schedule(start + 20, () => void order.push('first'));
    clock.cancel(dropped);
    const done = new Promise<number>((resolve) => clock.schedule(start + 60, () => resolve(clock.now())));
    expect(await done).toBeGreaterThanOrEqual(start + 60);
    expect(order).toEqual(['first', 'second']);
    clock.stop();
  });
});
