import { randomBytes } from 'node:crypto';
import type { Clock } from '../../clock/index.js';
import { EventPatternSet } from '../events/event-pattern.js';
import type { OutboxRepository } from '../events/outbox.js';
import { ConflictError, InvalidRequestError, NotFoundError, ValidationError } from '../errors/api-errors.js';
import { newId } from '../store/ids.js';
import type { PageRequest } from '../store/pagination.js';
import type { Store } from '../store/store.js';
import type { DeliveryDispatcher } from './dispatcher.js';
import type { WebhookDelivery, WebhookEndpoint, WebhookEndpointRepository, WebhookMessageRepository } from './repository.js';
import { totalAttempts } from './schedule.js';
import { UrlRefused, type WebhookUrlPolicy } from './url-policy.js';

const DAY = 86_400_000;
/** Events stay replayable this long (the spec's 7-day storage). */
export const RETENTION_MS = 7 * DAY;
export const MAX_WEBHOOKS_PER_WORKSPACE = 50;
export const MAX_REPLAY_EVENTS = 1_000;

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function generateSecret(environment: 'sandbox' | 'production'): string {
  const bytes = randomBytes(32);
  let text = '';
  for (const byte of bytes) text += BASE62[byte % 62];
  return `whsec_${environment === 'production' ? 'live' : 'test'}_${text}`;
}

export interface CreateWebhookInput {
  url: string;
  events: string[];
  secret?: string | undefined;
}

export interface ReplayInput {
  since?: number | undefined;
  until?: number | undefined;
  eventIds?: string[] | undefined;
  /** Resend events already delivered too (Stripe's resend); default only undelivered ones (Svix's recover). */
  includeDelivered?: boolean | undefined;
}

export interface ReplayResult {
  webhookId: string;
  replayed: number;
  skipped: number;
  eventIds: string[];
  since: number | undefined;
  until: number | undefined;
  /** More events fall in the window than one call replays; call again with `since` = `nextSince`. */
  truncated: boolean;
  nextSince: number | undefined;
}

/**
 * Webhook endpoints as the API sees them: registration under the URL policy, listing, deletion, the test event,
 * re-enabling, replay of stored events and the attempt log. Express-free; the routes adapt it.
 */
export class WebhookEndpoints {
  constructor(
    private readonly deps: {
      clock: Clock;
      store: Store;
      environment: 'sandbox' | 'production';
      endpoints: WebhookEndpointRepository;
      messages: WebhookMessageRepository;
      outbox: OutboxRepository;
      dispatcher: DeliveryDispatcher;
      policy: WebhookUrlPolicy;
    },
  ) {}

  async create(workspaceId: string, input: CreateWebhookInput): Promise<WebhookEndpoint> {
    let url: string;
    try {
      url = await this.deps.policy.check(input.url);
    } catch (error) {
      if (!(error instanceof UrlRefused)) throw error;
      const details = { code: 'url_not_allowed', param: 'url', message: `url ${error.message}.` };
      throw error.kind === 'malformed' ? new InvalidRequestError(details) : new ValidationError(details);
    }
    if (this.deps.endpoints.countLive(workspaceId) >= MAX_WEBHOOKS_PER_WORKSPACE) {
      throw new ValidationError({
        code: 'webhook_limit_reached',
        message: `A workspace has at most ${MAX_WEBHOOKS_PER_WORKSPACE} webhook endpoints; delete one first.`,
      });
    }
    const now = this.deps.clock.now();
    const endpoint: WebhookEndpoint = {
      id: newId('wh'),
      workspaceId,
      url,
      events: [...new Set(input.events)],
      secret: input.secret ?? generateSecret(this.deps.environment),
      status: 'active',
      failureStreak: 0,
      createdAt: now,
      updatedAt: now,
      stoppedAt: null,
    };
    this.deps.endpoints.insert(endpoint);
    return endpoint;
  }

  list(workspaceId: string, request: PageRequest) {
    return this.deps.endpoints.page(workspaceId, request);
  }

  get(workspaceId: string, id: string): WebhookEndpoint {
    const endpoint = this.deps.endpoints.find(workspaceId, id);
    if (endpoint === undefined) {
      throw new NotFoundError({ code: 'resource_not_found', param: 'webhookId', message: `No webhook ${id} in this workspace.` });
    }
    return endpoint;
  }

  pendingCount(id: string): number {
    return this.deps.messages.pendingCount(id);
  }

  delete(workspaceId: string, id: string): WebhookEndpoint {
    const endpoint = this.get(workspaceId, id);
    const now = this.deps.clock.now();
    this.deps.store.transaction(() => {
      this.deps.endpoints.setStatus(id, 'deleted', now);
      this.deps.messages.cancelPending(id, now);
    });
    this.deps.dispatcher.arm();
    return { ...endpoint, status: 'deleted' };
  }

  /** Re-activates a paused or disabled endpoint; its held messages resume (overdue ones at once). */
  enable(workspaceId: string, id: string): WebhookEndpoint {
    const endpoint = this.get(workspaceId, id);
    if (endpoint.status === 'active') return endpoint;
    const now = this.deps.clock.now();
    this.deps.store.transaction(() => {
      this.deps.endpoints.setStatus(id, 'active', now);
      this.deps.messages.resumeOverdue(id, now);
    });
    this.deps.dispatcher.arm();
    return this.get(workspaceId, id);
  }

  /**
   * Sends a `webhook.test` event once, now, whatever the endpoint's state, and answers with the attempt. Test
   * events are not retried and do not count towards pausing.
   */
  async test(workspaceId: string, id: string): Promise<{ eventId: string; delivery: WebhookDelivery }> {
    const endpoint = this.get(workspaceId, id);
    const now = this.deps.clock.now();
    const eventId = newId('evt');
    const body = JSON.stringify({
      type: 'webhook.test',
      id: eventId,
      timestamp: new Date(now).toISOString(),
      webhook: { id: endpoint.id, url: endpoint.url },
    });
    const messageId = newId('msg');
    this.deps.messages.insert({
      id: messageId,
      webhookId: endpoint.id,
      eventId,
      eventType: 'webhook.test',
      body,
      origin: 'test',
      maxAttempts: 1,
      nextAttemptAt: null,
      createdAt: now,
    });
    const delivery = await this.deps.dispatcher.sendNow(messageId);
    if (delivery === undefined) throw new ConflictError({ code: 'webhook_not_active', message: 'The endpoint was deleted meanwhile.' });
    return { eventId, delivery };
  }

  /**
   * Queues stored events again for this endpoint, with their original ids and bodies and a fresh retry
   * schedule: by default those of a time window that never reached it (recover), or the named events.
   */
  replay(workspaceId: string, id: string, input: ReplayInput): ReplayResult {
    const endpoint = this.get(workspaceId, id);
    if (endpoint.status !== 'active') {
      throw new ConflictError({
        code: 'webhook_not_active',
        message: `The endpoint is ${endpoint.status}; enable it first (POST /v1/webhooks/${id}/enable).`,
      });
    }
    const now = this.deps.clock.now();
    const oldest = now - RETENTION_MS;
    const patterns = new EventPatternSet(endpoint.events);
    let candidates: NonNullable<ReturnType<typeof this.deps.outbox.byId>>[];
    let truncated = false;
    const since = input.since;
    let until = input.until;
    if (input.eventIds !== undefined) {
      if (input.since !== undefined || input.until !== undefined) {
        throw new InvalidRequestError({
          code: 'parameter_invalid',
          param: 'eventIds',
          message: 'Pass either eventIds or a since/until window, not both.',
        });
      }
      candidates = input.eventIds.map((eventId, index) => {
        const event = this.deps.outbox.byId(eventId);
        if (event === undefined || event.workspaceId !== workspaceId) {
          throw new NotFoundError({
            code: 'resource_not_found',
            param: `eventIds.${index}`,
            message: `No event ${eventId} in this workspace.`,
          });
        }
        if (event.createdAt < oldest) {
          throw new ValidationError({
            code: 'replay_window_exceeded',
            param: `eventIds.${index}`,
            message: 'Events are replayable for 7 days.',
          });
        }
        if (!patterns.matches(event.envelope.type)) {
          throw new ValidationError({
            code: 'event_not_subscribed',
            param: `eventIds.${index}`,
            message: `The endpoint does not subscribe to ${event.envelope.type} events.`,
          });
        }
        return event;
      });
    } else {
      if (since === undefined)
        throw new InvalidRequestError({ code: 'parameter_missing', param: 'since', message: 'Pass `since` (ISO time) or `eventIds`.' });
      until ??= now;
      if (since < oldest) {
        throw new ValidationError({
          code: 'replay_window_exceeded',
          param: 'since',
          message: 'Events are replayable for 7 days; `since` is older.',
        });
      }
      // Clock-relative like the 7-day bound: a window reaching past the sandbox clock's now is a business-rule refusal
      // (422), not a malformed request; the document cannot know the clock.
      if (since > now)
        throw new ValidationError({
          code: 'replay_window_exceeded',
          param: 'since',
          message: '`since` is in the future (by the service clock).',
        });
      if (until > now)
        throw new ValidationError({
          code: 'replay_window_exceeded',
          param: 'until',
          message: '`until` is in the future (by the service clock).',
        });
      if (since > until) throw new InvalidRequestError({ code: 'parameter_invalid', param: 'since', message: '`since` is after `until`.' });
      const found = this.deps.outbox
        .forWorkspaceBetween(workspaceId, since, until, 100_000)
        .filter((event) => patterns.matches(event.envelope.type));
      truncated = found.length > MAX_REPLAY_EVENTS;
      candidates = found.slice(0, MAX_REPLAY_EVENTS);
    }
    const skip =
      input.includeDelivered === true
        ? new Set<string>()
        : this.deps.messages.deliveredOrPending(
            endpoint.id,
            candidates.map((event) => event.envelope.id),
          );
    const chosen = candidates.filter((event) => !skip.has(event.envelope.id));
    const maxAttempts = totalAttempts(this.deps.dispatcher.profile);
    this.deps.store.transaction(() => {
      for (const event of chosen) {
        this.deps.messages.insert({
          id: newId('msg'),
          webhookId: endpoint.id,
          eventId: event.envelope.id,
          eventType: event.envelope.type,
          body: event.json,
          origin: 'replay',
          maxAttempts,
          nextAttemptAt: now,
          createdAt: now,
        });
      }
    });
    if (chosen.length > 0) this.deps.dispatcher.arm();
    const last = candidates.at(-1);
    return {
      webhookId: endpoint.id,
      replayed: chosen.length,
      skipped: candidates.length - chosen.length,
      eventIds: chosen.map((event) => event.envelope.id),
      since,
      until,
      truncated,
      nextSince: truncated && last !== undefined ? last.createdAt : undefined,
    };
  }

  deliveries(workspaceId: string, id: string, request: PageRequest, eventId?: string) {
    this.get(workspaceId, id);
    return this.deps.messages.deliveriesPage(id, request, eventId);
  }
}
