/**
 * Application-level keep-alive on the service clock, shared by the taker and solver streams: `ping()` every
 * interval, and `timeout()` when the previous ping is still unanswered when the next one is due. Scheduled on the
 * clock, so `sandbox clock advance` (and a test clock) drive it like every other timed behaviour.
 *
 * A peer can only answer in real time: when the clock jumps (`clock advance 31h`) the next tick comes due before
 * the pong could travel. So an unanswered ping is judged only once `answerWindowMs` of wall time has passed since
 * it was sent, and while that check is pending no further pings are scheduled: a long advance costs one ping per
 * connection, not one per 30 s of jumped time, and a live peer is never dropped for the jump.
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
  /** Wall time a peer always gets to answer a ping, however far the clock moved. Default 1 s. */
  answerWindowMs?: number;
}

export const DEFAULT_ANSWER_WINDOW_MS = 1_000;

export class ClockHeartbeat {
  private readonly intervalMs: number;
  private job: ScheduledJob | undefined;
  private _awaitingPong = false;
  private running = false;
  /** Wall time (ms) the outstanding ping was sent: a network round trip is measured in real time. */
  private pingSentAt = 0;
  private answerCheck: NodeJS.Timeout | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly options: ClockHeartbeatOptions,
  ) {
    this.intervalMs = options.intervalMs ?? DEFAULT_PING_INTERVAL_MS;
    if (!(this.intervalMs > 0)) throw new RangeError(`intervalMs must be positive, got ${this.intervalMs}`);
  }

  /** First ping one interval from now. Idempotent. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule();
  }

  /** The peer answered; any pong counts for the outstanding ping. */
  pong(): void {
    this._awaitingPong = false;
  }

  get awaitingPong(): boolean {
    return this._awaitingPong;
  }

  stop(): void {
    this.running = false;
    if (this.job !== undefined) this.clock.cancel(this.job);
    this.job = undefined;
    if (this.answerCheck !== undefined) clearTimeout(this.answerCheck);
    this.answerCheck = undefined;
  }

  private schedule(): void {
    this.job = this.clock.schedule(this.clock.now() + this.intervalMs, () => this.tick(), {
      name: this.options.name ?? 'ws.heartbeat',
      coalesce: true,
    });
  }

  private tick(): void {
    this.job = undefined;
    if (!this.running) return;
    if (this._awaitingPong) {
      const waited = Date.now() - this.pingSentAt;
      const window = this.options.answerWindowMs ?? DEFAULT_ANSWER_WINDOW_MS;
      if (waited >= window) {
        this.expire();
        return;
      }
      // The clock outran the network: judge the ping once the peer had its real-time window, then carry on.
      this.answerCheck = setTimeout(() => {
        this.answerCheck = undefined;
        if (!this.running) return;
        if (this._awaitingPong) this.expire();
        else this.schedule();
      }, window - waited);
      this.answerCheck.unref?.();
      return;
    }
    this._awaitingPong = true;
    this.pingSentAt = Date.now();
    this.options.ping();
    this.schedule();
  }

  private expire(): void {
    this.running = false;
    this.options.timeout();
  }
}
