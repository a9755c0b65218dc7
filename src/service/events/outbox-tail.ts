import type { Logger } from 'pino';
import type { InstanceBus } from '../cluster/instance-bus.js';

/** Bus topic: `{ seq }`, the highest outbox seq the sending instance just committed. */
export const OUTBOX_COMMITTED_TOPIC = 'outbox.committed';

/** How often an instance reads the outbox unprompted: a lost bus message delays an event by at most this. */
export const OUTBOX_POLL_MS = 1_000;

const READ_BATCH = 500;

/** What the tail reads: a log ordered by `seq`, which is its commit order. */
export interface SeqLog<E extends { seq: number }> {
  /** Up to `limit` entries after `seq`, in seq order. */
  after(seq: number, limit: number): E[];
  lastSeq(): number;
}

export interface OutboxTailOptions<E extends { seq: number }> {
  bus: InstanceBus;
  log: SeqLog<E>;
  /** This process's listeners, as they are when an event is handed on. */
  listeners(): Iterable<(event: E) => void>;
  logger: Logger;
  pollMs?: number;
}

/**
 * Lets this process's outbox listeners hear every committed event, whichever instance committed it, each once
 * and in seq order.
 *
 * One advisory lock per store serialises its writers, so `seq` order is commit order: once an instance sees seq N
 * committed, every lower seq is committed too. One watermark is therefore enough: an event is handed on when its
 * seq is above the last one handed on, and never otherwise. A local commit first reads what others committed
 * before it and was not heard of yet, then hands on its own events and tells the other instances its highest seq;
 * they read the store from their own watermark. A poll and every bus reconnect read it too, so a lost message
 * only delays.
 */
export class OutboxTail<E extends { seq: number }> {
  private lastSeen = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly unsubscribe: Array<() => void> = [];

  constructor(private readonly options: OutboxTailOptions<E>) {}

  /** Events committed before this are not handed on (listeners that need them read the store themselves). */
  start(): void {
    const { bus, log } = this.options;
    this.lastSeen = log.lastSeq();
    this.unsubscribe.push(
      bus.subscribe(OUTBOX_COMMITTED_TOPIC, (payload) => {
        const seq = (payload as { seq?: unknown } | null)?.seq;
        if (typeof seq !== 'number' || seq > this.lastSeen) this.readSafely();
      }),
      bus.onReconnect(() => this.readSafely()),
    );
    // Infrastructure, not business time: the poll runs on the wall clock even when a test clock stands still.
    this.timer = setInterval(() => this.readSafely(), this.options.pollMs ?? OUTBOX_POLL_MS);
    this.timer.unref();
  }

  stop(): void {
    for (const unsubscribe of this.unsubscribe.splice(0)) unsubscribe();
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Events this process just committed (called once their transaction committed). */
  committedHere(events: readonly E[]): void {
    if (events.length === 0) return;
    const ordered = [...events].sort((a, b) => a.seq - b.seq);
    for (const event of ordered) {
      // A gap below ours is someone else's commit not heard of yet (or a rolled-back seq): theirs go first. If the
      // read fails, ours wait for the next read too, so the order holds.
      if (event.seq > this.lastSeen + 1 && !this.readSafely(event.seq)) break;
      if (event.seq > this.lastSeen) this.hand(event);
    }
    this.options.bus.publish(OUTBOX_COMMITTED_TOPIC, { seq: ordered.at(-1)!.seq });
  }

  /** Reads and hands on the events after the watermark and below `before`; false when the store failed. */
  private readSafely(before = Number.POSITIVE_INFINITY): boolean {
    try {
      for (;;) {
        const events = this.options.log.after(this.lastSeen, READ_BATCH);
        for (const event of events) {
          if (event.seq >= before) return true;
          // Re-checked per event: a listener may commit, and that commit reads ahead of this loop.
          if (event.seq > this.lastSeen) this.hand(event);
        }
        if (events.length < READ_BATCH) return true;
      }
    } catch (error) {
      this.options.logger.warn({ err: error }, 'outbox tail: reading the store failed; the next read catches up');
      return false;
    }
  }

  private hand(event: E): void {
    this.lastSeen = event.seq;
    for (const listener of this.options.listeners()) {
      // One failing listener must not keep the event from the others, nor stop the tail.
      try {
        listener(event);
      } catch (error) {
        this.options.logger.error({ err: error, seq: event.seq }, 'outbox listener failed');
      }
    }
  }
}
