import { JobQueue, type QueuedJob } from './job-queue.js';
import type { Clock, Job, JobErrorListener, ScheduleOptions, ScheduledJob } from './types.js';

/** Node timers overflow above 2^31-1 ms (about 24.8 days); longer waits re-arm in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Shared scheduling machinery of the real and the test clock. All job runs (and test-clock advances)
 * go through one lock, so jobs never overlap and always run in (due time, scheduling order).
 */
export abstract class ScheduledClock implements Clock {
  abstract readonly kind: 'real' | 'test';
  protected readonly queue = new JobQueue();
  private readonly errorListeners = new Set<JobErrorListener>();
  private lock: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  abstract now(): number;

  /** Milliseconds until a timer should fire for a job due at `at`, or undefined for no timer. */
  protected abstract timerDelay(at: number): number | undefined;

  date(): Date {
    return new Date(this.now());
  }

  schedule(at: number, job: Job, options: ScheduleOptions = {}): ScheduledJob {
    if (!Number.isFinite(at)) throw new RangeError(`schedule: time must be a finite number of ms, got ${at}`);
    const queued = this.queue.add(at, job, options.name ?? 'job', options.coalesce ?? false);
    this.armTimer();
    return { id: queued.id, at: queued.at, name: queued.name };
  }

  cancel(job: ScheduledJob | number): boolean {
    const removed = this.queue.cancel(typeof job === 'number' ? job : job.id);
    if (removed) this.armTimer();
    return removed;
  }

  pendingJobs(): ScheduledJob[] {
    return this.queue.list();
  }

  onJobError(listener: JobErrorListener): () => void {
    this.errorListeners.add(listener);
    return () => this.errorListeners.delete(listener);
  }

  idle(): Promise<void> {
    return this.exclusive(async () => {
      await this.runDueJobs(this.now());
    });
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Runs `task` after every earlier job run or advance has finished. */
  protected exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.lock.then(task);
    this.lock = run.catch(() => undefined);
    return run;
  }

  /** Runs every job due at or before `time`, including ones scheduled by those jobs. Call under the lock. */
  protected async runDueJobs(time: number): Promise<number> {
    let ran = 0;
    for (let job = this.queue.takeDue(time); job !== undefined; job = this.queue.takeDue(time)) {
      await this.run(job);
      ran += 1;
    }
    this.armTimer();
    return ran;
  }

  protected armTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.stopped) return;
    const head = this.queue.peek();
    if (head === undefined) return;
    const delay = this.timerDelay(head.at);
    if (delay === undefined) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        void this.exclusive(() => this.runDueJobs(this.now()));
      },
      Math.min(Math.max(delay, 0), MAX_TIMER_MS),
    );
    // The HTTP server keeps a service alive; a pending job alone must not keep a test process running.
    this.timer.unref();
  }

  private async run(job: QueuedJob): Promise<void> {
    try {
      await job.run();
    } catch (error) {
      const info: ScheduledJob = { id: job.id, at: job.at, name: job.name };
      if (this.errorListeners.size === 0) {
        // Nobody listens: surface it rather than lose it silently.
        process.emitWarning(`clock job ${job.name}#${job.id} failed: ${String(error)}`);
      }
      for (const listener of this.errorListeners) listener(error, info);
    }
  }
}
