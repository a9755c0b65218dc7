import { describe, expect, it } from 'vitest';
import { TestClock } from '../../clock/index.js';
import { ClockHeartbeat } from './heartbeat.js';

const HOUR = 3_600_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('clock heartbeat under clock jumps', () => {
  it('a live peer survives a 31 h advance, and the advance costs one ping instead of thousands', async () => {
    const clock = new TestClock({ start: Date.UTC(2026, 0, 1) });
    let pings = 0;
    let timedOut = false;
    const heartbeat: ClockHeartbeat = new ClockHeartbeat(clock, {
      answerWindowMs: 50,
      // The pong travels over a network: it arrives in real time, after the synchronous advance.
      ping: () => {
        pings++;
        setTimeout(() => heartbeat.pong(), 5);
      },
      timeout: () => {
        timedOut = true;
      },
    });
    heartbeat.start();
    const result = await clock.advance(31 * HOUR);
    expect(pings).toBe(1);
    expect(result.jobsRun).toBeLessThan(5);
    await sleep(120);
    expect(timedOut).toBe(false);
    // Back to normal cadence: the next ping comes 30 s of clock time later.
    await clock.advance(30_000);
    expect(pings).toBe(2);
    heartbeat.stop();
  });

  it('a silent peer is dropped once it had its real-time window', async () => {
    const clock = new TestClock({ start: Date.UTC(2026, 0, 1) });
    let timedOut = 0;
    const heartbeat = new ClockHeartbeat(clock, { answerWindowMs: 30, ping: () => undefined, timeout: () => timedOut++ });
    heartbeat.start();
    // The 30 s heartbeat is coalesced across a jump: one ping for this 60 s advance.
    await clock.advance(60_000);
    expect(timedOut).toBe(0);
    // The next heartbeat finds the ping unanswered and gives the peer its real-time window.
    await clock.advance(30_000);
    expect(timedOut).toBe(0);
    await sleep(80);
    expect(timedOut).toBe(1);
    await clock.advance(HOUR);
    expect(timedOut).toBe(1);
  });
});
