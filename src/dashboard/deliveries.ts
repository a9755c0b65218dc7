/** Webhook deliveries of an order's events: attempts, the receiver's answers and the next retry. Pure. */
import { parseTime } from './format.js';
import { list, num, obj, str } from './read.js';

export interface DeliveryAttempt {
  at?: number;
  /** HTTP status the receiver answered, if it answered. */
  status?: number;
  error?: string;
  durationMs?: number;
}

export interface DeliveryView {
  id: string;
  webhookId?: string;
  url?: string;
  eventId?: string;
  eventType?: string;
  /** `pending`, `succeeded`, `failed`, … as the service names it. */
  state?: string;
  attempts: DeliveryAttempt[];
  attemptCount: number;
  nextRetryAt?: number;
}

function attemptFrom(item: unknown): DeliveryAttempt {
  const attempt: DeliveryAttempt = {};
  const at = parseTime((item as { at?: unknown; attemptedAt?: unknown }).at ?? (item as { attemptedAt?: unknown }).attemptedAt);
  if (at !== undefined) attempt.at = at;
  const status = num(item, 'status', 'statusCode', 'responseStatus');
  if (status !== undefined) attempt.status = status;
  const error = str(item, 'error', 'errorMessage');
  if (error !== undefined) attempt.error = error;
  const durationMs = num(item, 'durationMs', 'latencyMs');
  if (durationMs !== undefined) attempt.durationMs = durationMs;
  return attempt;
}

export function deliveriesFrom(body: unknown): DeliveryView[] {
  return list(body, 'data', 'deliveries').flatMap((item) => {
    const id = str(item, 'deliveryId', 'id');
    if (id === undefined) return [];
    const attempts = list(item, 'attempts').map(attemptFrom);
    const last = obj(item, 'lastAttempt', 'lastResponse');
    if (attempts.length === 0 && last !== undefined) attempts.push(attemptFrom(last));
    const delivery: DeliveryView = { id, attempts, attemptCount: num(item, 'attemptCount', 'attempts') ?? attempts.length };
    const webhookId = str(item, 'webhookId', 'endpointId');
    if (webhookId !== undefined) delivery.webhookId = webhookId;
    const url = str(item, 'url');
    if (url !== undefined) delivery.url = url;
    const event = obj(item, 'event');
    const eventId = str(item, 'eventId') ?? str(event, 'id');
    if (eventId !== undefined) delivery.eventId = eventId;
    const eventType = str(item, 'eventType', 'type') ?? str(event, 'type');
    if (eventType !== undefined) delivery.eventType = eventType;
    const state = str(item, 'state', 'status');
    if (state !== undefined) delivery.state = state;
    const nextRetryAt = parseTime((item as { nextRetryAt?: unknown; nextAttemptAt?: unknown }).nextRetryAt ?? (item as { nextAttemptAt?: unknown }).nextAttemptAt);
    if (nextRetryAt !== undefined) delivery.nextRetryAt = nextRetryAt;
    return [delivery];
  });
}
