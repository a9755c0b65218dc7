import type { ScenarioContext } from '../core/context.js';
import { fail } from '../core/errors.js';
import type { ResponsePattern, Step } from '../core/scenario.js';
import type { DeliveryAttempt } from '../../src/contracts/wire/webhooks.js';

export interface WebhookState {
  webhookId: string;
  status: 'active' | 'paused' | 'disabled';
  active: boolean;
  failureStreak: number;
  pendingMessages: number;
  stoppedAt: string | null;
}

export type DeliveryRecord = DeliveryAttempt;

function webhookIdOf(context: ScenarioContext, receiver: string): string {
  return context.receiver(receiver).webhookId ?? fail(`receiver ${receiver} is not registered`);
}

/** `GET /api/v1/webhooks/{id}` of a receiver's endpoint. */
export function webhookState(context: ScenarioContext, receiver: string): Promise<WebhookState> {
  return context.rest.request('GET', `/api/v1/webhooks/${webhookIdOf(context, receiver)}`);
}

/** Every attempt the service recorded for a receiver's endpoint (all pages), oldest first. */
export async function deliveries(context: ScenarioContext, receiver: string, eventId?: string): Promise<DeliveryRecord[]> {
  const all: DeliveryRecord[] = [];
  let after: string | null = null;
  do {
    const query = new URLSearchParams({ limit: '100' });
    if (eventId !== undefined) query.set('eventId', eventId);
    if (after !== null) query.set('after', after);
    const page: { data: DeliveryRecord[]; next_cursor: string | null } = await context.rest.request(
      'GET',
      `/api/v1/webhooks/${webhookIdOf(context, receiver)}/deliveries?${query}`,
    );
    all.push(...page.data);
    after = page.next_cursor;
  } while (after !== null);
  return all.reverse();
}

/** Changes how a receiver answers from now on. */
export function respondWith(receiver: string, describe: string, pattern: ResponsePattern): Step {
  return {
    title: `receiver ${receiver} now answers ${describe}`,
    async run(context) {
      context.receiver(receiver).respondWith(pattern);
    },
  };
}

/** `POST /v1/webhooks/{id}/enable` (the spec's path): a paused endpoint is active again. */
export function enableWebhook(receiver: string): Step {
  return {
    title: `enable the endpoint of ${receiver}`,
    async run(context) {
      const state = await context.rest.request<WebhookState>('POST', `/v1/webhooks/${webhookIdOf(context, receiver)}/enable`);
      if (!state.active) fail(`enable answered an inactive endpoint: ${state.status}`);
      return `${state.status}, ${state.pendingMessages} held message(s) resume`;
    },
  };
}

/** `POST /api/v1/webhooks/{id}/replay` with a body computed from earlier results. */
export function replayWebhook(receiver: string, body: (context: ScenarioContext) => Record<string, unknown>): Step {
  return {
    title: `replay missed events to ${receiver}`,
    async run(context) {
      const answer = await context.rest.request<{ replayed: number; skipped: number }>(
        'POST',
        `/api/v1/webhooks/${webhookIdOf(context, receiver)}/replay`,
        body(context),
      );
      context.values.set(`${receiver}:replay`, answer);
      return `${answer.replayed} replayed, ${answer.skipped} skipped`;
    },
  };
}
