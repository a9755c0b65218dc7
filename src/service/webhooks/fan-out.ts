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
      const events = this.deps.outbox.after(this.deps.messages.fanOutCursor(), 500);
      if (events.length === 0) return total;
      this.fanOut(events);
      total += events.length;
    }
  }

  private fanOut(events: readonly StoredEvent[]): void {
    const { store, endpoints, messages, clock, dispatcher } = this.deps;
    const maxAttempts = totalAttempts(dispatcher.profile);
    let queued = 0;
    store.transaction(
      () => {
        const byWorkspace = new Map<string, Array<{ id: string; createdAt: number; patterns: EventPatternSet }>>();
        for (const event of events) {
          if (event.workspaceId !== null) {
            let targets = byWorkspace.get(event.workspaceId);
            if (targets === undefined) {
              targets = endpoints
                .active(event.workspaceId)
                .map((endpoint) => ({ id: endpoint.id, createdAt: endpoint.createdAt, patterns: new EventPatternSet(endpoint.events) }));
              byWorkspace.set(event.workspaceId, targets);
            }
            const body = JSON.stringify(event.envelope);
            for (const target of targets) {
              // An endpoint receives what happened after it was registered; older events are for replay.
              if (event.createdAt < target.createdAt || !target.patterns.matches(event.envelope.type)) continue;
              const inserted = messages.insert({
                id: newId('msg'),
                webhookId: target.id,
                eventId: event.envelope.id,
                eventType: event.envelope.type,
                body,
                origin: 'event',
                maxAttempts,
                nextAttemptAt: clock.now(),
                createdAt: clock.now(),
              });
              if (inserted) queued += 1;
            }
          }
        }
        // Once per batch: the events come in seq order.
        messages.advanceFanOutCursor(events[events.length - 1]!.seq);
        // Messages are unique per (endpoint, event) and the cursor only moves forward, so this transaction decides
        // nothing another one could change: it need not wait for the store's write lock (Postgres).
      },
      { writeLock: 'deferred' },
    );
    if (queued > 0) dispatcher.arm();
  }
}
