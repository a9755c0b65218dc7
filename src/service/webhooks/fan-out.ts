import type { Logger } from 'pino';
import type { Clock } from '../../clock/index.js';
import { EventPatternSet } from '../events/event-pattern.js';
import type { OutboxRepository, StoredEvent } from '../events/outbox.js';
import { newId } from '../store/ids.js';
import type { Store } from '../store/store.js';
import type { DeliveryDispatcher } from './dispatcher.js';
import type { WebhookEndpointRepository, WebhookMessageRepository } from './repository.js';
import { totalAttempts } from './schedule.js';

/**
 * Turns committed outbox events into webhook messages: one per active endpoint of the event's workspace whose
 * patterns match its type. A cursor (last fanned-out seq) is kept with the messages, so events committed while
 * the service was down, or whose notification was lost, are picked up from the table at start.
 *
 * It runs on the instance holding the singleton work and hears every instance's events (the outbox follows the
 * others). An instance that takes over starts from the cursor, and a message is unique per (endpoint, event), so
 * an event fanned out by the old holder after the cursor was read is not queued twice.
 */
/** How long a fan-out cursor without messages may stay unwritten. */
const CURSOR_WRITE_MS = 1_000;

export class WebhookFanOut {
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly deps: {
      clock: Clock;
      store: Store;
      outbox: OutboxRepository;
      endpoints: WebhookEndpointRepository;
      messages: WebhookMessageRepository;
      dispatcher: DeliveryDispatcher;
      logger: Logger;
    },
  ) {}

  /** Events heard since the last fan-out: a commit publishes its events one by one, they are fanned out together. */
  private batch: StoredEvent[] = [];
  /** A fan-out failed: the next one starts from the cursor, so the failed events are not skipped by later ones. */
  private behind = false;
  /**
   * The last seq fanned out whose cursor is not written yet: a batch that queues no message (no endpoint wants its
   * events, the common case) opens no transaction, and its cursor is written with the next batch that queues one, by
   * a timer within CURSOR_WRITE_MS, or at stop. A crash before that only makes the next start look at those events
   * again: a message is unique per (endpoint, event), so none is queued twice.
   */
  private unwrittenCursor: number | undefined;
  private cursorTimer: NodeJS.Timeout | undefined;

  start(): void {
    this.catchUp();
    this.unsubscribe = this.deps.outbox.onCommitted((event) => {
      // One store transaction per batch rather than per event: a settled order publishes several events, and each
      // commit is a write to the database file. The events are already committed, so deferring to the end of
      // the publisher's synchronous work loses nothing; the cursor covers a crash in between.
      if (this.batch.push(event) === 1) queueMicrotask(() => this.drain());
    });
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.drain();
    this.writeCursor();
  }

  private drain(): void {
    const events = this.batch;
    if (events.length === 0) return;
    this.batch = [];
    try {
      // The cursor is at or before these events' seqs: catching up covers them.
      if (this.behind) this.catchUp();
      else this.fanOut(events);
      this.behind = false;
    } catch (error) {
      // Never break the publisher's request; the cursor lets the next fan-out (or start) pick the events up.
      this.behind = true;
      this.deps.logger.error({ err: error, eventIds: events.map((e) => e.envelope.id) }, 'webhook fan-out failed');
    }
  }

  /** Fans out every stored event after the cursor. */
  catchUp(): number {
    let total = 0;
    for (;;) {
      const events = this.deps.outbox.after(Math.max(this.deps.messages.fanOutCursor(), this.unwrittenCursor ?? 0), 500);
      if (events.length === 0) return total;
      this.fanOut(events);
      total += events.length;
    }
  }

  /** Writes a cursor that batches without messages left behind (timer, stop). */
  private writeCursor(): void {
    if (this.cursorTimer !== undefined) clearTimeout(this.cursorTimer);
    this.cursorTimer = undefined;
    const seq = this.unwrittenCursor;
    if (seq === undefined) return;
    try {
      this.deps.store.transaction(() => this.deps.messages.advanceFanOutCursor(seq), { writeLock: 'deferred' });
      if (this.unwrittenCursor === seq) this.unwrittenCursor = undefined;
    } catch (error) {
      // Kept for the next try; the events after the written cursor are looked at again at start otherwise.
      this.deps.logger.warn({ err: error, seq }, 'webhook fan-out cursor not written');
    }
  }

  private fanOut(events: readonly StoredEvent[]): void {
    const { store, endpoints, messages, clock, dispatcher } = this.deps;
    const lastSeq = events[events.length - 1]!.seq;
    // Which endpoint wants which event, read before any transaction: most batches match none and need no write.
    const byWorkspace = new Map<string, Array<{ id: string; createdAt: number; patterns: EventPatternSet }>>();
    const deliveries: Array<{ event: StoredEvent; webhookIds: string[] }> = [];
    for (const event of events) {
      if (event.workspaceId === null) continue;
      let targets = byWorkspace.get(event.workspaceId);
      if (targets === undefined) {
        targets = endpoints
          .active(event.workspaceId)
          .map((endpoint) => ({ id: endpoint.id, createdAt: endpoint.createdAt, patterns: new EventPatternSet(endpoint.events) }));
        byWorkspace.set(event.workspaceId, targets);
      }
      // An endpoint receives what happened after it was registered; older events are for replay.
      const webhookIds = targets
        .filter((target) => event.createdAt >= target.createdAt && target.patterns.matches(event.envelope.type))
        .map((target) => target.id);
      if (webhookIds.length > 0) deliveries.push({ event, webhookIds });
    }
    if (deliveries.length === 0) {
      // Nothing to queue: the cursor alone would be written; it waits (see unwrittenCursor).
      this.unwrittenCursor = Math.max(this.unwrittenCursor ?? 0, lastSeq);
      if (this.cursorTimer === undefined) {
        this.cursorTimer = setTimeout(() => this.writeCursor(), CURSOR_WRITE_MS);
        this.cursorTimer.unref();
      }
      return;
    }
    const maxAttempts = totalAttempts(dispatcher.profile);
    let queued = 0;
    store.transaction(
      () => {
        for (const { event, webhookIds } of deliveries) {
          for (const webhookId of webhookIds) {
            const inserted = messages.insert({
              id: newId('msg'),
              webhookId,
              eventId: event.envelope.id,
              eventType: event.envelope.type,
              body: event.json,
              origin: 'event',
              maxAttempts,
              nextAttemptAt: clock.now(),
              createdAt: clock.now(),
            });
            if (inserted) queued += 1;
          }
        }
        // Once per batch: the events come in seq order (and any batch before them without messages is covered).
        messages.advanceFanOutCursor(Math.max(lastSeq, this.unwrittenCursor ?? 0));
        // Messages are unique per (endpoint, event) and the cursor only moves forward, so this transaction decides
        // nothing another one could change: it need not wait for the store's write lock (Postgres).
      },
      { writeLock: 'deferred' },
    );
    if (this.unwrittenCursor !== undefined && this.unwrittenCursor <= lastSeq) {
      this.unwrittenCursor = undefined;
      if (this.cursorTimer !== undefined) clearTimeout(this.cursorTimer);
      this.cursorTimer = undefined;
    }
    if (queued > 0) dispatcher.arm();
  }
}
