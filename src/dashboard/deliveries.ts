/**
 * Webhook deliveries of an order's events. The service lists attempts per endpoint (`GET
 * /api/v1/webhooks/{id}/deliveries`, one row per attempt); the page groups them per (endpoint, event): attempts,
 * the receiver's answers, and when the next retry is due. Pure.
 */
import { parseTime } from './format.js';
import { list, num, str } from './read.js';

export interface DeliveryAttempt {
  attempt: number;
  at?: number;
  /** HTTP status the receiver answered; absent when it did not answer (timeout, refused). */
  status?: number;
  error?: string;
  durationMs?: number;
  succeeded: boolean;
}

export interface DeliveryView {
  /** `<webhookId>/<eventId>` */
  key: string;
  webhookId: string;
  url?: string;
  eventId: string;
  eventType?: string;
  state: 'delivered' | 'retrying' | 'failed';
  attempts: DeliveryAttempt[];
  nextRetryAt?: number;
}

interface AttemptRow extends DeliveryAttempt {
  eventId: string;
  eventType?: string;
  nextAttemptAt?: number;
}

function attemptRow(item: unknown): AttemptRow | undefined {
  const eventId = str(item, 'eventId');
  if (eventId === undefined) return undefined;
  const row: AttemptRow = { eventId, attempt: num(item, 'attempt') ?? 1, succeeded: (item as { succeeded?: unknown }).succeeded === true };
  const fields = {
    eventType: str(item, 'eventType'),
    at: parseTime((item as { sentAt?: unknown }).sentAt),
    status: num(item, 'statusCode', 'status'),
    error: str(item, 'error'),
    durationMs: num(item, 'durationMs'),
    nextAttemptAt: parseTime((item as { nextAttemptAt?: unknown }).nextAttemptAt),
  };
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) (row as unknown as Record<string, unknown>)[name] = value;
  return row;
}

/** Groups one endpoint's attempt rows (any order) into deliveries, keeping only the events asked for. */
export function deliveriesFromAttempts(
  webhook: { webhookId: string; url?: string },
  body: unknown,
  eventIds?: ReadonlySet<string>,
): DeliveryView[] {
  const byEvent = new Map<string, AttemptRow[]>();
  for (const row of list(body, 'data').flatMap((item) => attemptRow(item) ?? [])) {
    if (eventIds !== undefined && !eventIds.has(row.eventId)) continue;
    byEvent.set(row.eventId, [...(byEvent.get(row.eventId) ?? []), row]);
  }
  return [...byEvent.entries()].map(([eventId, rows]) => {
    rows.sort((a, b) => a.attempt - b.attempt);
    const last = rows.at(-1)!;
    const state = rows.some((row) => row.succeeded) ? 'delivered' : last.nextAttemptAt !== undefined ? 'retrying' : 'failed';
    const delivery: DeliveryView = {
      key: `${webhook.webhookId}/${eventId}`,
      webhookId: webhook.webhookId,
      eventId,
      state,
      attempts: rows.map(({ eventId: _e, eventType: _t, nextAttemptAt: _n, ...attempt }) => attempt),
    };
    if (webhook.url !== undefined) delivery.url = webhook.url;
    const eventType = rows.find((row) => row.eventType !== undefined)?.eventType;
    if (eventType !== undefined) delivery.eventType = eventType;
    if (state === 'retrying') delivery.nextRetryAt = last.nextAttemptAt!;
    return delivery;
  });
}
