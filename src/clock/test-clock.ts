import { performance } from 'node:perf_hooks';
import { ScheduledClock } from './scheduled-clock.js';
import type { ClockStep, StepListener } from './types.js';

export interface TestClockOptions {
  /** Initial time in ms since the epoch; defaults to the wall clock at construction. */
  start?: number;
  /**
   * `true`: time also flows at wall-clock speed between advances (the sandbox: chains tick in real time
   * too, so both stay aligned). `false` (default): time moves only on `advance` (deterministic tests).
   */
  ticking?: boolean;
}

export interface AdvanceResult {
  from: number;
  to: number;
  /** Jobs run during the advance, in due-time order. */
  jobsRun: number;
}

/** Guards against a job that keeps re-scheduling itself at the current time. */
const MAX_JOBS_PER_ADVANCE = 1_000_000;

/**
 * The sandbox clock. `advance(ms)` walks time forward job by job: before the jobs due at a time run, the
 * clock stands exactly at that time and every step listener (e.g. the chains' time) has moved there too.
 */
export class TestClock extends ScheduledClock {
  readonly kind = 'test' as const;
  readonly ticking: boolean;
  private readonly base: number;
  private readonly wallStart = performance.now();
  private readonly listeners = new Set<StepListener>();
  private offset = 0;

  constructor(options: TestClockOptions = {}) {
    super();
    this.base = options.start ?? Date.now();
    this.ticking = options.ticking ?? false;
  }

  now(): number {
    const flowed = this.ticking ? performance.now() - this.wallStart : 0;
    return Math.floor(this.base + this.offset + flowed);
  }

  /** Called for every forward step of an advance, before jobs due at `step.to` run; awaited in order. */
  onStep(listener: StepListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Moves time forward by `ms`, running due jobs in time order. `signal` stops the advance between two jumps (the
   * clock stays where the last jump left it; jobs that ran stay done) with the signal's reason.
   */
  advance(ms: number, signal?: AbortSignal): Promise<AdvanceResult> {
    if (!Number.isFinite(ms) || ms < 0) {
      return Promise.reject(new RangeError(`advance: expected a non-negative number of ms, got ${ms}`));
    }
    return this.exclusive(async () => {
      const from = this.now();
      const target = from + ms;
      let jobsRun = 0;
      // Jump from one due job to the next: the chains move once per jump. Coalesced (periodic) jobs do not stop a
      // jump; those due before its end run once there, in due order, before the job the jump stopped for.
      for (;;) {
        signal?.throwIfAborted();
        const next = this.queue.earliestFixed();
        if (next === undefined || next.at > target) break;
        await this.moveTo(next.at);
        jobsRun += await this.runDueJobs(this.now());
        if (jobsRun > MAX_JOBS_PER_ADVANCE) {
          throw new Error(`advance: more than ${MAX_JOBS_PER_ADVANCE} jobs ran; a job keeps re-scheduling itself`);
        }
      }
      signal?.throwIfAborted();
      await this.moveTo(target);
      jobsRun += await this.runDueJobs(this.now());
      return { from, to: this.now(), jobsRun };
    });
  }

  /** Advances to an absolute time; a time in the past only runs due jobs. */
  advanceTo(at: number, signal?: AbortSignal): Promise<AdvanceResult> {
    return this.advance(Math.max(0, at - this.now()), signal);
  }

  private async moveTo(time: number): Promise<void> {
    const now = this.now();
    if (time <= now) return;
    this.offset += time - now;
    const step: ClockStep = { from: now, to: time };
    for (const listener of this.listeners) await listener(step);
  }

  protected timerDelay(at: number): number | undefined {
    const delay = at - this.now();
    if (this.ticking) return delay;
    // A frozen clock still runs jobs that are already due, promptly, but never waits for the future.
    return delay <= 0 ? 0 : undefined;
  }
}
