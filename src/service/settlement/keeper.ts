import type { Logger } from 'pino';
import type { Clock, ScheduledJob } from '../../clock/index.js';

/** What the keeper asks when an order's time is up: done, or look again at `retryAt` (clock ms). */
export type ExpiryDecision = { done: true } | { done: false; retryAt: number };

/**
 * Wakes up once per open order at `expires + 1 s` by the service clock (a test clock's advance runs it in time
 * order, after the chains have moved there). The schedule is in memory: the orders module re-schedules every open
 * order from the store in `start()`, so a restart loses no refund.
 */
export class Keeper {
  private readonly jobs = new Map<string, ScheduledJob>();

  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly onExpiry: (orderId: string) => Promise<ExpiryDecision>,
  ) {}

  /** The first moment an escrow refund can succeed: block.timestamp > expires. */
  static dueAt(expires: number): number {
    return (expires + 1) * 1_000;
  }

  schedule(orderId: string, at: number): void {
    this.cancel(orderId);
    const job = this.clock.schedule(at, () => this.fire(orderId), { name: 'order.refund' });
    this.jobs.set(orderId, job);
  }

  cancel(orderId: string): void {
    const job = this.jobs.get(orderId);
    if (job !== undefined) this.clock.cancel(job);
    this.jobs.delete(orderId);
  }

  stop(): void {
    for (const job of this.jobs.values()) this.clock.cancel(job);
    this.jobs.clear();
  }

  get pending(): number {
    return this.jobs.size;
  }

  private async fire(orderId: string): Promise<void> {
    this.jobs.delete(orderId);
    let decision: ExpiryDecision;
    try {
      decision = await this.onExpiry(orderId);
    } catch (error) {
      this.logger.warn({ err: error, orderId }, 'expiry check failed; retrying in 1 s');
      decision = { done: false, retryAt: this.clock.now() + 1_000 };
    }
    if (!decision.done) this.schedule(orderId, decision.retryAt);
  }
}
