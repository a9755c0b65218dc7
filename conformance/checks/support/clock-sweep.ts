import type { CheckContext } from '../../core/context.js';

/** Something to do once the sandbox clock has moved `at` seconds past the start of a sweep. */
export interface SweepStep {
  at: number;
  run(): Promise<void>;
}

/** A check's share of a sweep: set up before it starts, steps during it, its findings after. */
export interface SweepParticipant<T> {
  steps: SweepStep[];
  result(): T;
}

/**
 * Walks the sandbox clock once through every participant's steps in time order. Moving the clock of a sandbox
 * costs a heartbeat job per open connection every 30 s of clock time, so checks that need a day or more share
 * one walk instead of taking one each.
 */
export async function walkClock(ctx: CheckContext, steps: readonly SweepStep[]): Promise<void> {
  let now = 0;
  for (const step of [...steps].sort((a, b) => a.at - b.at)) {
    if (step.at > now) {
      await ctx.advanceClock(step.at - now);
      now = step.at;
    }
    await step.run();
  }
}
