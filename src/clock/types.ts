/**
 * The one clock of the service. Business time (quote expiry, deadlines, retries, key rotation grace,
 * idempotency windows) is read from a `Clock` and timed work is scheduled on it, never on
 * `Date.now()`/`setTimeout`, so that a sandbox can move time for the service and every chain at once.
 */

/** A unit of timed work. It may schedule further jobs; it must not advance the clock itself. */
export type Job = () => void | Promise<void>;

export interface ScheduleOptions {
  /** Shown in logs and in `pendingJobs()`; e.g. `webhook.retry` or `order.refund`. */
  name?: string;
  /**
   * Periodic housekeeping (heartbeats, sweeps): when a test-clock advance jumps past the job's time, the job runs once
   * where the jump stops (the next job that is not coalesced, or the advance's end) instead of at its own time. An
   * advance over a year then costs what its real jobs cost, not one step per heartbeat.
   */
  coalesce?: boolean;
}

export interface ScheduledJob {
  readonly id: number;
  /** Clock time in milliseconds at which the job becomes due. */
  readonly at: number;
  readonly name: string;
}

/** A step of test-clock time: every listener runs before the jobs due at `to`. */
export interface ClockStep {
  from: number;
  to: number;
}

export type StepListener = (step: ClockStep) => void | Promise<void>;
export type JobErrorListener = (error: unknown, job: ScheduledJob) => void;

export interface Clock {
  readonly kind: 'real' | 'test';
  /** Milliseconds since the Unix epoch, in this clock's time. */
  now(): number;
  /** `now()` as a Date, for ISO timestamps on the wire. */
  date(): Date;
  /** Runs `job` once when the clock reaches `at` (ms). A time in the past runs as soon as possible. */
  schedule(at: number, job: Job, options?: ScheduleOptions): ScheduledJob;
  /** Removes a pending job; false when it already ran or was cancelled. */
  cancel(job: ScheduledJob | number): boolean;
  pendingJobs(): ScheduledJob[];
  /** Errors thrown by jobs land here (a failing job never stops the others). */
  onJobError(listener: JobErrorListener): () => void;
  /** Resolves when no job is running and nothing due is waiting. */
  idle(): Promise<void>;
  /** Stops the clock's timers; pending jobs stay queued but no longer fire. */
  stop(): void;
}
