import type { Logger } from 'pino';
import type { SolverNotifier, SolverOrderMessage } from '../auction/types.js';

const RETRY_MS = [250, 500, 1_000, 2_000, 5_000];
/** About ten minutes of retries at the longest interval, then the message is left to the restart re-send. */
const MAX_ATTEMPTS = 130;

/**
 * Tells the winning solver about its order on the solver stream. The stream is best effort: when no connection
 * of the solver takes a message (it is reconnecting, or the service just restarted), the message is retried on a
 * wall-time backoff (transport, not business time). A newer message about the same order replaces an older one.
 * Solvers de-duplicate by (orderId, type). With several instances on one store the notifier also reaches the
 * solver's connections on the other instances (the auction's solver network), and counts them as delivered.
 */
export class SolverDispatch {
  private notifier: SolverNotifier | undefined;
  private readonly pending = new Map<string, { timer: NodeJS.Timeout }>();
  private stopped = false;

  constructor(private readonly logger: Logger) {}

  use(notifier: SolverNotifier | undefined): void {
    this.notifier = notifier;
  }

  send(solverId: string, message: SolverOrderMessage, attempt = 0): void {
    if (this.stopped) return;
    const key = message.orderId;
    const waiting = this.pending.get(key);
    if (waiting !== undefined) {
      clearTimeout(waiting.timer);
      this.pending.delete(key);
    }
    let delivered = 0;
    try {
      delivered = this.notifier?.notify(solverId, message) ?? 0;
    } catch (error) {
      this.logger.warn({ err: error, solverId, type: message.type }, 'solver notification failed');
    }
    if (delivered > 0 || attempt >= MAX_ATTEMPTS) {
      if (delivered === 0) this.logger.warn({ solverId, orderId: key, type: message.type }, 'solver never took the message');
      return;
    }
    const timer = setTimeout(
      () => {
        this.pending.delete(key);
        this.send(solverId, message, attempt + 1);
      },
      RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)],
    );
    timer.unref();
    this.pending.set(key, { timer });
  }

  /** Offers an order nobody won to every connected solver (best effort, once: solvers also see the Open log). */
  offer(message: Extract<SolverOrderMessage, { type: 'order.available' }>): void {
    if (this.stopped) return;
    try {
      this.notifier?.offer?.(message);
    } catch (error) {
      this.logger.warn({ err: error, orderId: message.orderId }, 'order offer failed');
    }
  }

  /** Stops retrying messages about an order that has reached its end. */
  forget(orderId: string): void {
    const waiting = this.pending.get(orderId);
    if (waiting !== undefined) clearTimeout(waiting.timer);
    this.pending.delete(orderId);
  }

  stop(): void {
    this.stopped = true;
    for (const { timer } of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
  }
}
