import type { MigrationSet } from '../store/migrations.js';

/**
 * Endpoints, messages (one event queued for one endpoint: its retry state) and deliveries (one HTTP attempt,
 * whose id is the X-Service-DeliveryId), the fan-out cursor into the outbox, and the sandbox mailbox.
 */
export const webhookMigrations: MigrationSet = {
  module: 'webhooks',
  migrations: [
    {
      name: '001_webhooks',
      up: (db) =>
        db.exec(`
          CREATE TABLE webhooks (
            id TEXT PRIMARY KEY,
            workspace_id TEXT NOT NULL,
            url TEXT NOT NULL,
            events TEXT NOT NULL,
            secret TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('active', 'paused', 'disabled', 'deleted')),
            failure_streak INTEGER NOT NULL DEFAULT 0,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            stopped_at INTEGER
          );
          CREATE INDEX webhooks_by_workspace ON webhooks (workspace_id, status, created_at);

          CREATE TABLE webhook_messages (
            id TEXT PRIMARY KEY,
            webhook_id TEXT NOT NULL REFERENCES webhooks (id),
            event_id TEXT NOT NULL,
            event_type TEXT NOT NULL,
            body TEXT NOT NULL,
            origin TEXT NOT NULL CHECK (origin IN ('event', 'test', 'replay')),
            status TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'exhausted', 'cancelled')),
            attempts INTEGER NOT NULL DEFAULT 0,
            max_attempts INTEGER NOT NULL,
            next_attempt_at INTEGER,
            in_flight INTEGER NOT NULL DEFAULT 0,
            created_at INTEGER NOT NULL,
            completed_at INTEGER
          );
          CREATE INDEX webhook_messages_due ON webhook_messages (next_attempt_at) WHERE status = 'pending';
          CREATE INDEX webhook_messages_by_webhook ON webhook_messages (webhook_id, created_at);
          CREATE INDEX webhook_messages_by_event ON webhook_messages (webhook_id, event_id);
          CREATE UNIQUE INDEX webhook_messages_fanned_out ON webhook_messages (webhook_id, event_id) WHERE origin = 'event';

          CREATE TABLE webhook_deliveries (
            id TEXT PRIMARY KEY,
            message_id TEXT NOT NULL REFERENCES webhook_messages (id),
            webhook_id TEXT NOT NULL,
            event_id TEXT NOT NULL,
            event_type TEXT NOT NULL,
            attempt INTEGER NOT NULL,
            sent_at INTEGER NOT NULL,
            finished_at INTEGER NOT NULL,
            duration_ms INTEGER NOT NULL,
            status_code INTEGER,
            succeeded INTEGER NOT NULL,
            error TEXT,
            retry_after_ms INTEGER,
            next_attempt_at INTEGER
          );
          CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, sent_at);
          CREATE INDEX webhook_deliveries_by_message ON webhook_deliveries (message_id, attempt);

          CREATE TABLE webhook_fanout_cursor (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            seq INTEGER NOT NULL
          );

          CREATE TABLE mailbox (
            id TEXT PRIMARY KEY,
            workspace_id TEXT NOT NULL,
            recipient TEXT NOT NULL,
            subject TEXT NOT NULL,
            body TEXT NOT NULL,
            kind TEXT NOT NULL,
            webhook_id TEXT,
            created_at INTEGER NOT NULL
          );
          CREATE INDEX mailbox_by_workspace ON mailbox (workspace_id, created_at);
        `),
    },
  ],
};
