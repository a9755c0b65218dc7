import type { SqlStatement as Statement } from '../store/sql.js';
import { keysetPage, type Page, type PageRequest } from '../store/pagination.js';
import type { Store } from '../store/store.js';

export type WebhookStatus = 'active' | 'paused' | 'disabled' | 'deleted';
export type MessageOrigin = 'event' | 'test' | 'replay';
export type MessageStatus = 'pending' | 'succeeded' | 'exhausted' | 'cancelled';

/** A registered receiver. `failureStreak` counts what the profile counts towards pausing/disabling. */
export interface WebhookEndpoint {
  id: string;
  workspaceId: string;
  url: string;
  events: string[];
  secret: string;
  status: WebhookStatus;
  failureStreak: number;
  createdAt: number;
  updatedAt: number;
  stoppedAt: number | null;
}

/** One event queued for one endpoint, with its retry state. */
export interface WebhookMessage {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  /** The exact body sent on every attempt (the event envelope). */
  body: string;
  origin: MessageOrigin;
  status: MessageStatus;
  attempts: number;
  maxAttempts: number;
  nextAttemptAt: number | null;
  createdAt: number;
  completedAt: number | null;
}

/** One HTTP attempt; its id is the X-Service-DeliveryId. */
export interface WebhookDelivery {
  id: string;
  messageId: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  sentAt: number;
  finishedAt: number;
  durationMs: number;
  statusCode: number | null;
  succeeded: boolean;
  error: string | null;
  retryAfterMs: number | null;
  nextAttemptAt: number | null;
}

interface EndpointRow {
  id: string;
  workspace_id: string;
  url: string;
  events: string;
  secret: string;
  status: WebhookStatus;
  failure_streak: number;
  created_at: number;
  updated_at: number;
  stopped_at: number | null;
}

interface MessageRow {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  body: string;
  origin: MessageOrigin;
  status: MessageStatus;
  attempts: number;
  max_attempts: number;
  next_attempt_at: number | null;
  created_at: number;
  completed_at: number | null;
}

interface DeliveryRow {
  id: string;
  message_id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  sent_at: number;
  finished_at: number;
  duration_ms: number;
  status_code: number | null;
  succeeded: number;
  error: string | null;
  retry_after_ms: number | null;
  next_attempt_at: number | null;
}

function endpointFrom(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    secret: row.secret,
    status: row.status,
    failureStreak: row.failure_streak,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    stoppedAt: row.stopped_at,
  };
}

function messageFrom(row: MessageRow): WebhookMessage {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    eventId: row.event_id,
    eventType: row.event_type,
    body: row.body,
    origin: row.origin,
    status: row.status,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    nextAttemptAt: row.next_attempt_at,
    createdAt: row.created_at,
    completedAt: row.completed_at,
  };
}

function deliveryFrom(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    messageId: row.message_id,
    webhookId: row.webhook_id,
    eventId: row.event_id,
    eventType: row.event_type,
    attempt: row.attempt,
    sentAt: row.sent_at,
    finishedAt: row.finished_at,
    durationMs: row.duration_ms,
    statusCode: row.status_code,
    succeeded: row.succeeded === 1,
    error: row.error,
    retryAfterMs: row.retry_after_ms,
    nextAttemptAt: row.next_attempt_at,
  };
}

export class WebhookEndpointRepository {
  constructor(private readonly store: Store) {}

  /** Compiled once per SQL text: fan-out and delivery run the same statements for every event. */
  private readonly statements = new Map<string, Statement>();
  private prepare(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.store.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  insert(endpoint: WebhookEndpoint): void {
    this.prepare(
      `INSERT INTO webhooks (id, workspace_id, url, events, secret, status, failure_streak, created_at, updated_at, stopped_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      endpoint.id,
      endpoint.workspaceId,
      endpoint.url,
      JSON.stringify(endpoint.events),
      endpoint.secret,
      endpoint.status,
      endpoint.failureStreak,
      endpoint.createdAt,
      endpoint.updatedAt,
      endpoint.stoppedAt,
    );
  }

  get(id: string): WebhookEndpoint | undefined {
    const row = this.prepare('SELECT * FROM webhooks WHERE id = ?').get(id) as EndpointRow | undefined;
    return row === undefined ? undefined : endpointFrom(row);
  }

  /** Not deleted, and of this workspace. */
  find(workspaceId: string, id: string): WebhookEndpoint | undefined {
    const found = this.get(id);
    return found !== undefined && found.workspaceId === workspaceId && found.status !== 'deleted' ? found : undefined;
  }

  active(workspaceId: string): WebhookEndpoint[] {
    return (this.prepare("SELECT * FROM webhooks WHERE workspace_id = ? AND status = 'active'").all(workspaceId) as EndpointRow[]).map(
      endpointFrom,
    );
  }

  countLive(workspaceId: string): number {
    return (
      this.prepare("SELECT COUNT(*) AS n FROM webhooks WHERE workspace_id = ? AND status != 'deleted'").get(workspaceId) as { n: number }
    ).n;
  }

  page(workspaceId: string, request: PageRequest): Page<WebhookEndpoint> {
    const page = keysetPage<EndpointRow>(this.store.db, {
      from: 'webhooks',
      where: "workspace_id = ? AND status != 'deleted'",
      params: [workspaceId],
      sortColumn: 'created_at',
      order: 'desc',
      request,
      position: (row) => ({ key: row.created_at, id: row.id }),
    });
    return { ...page, items: page.items.map(endpointFrom) };
  }

  setStatus(id: string, status: WebhookStatus, now: number): void {
    this.prepare(
      `UPDATE webhooks SET status = ?, updated_at = ?,
           stopped_at = CASE WHEN ? IN ('paused', 'disabled') THEN CAST(? AS INTEGER) ELSE NULL END,
           failure_streak = CASE WHEN ? = 'active' THEN 0 ELSE failure_streak END
         WHERE id = ?`,
    ).run(status, now, status, now, status, id);
  }

  setFailureStreak(id: string, streak: number): void {
    this.prepare('UPDATE webhooks SET failure_streak = ? WHERE id = ?').run(streak, id);
  }
}

export interface NewMessage {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  body: string;
  origin: MessageOrigin;
  maxAttempts: number;
  nextAttemptAt: number | null;
  createdAt: number;
  status?: MessageStatus;
}

export interface AttemptOutcome {
  message: WebhookMessage;
  delivery: WebhookDelivery;
  status: MessageStatus;
  nextAttemptAt: number | null;
  completedAt: number | null;
}

export class WebhookMessageRepository {
  constructor(private readonly store: Store) {}

  /** Compiled once per SQL text: fan-out and delivery run the same statements for every event. */
  private readonly statements = new Map<string, Statement>();
  private prepare(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.store.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** False when the event was already queued for this endpoint by fan-out (a catch-up after a restart). */
  insert(message: NewMessage): boolean {
    const result = this.prepare(
      `INSERT OR IGNORE INTO webhook_messages
           (id, webhook_id, event_id, event_type, body, origin, status, attempts, max_attempts, next_attempt_at, in_flight, created_at, completed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, 0, ?, NULL)`,
    ).run(
      message.id,
      message.webhookId,
      message.eventId,
      message.eventType,
      message.body,
      message.origin,
      message.status ?? 'pending',
      message.maxAttempts,
      message.nextAttemptAt,
      message.createdAt,
    );
    return result.changes === 1;
  }

  get(id: string): WebhookMessage | undefined {
    const row = this.prepare('SELECT * FROM webhook_messages WHERE id = ?').get(id) as MessageRow | undefined;
    return row === undefined ? undefined : messageFrom(row);
  }

  /** Due, pending, not in flight, for an active endpoint: marked in flight and returned, earliest first. */
  claimDue(now: number, limit: number): WebhookMessage[] {
    return this.store.transaction(() => {
      const rows = this.prepare(
        `SELECT m.* FROM webhook_messages m JOIN webhooks w ON w.id = m.webhook_id
           WHERE m.status = 'pending' AND m.in_flight = 0 AND m.next_attempt_at <= ? AND w.status = 'active'
           ORDER BY m.next_attempt_at, m.rowid LIMIT ?`,
      ).all(now, limit) as MessageRow[];
      const mark = this.prepare('UPDATE webhook_messages SET in_flight = 1 WHERE id = ?');
      for (const row of rows) mark.run(row.id);
      return rows.map(messageFrom);
    });
  }

  /** When the next attempt of an active endpoint falls due, if any. */
  earliestDue(): number | undefined {
    const row = this.prepare(
      `SELECT MIN(m.next_attempt_at) AS at FROM webhook_messages m JOIN webhooks w ON w.id = m.webhook_id
         WHERE m.status = 'pending' AND m.in_flight = 0 AND w.status = 'active'`,
    ).get() as { at: number | null };
    return row.at ?? undefined;
  }

  /** After a restart nothing is in flight: those attempts never finished and are sent again. */
  releaseInFlight(): number {
    return this.prepare('UPDATE webhook_messages SET in_flight = 0 WHERE in_flight = 1').run().changes;
  }

  recordAttempt(outcome: AttemptOutcome): void {
    const d = outcome.delivery;
    this.prepare(
      `INSERT INTO webhook_deliveries (id, message_id, webhook_id, event_id, event_type, attempt, sent_at, finished_at, duration_ms,
           status_code, succeeded, error, retry_after_ms, next_attempt_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      d.id,
      d.messageId,
      d.webhookId,
      d.eventId,
      d.eventType,
      d.attempt,
      d.sentAt,
      d.finishedAt,
      d.durationMs,
      d.statusCode,
      d.succeeded ? 1 : 0,
      d.error,
      d.retryAfterMs,
      d.nextAttemptAt,
    );
    this.prepare(
      'UPDATE webhook_messages SET attempts = ?, status = ?, next_attempt_at = ?, completed_at = ?, in_flight = 0 WHERE id = ?',
    ).run(d.attempt, outcome.status, outcome.nextAttemptAt, outcome.completedAt, outcome.message.id);
  }

  /** A message that was claimed but whose endpoint went away meanwhile. */
  release(id: string): void {
    this.prepare('UPDATE webhook_messages SET in_flight = 0 WHERE id = ?').run(id);
  }

  /** Pending messages of an endpoint overdue at `now` become due now (after enable). Returns how many. */
  resumeOverdue(webhookId: string, now: number): number {
    return this.prepare(
      "UPDATE webhook_messages SET next_attempt_at = ? WHERE webhook_id = ? AND status = 'pending' AND next_attempt_at < ?",
    ).run(now, webhookId, now).changes;
  }

  cancelPending(webhookId: string, now: number): number {
    return this.prepare(
      "UPDATE webhook_messages SET status = 'cancelled', completed_at = ?, next_attempt_at = NULL WHERE webhook_id = ? AND status = 'pending'",
    ).run(now, webhookId).changes;
  }

  /** Event ids of the endpoint that were delivered or are still on their way (recover skips those). */
  deliveredOrPending(webhookId: string, eventIds: readonly string[]): Set<string> {
    const found = new Set<string>();
    const query = this.prepare(
      "SELECT 1 FROM webhook_messages WHERE webhook_id = ? AND event_id = ? AND status IN ('succeeded', 'pending') LIMIT 1",
    );
    for (const id of eventIds) if (query.get(webhookId, id) !== undefined) found.add(id);
    return found;
  }

  pendingCount(webhookId: string): number {
    return (
      this.prepare("SELECT COUNT(*) AS n FROM webhook_messages WHERE webhook_id = ? AND status = 'pending'").get(webhookId) as {
        n: number;
      }
    ).n;
  }

  deliveriesPage(webhookId: string, request: PageRequest, eventId?: string): Page<WebhookDelivery> {
    const page = keysetPage<DeliveryRow>(this.store.db, {
      from: 'webhook_deliveries',
      where: eventId === undefined ? 'webhook_id = ?' : 'webhook_id = ? AND event_id = ?',
      params: eventId === undefined ? [webhookId] : [webhookId, eventId],
      sortColumn: 'sent_at',
      order: 'desc',
      request,
      position: (row) => ({ key: row.sent_at, id: row.id }),
    });
    return { ...page, items: page.items.map(deliveryFrom) };
  }

  deliveriesOf(messageId: string): WebhookDelivery[] {
    return (this.prepare('SELECT * FROM webhook_deliveries WHERE message_id = ? ORDER BY attempt').all(messageId) as DeliveryRow[]).map(
      deliveryFrom,
    );
  }

  messagesOf(webhookId: string): WebhookMessage[] {
    return (this.prepare('SELECT * FROM webhook_messages WHERE webhook_id = ? ORDER BY rowid').all(webhookId) as MessageRow[]).map(
      messageFrom,
    );
  }

  /**
   * Retention: finished messages and their deliveries older than `cutoff` go; messages still held for a paused
   * endpoint beyond it are cancelled (their events left the replay window too).
   */
  purgeBefore(cutoff: number): { messages: number; deliveries: number; expired: number } {
    return this.store.transaction(() => {
      const expired = this.prepare(
        "UPDATE webhook_messages SET status = 'cancelled', completed_at = ?, next_attempt_at = NULL WHERE status = 'pending' AND created_at < ?",
      ).run(cutoff, cutoff).changes;
      const deliveries = this.prepare(
        `DELETE FROM webhook_deliveries WHERE message_id IN
             (SELECT id FROM webhook_messages WHERE status != 'pending' AND completed_at < ?)`,
      ).run(cutoff).changes;
      const messages = this.prepare("DELETE FROM webhook_messages WHERE status != 'pending' AND completed_at < ?").run(cutoff).changes;
      return { messages, deliveries, expired };
    });
  }

  fanOutCursor(): number {
    return (this.prepare('SELECT seq FROM webhook_fanout_cursor WHERE id = 1').get() as { seq: number } | undefined)?.seq ?? 0;
  }

  advanceFanOutCursor(seq: number): void {
    this.prepare(
      'INSERT INTO webhook_fanout_cursor (id, seq) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET seq = MAX(webhook_fanout_cursor.seq, excluded.seq)',
    ).run(seq);
  }
}
