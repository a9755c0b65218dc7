import type { Logger } from 'pino';
import type { Clock, ScheduledJob } from '../../clock/index.js';
import { newId } from '../store/ids.js';
import type { Store } from '../store/store.js';
import type { Mailbox } from './mailbox.js';
import type {
  MessageStatus,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointRepository,
  WebhookMessage,
  WebhookMessageRepository,
} from './repository.js';
import { nextRetryDelay, totalAttempts, type RetryProfile } from './schedule.js';
import type { DeliveryResult, WebhookSender } from './sender.js';

export interface DispatcherOptions {
  clock: Clock;
  store: Store;
  endpoints: WebhookEndpointRepository;
  messages: WebhookMessageRepository;
  mailbox: Mailbox;
  sender: WebhookSender;
  profile: RetryProfile;
  logger: Logger;
  /** Attempts in flight at once, over all endpoints. */
  concurrency: number;
  /** Where people re-enable an endpoint (named in the notification). */
  apiBase(): string;
  /**
   * Tells the instance that runs dispatch (the singleton holder) that messages were queued here: on the other
   * instances of a store the dispatcher answers requests (test sends) but never runs the schedule.
   */
  wakeHolder?(): void;
}

/**
 * Sends due webhook messages and applies the retry schedule. All timing is clock time: one clock job stands at
 * the earliest due attempt, so a test clock advanced by 31 h walks the whole schedule attempt by attempt.
 *
 * Under a test clock the job waits for the attempts it starts (each retry is computed from the moment its
 * failure is known, and the advance must see the retries that follow). Under the real clock it only starts
 * them: a receiver that takes 30 s to fail must not hold up every other timed job of the service.
 */
export class DeliveryDispatcher {
  private readonly inFlight = new Map<string, Promise<WebhookDelivery | undefined>>();
  /**
   * The last attempt launched per endpoint. An endpoint receives one attempt at a time, in the order messages
   * became due (outbox order for first attempts): a receiver sees `order.settled` before the `compliance.event`
   * committed after it, as the spec's sequences read. Different endpoints still go in parallel.
   */
  private readonly endpointTail = new Map<string, Promise<unknown>>();
  private readonly abort = new AbortController();
  private job: ScheduledJob | undefined;
  private running = false;
  private stopped = false;

  constructor(private readonly options: DispatcherOptions) {}

  get profile(): RetryProfile {
    return this.options.profile;
  }

  start(): void {
    this.running = true;
    const released = this.options.messages.releaseInFlight();
    if (released > 0) this.options.logger.warn({ released }, 'webhook attempts interrupted by a stop are sent again');
    this.arm();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.job !== undefined) this.options.clock.cancel(this.job);
    this.job = undefined;
    // Unfinished attempts are not recorded: the messages stay pending and go out again after a restart.
    this.abort.abort();
    await Promise.allSettled([...this.inFlight.values()]);
  }

  /** Puts the clock job at the earliest due attempt (call after anything that queues or re-times messages). */
  arm(): void {
    // With every slot busy, the next finishing attempt re-arms (a job now would only find no free slot).
    if (this.stopped) return;
    if (!this.running) {
      this.options.wakeHolder?.();
      return;
    }
    if (this.inFlight.size >= this.options.concurrency) return;
    const due = this.options.messages.earliestDue();
    if (due === undefined) {
      if (this.job !== undefined) this.options.clock.cancel(this.job);
      this.job = undefined;
      return;
    }
    if (this.job !== undefined) {
      if (this.job.at <= due && this.options.clock.pendingJobs().some((job) => job.id === this.job!.id)) return;
      this.options.clock.cancel(this.job);
    }
    this.job = this.options.clock.schedule(due, () => this.run(), { name: 'webhook.delivery' });
  }

  /** Sends one message at once, whatever its endpoint's state (the test route); resolves with the attempt. */
  async sendNow(messageId: string): Promise<WebhookDelivery | undefined> {
    const message = this.options.messages.get(messageId);
    if (message === undefined) return undefined;
    return this.launch(message);
  }

  /** Resolves once nothing is in flight (tests, benchmarks). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.values()]);
  }

  private async run(): Promise<void> {
    this.job = undefined;
    if (this.stopped) return;
    const waits = this.options.clock.kind === 'test';
    for (;;) {
      const free = this.options.concurrency - this.inFlight.size;
      if (free <= 0) break;
      const batch = this.options.messages.claimDue(this.options.clock.now(), free);
      if (batch.length === 0) break;
      const launched = batch.map((message) => this.launch(message));
      if (!waits) break;
      await Promise.all(launched);
    }
    this.arm();
  }

  private launch(message: WebhookMessage): Promise<WebhookDelivery | undefined> {
    const previous = this.endpointTail.get(message.webhookId) ?? Promise.resolve();
    const attempt = previous.then(
      () => this.attempt(message),
      () => this.attempt(message),
    );
    const tail = attempt.catch(() => undefined);
    this.endpointTail.set(message.webhookId, tail);
    void tail.then(() => {
      if (this.endpointTail.get(message.webhookId) === tail) this.endpointTail.delete(message.webhookId);
    });
    const running = attempt.finally(() => {
      this.inFlight.delete(message.id);
      // Under the real clock, finishing an attempt frees a slot and may have queued a retry.
      if (this.options.clock.kind !== 'test') this.arm();
    });
    this.inFlight.set(message.id, running);
    return running;
  }

  private async attempt(message: WebhookMessage): Promise<WebhookDelivery | undefined> {
    const { clock } = this.options;
    // Queued behind an endpoint's earlier attempt when the service stopped: a stopped service sends nothing more.
    // The message stays marked in flight and goes out after the restart, still behind the one it queued after
    // (sending it now could overtake that one's retry).
    if (this.abort.signal.aborted) return undefined;
    const endpoint = this.options.endpoints.get(message.webhookId);
    if (endpoint === undefined || endpoint.status === 'deleted') {
      this.options.messages.release(message.id);
      return undefined;
    }
    const deliveryId = newId('dlv');
    const sentAt = clock.now();
    const result = await this.options.sender.send({
      url: endpoint.url,
      secret: endpoint.secret,
      body: message.body,
      eventType: message.eventType,
      webhookId: endpoint.id,
      deliveryId,
      timestampSeconds: Math.floor(sentAt / 1000),
    });
    if (this.abort.signal.aborted) return undefined;
    return this.record(message, deliveryId, sentAt, result);
  }

  /** The attempt, the message's next state and the endpoint's streak, in one transaction. */
  private record(message: WebhookMessage, deliveryId: string, sentAt: number, result: DeliveryResult): WebhookDelivery {
    const { clock, profile } = this.options;
    const finishedAt = clock.now();
    const attempt = message.attempts + 1;
    const maxAttempts = Math.min(message.maxAttempts, totalAttempts(profile));
    const delay = result.succeeded || attempt >= maxAttempts ? undefined : nextRetryDelay(profile, attempt, result.retryAfterMs);
    const status: MessageStatus = result.succeeded ? 'succeeded' : delay === undefined ? 'exhausted' : 'pending';
    const nextAttemptAt = delay === undefined ? null : finishedAt + delay;
    const delivery: WebhookDelivery = {
      id: deliveryId,
      messageId: message.id,
      webhookId: message.webhookId,
      eventId: message.eventId,
      eventType: message.eventType,
      attempt,
      sentAt,
      finishedAt,
      durationMs: result.durationMs,
      statusCode: result.statusCode,
      succeeded: result.succeeded,
      error: result.error,
      retryAfterMs: result.retryAfterMs ?? null,
      nextAttemptAt,
    };
    this.options.store.transaction(() => {
      const current = this.options.messages.get(message.id);
      // Deleted meanwhile: keep the record of the attempt, not the retry.
      const cancelled = current?.status === 'cancelled';
      this.options.messages.recordAttempt({
        message,
        delivery,
        status: cancelled ? 'cancelled' : status,
        nextAttemptAt: cancelled ? null : nextAttemptAt,
        completedAt: cancelled ? (current?.completedAt ?? finishedAt) : status === 'pending' ? null : finishedAt,
      });
      if (message.origin !== 'test') this.updateStreak(message, status, result.succeeded, finishedAt);
    });
    if (!result.succeeded) {
      this.options.logger.debug(
        { webhookId: message.webhookId, eventId: message.eventId, attempt, error: result.error, status },
        'webhook attempt failed',
      );
    }
    return delivery;
  }

  private updateStreak(message: WebhookMessage, status: MessageStatus, succeeded: boolean, now: number): void {
    const endpoint = this.options.endpoints.get(message.webhookId);
    if (endpoint === undefined || endpoint.status === 'deleted') return;
    if (succeeded) {
      if (endpoint.failureStreak !== 0) this.options.endpoints.setFailureStreak(endpoint.id, 0);
      return;
    }
    const rule = this.options.profile.stopAfter;
    const counts = rule.counting === 'failed-attempts' || status === 'exhausted';
    if (!counts) return;
    const streak = endpoint.failureStreak + 1;
    this.options.endpoints.setFailureStreak(endpoint.id, streak);
    if (streak >= rule.count && endpoint.status === 'active') {
      this.options.endpoints.setStatus(endpoint.id, rule.status, now);
      this.notifyStopped(endpoint, rule.status, streak, now);
    }
  }

  private notifyStopped(endpoint: WebhookEndpoint, status: 'paused' | 'disabled', streak: number, now: number): void {
    const what =
      this.options.profile.stopAfter.counting === 'exhausted-events'
        ? 'consecutive events exhausted every retry'
        : 'consecutive deliveries failed';
    const base = this.options.apiBase();
    this.options.mailbox.send({
      workspaceId: endpoint.workspaceId,
      recipient: `owners of workspace ${endpoint.workspaceId}`,
      subject: `Webhook endpoint ${status}: ${endpoint.url}`,
      body: [
        `Your webhook endpoint ${endpoint.id} (${endpoint.url}) was ${status} because ${streak} ${what}.`,
        'No events are sent to it until it is enabled again.',
        '',
        `Re-enable it:  POST ${base}/v1/webhooks/${endpoint.id}/enable   (or ${base}/api/v1/webhooks/${endpoint.id}/enable)`,
        `Then recover what it missed:  POST ${base}/api/v1/webhooks/${endpoint.id}/replay  {"since": "<ISO time>"}`,
        `Recent attempts:  GET ${base}/api/v1/webhooks/${endpoint.id}/deliveries`,
      ].join('\n'),
      kind: `webhook.${status}`,
      webhookId: endpoint.id,
      createdAt: now,
    });
    this.options.logger.warn({ webhookId: endpoint.id, url: endpoint.url, status }, `webhook endpoint ${status}`);
  }
}
