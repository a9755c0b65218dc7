/**
 * Application-level keep-alive on the service clock, shared by the taker and solver streams: `ping()` every
 * interval, and `timeout()` when the previous ping is still unanswered when the next one is due. Scheduled on the
 * clock, so `sandbox clock advance` (and a test clock) drive it like every other timed behaviour.
 */
import type { Clock, ScheduledJob } from '../../clock/index.js';

export const DEFAULT_PING_INTERVAL_MS = 30_000;

export interface ClockHeartbeatOptions {
  /** Default 30 s (the spec's ping interval). */
  intervalMs?: number;
  /** Job name in the clock's pending list. */
  name?: string;
  /** Sends the ping message. */
  ping(): void;
  /** Called once, when a ping went unanswered for a whole interval; the heartbeat has stopped by then. */
  timeout(): void;
}

export class ClockHeartbeat {
  readonly #intervalMs: number;
  #job: ScheduledJob | undefined;
  #awaitingPong = false;
  #running = false;

  constructor(
    private readonly clock: Clock,
    private readonly options: ClockHeartbeatOptions,
  ) {
    this.#intervalMs = options.intervalMs ?? DEFAULT_PING_INTERVAL_MS;
    if (!(this.#intervalMs > 0)) throw new RangeError(`intervalMs must be positive, got ${this.#intervalMs}`);
  }

  /** First ping one interval from now. Idempotent. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#schedule();
  }

  /** The peer answered; any pong counts for the outstanding ping. */
  pong(): void {
    this.#awaitingPong = false;
  }

  get awaitingPong(): boolean {
    return this.#awaitingPong;
  }

  stop(): void {
    this.#running = false;
    if (this.#job !== undefined) this.clock.cancel(this.#job);
    this.#job = undefined;
  }

  #schedule(): void {
    this.#job = this.clock.schedule(this.clock.now() + this.#intervalMs, () => this.#tick(), {
      name: this.options.name ?? 'ws.heartbeat',
    });
  }

  #tick(): void {
    this.#job = undefined;
    if (!this.#running) return;
    if (this.#awaitingPong) {
      this.#running = false;
      this.options.timeout();
      return;
    }
    this.#awaitingPong = true;
    this.options.ping();
    this.#schedule();
  }
}
