import { describe, expect, it } from 'vitest';
import { ChainTimeSync, type ChainTime } from './chain-time.js';
import { TestClock } from './test-clock.js';

/** Records what the chains were asked to do; the real anvil path is covered in service/http/chains.test.ts. */
function recordingChains(): ChainTime & { moves: number[]; total(): number } {
  const moves: number[] = [];
  return { moves, total: () => moves.reduce((a, b) => a + b, 0), advance: async (seconds) => void moves.push(seconds) };
}

describe('ChainTimeSync', () => {
  it('moves the chains by whole seconds, carrying the remainder, never ahead of the clock', async () => {
    const clock = new TestClock({ start: 0 });
    const chains = recordingChains();
    const sync = new ChainTimeSync(clock, chains);
    await clock.advance(400);
    expect(chains.moves).toEqual([]);
    await clock.advance(700);
    expect(chains.moves).toEqual([1]);
    await clock.advance(31 * 3_600_000);
    expect(chains.total()).toBe(Math.floor((1_100 + 31 * 3_600_000) / 1_000));
    expect(sync.movedSeconds).toBe(chains.total());
  });

  it('moves the chains to each job time before the job runs', async () => {
    const clock = new TestClock({ start: 0 });
    const chains = recordingChains();
    new ChainTimeSync(clock, chains);
    const seenAtJobs: number[] = [];
    clock.schedule(5_000, () => void seenAtJobs.push(chains.total()));
    clock.schedule(35_000, () => void seenAtJobs.push(chains.total()));
    await clock.advance(60_000);
    expect(seenAtJobs).toEqual([5, 35]);
    expect(chains.moves).toEqual([5, 30, 25]);
  });

  it('stops following once detached, and a failing chain fails the advance', async () => {
    const clock = new TestClock({ start: 0 });
    const chains = recordingChains();
    const sync = new ChainTimeSync(clock, chains);
    sync.detach();
    await clock.advance(10_000);
    expect(chains.moves).toEqual([]);
    let down = true;
    new ChainTimeSync(clock, { advance: async (s) => (down ? Promise.reject(new Error('chain down')) : chains.advance(s)) });
    await expect(clock.advance(2_000)).rejects.toThrow('chain down');
    // A failed advance does not wedge the clock: the next one runs.
    down = false;
    await clock.advance(3_000);
    expect(chains.moves).toEqual([3]);
  });
});
