import { newId } from '../store/ids.js';
import { keysetPage, type Page, type PageRequest } from '../store/pagination.js';
import type { Store } from '../store/store.js';

/**
 * The sandbox's outgoing mail: notifications the service would email (an endpoint paused or disabled) are
 * written here instead, readable with `sandbox mailbox` and `GET /api/v1/sandbox/mailbox`. A production
 * deployment writes them here too and logs them; wiring a mail transport is the operator's choice.
 */
export interface MailboxMessage {
  id: string;
  workspaceId: string;
  recipient: string;
  subject: string;
  body: string;
  /** e.g. `webhook.paused`, `webhook.disabled`. */
  kind: string;
  webhookId: string | null;
  createdAt: number;
}

interface MailRow {
  id: string;
  workspace_id: string;
  recipient: string;
  subject: string;
  body: string;
  kind: string;
  webhook_id: string | null;
  created_at: number;
}

function mailFrom(row: MailRow): MailboxMessage {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    recipient: row.recipient,
    subject: row.subject,
    body: row.body,
    kind: row.kind,
    webhookId: row.webhook_id,
    createdAt: row.created_at,
  };
}

export class Mailbox {
  constructor(private readonly store: Store) {}

  /** Call inside the transaction of the change it reports. */
  send(mail: Omit<MailboxMessage, 'id'>): MailboxMessage {
    const message: MailboxMessage = { id: newId('mail'), ...mail };
    this.store.db
      .prepare(
        'INSERT INTO mailbox (id, workspace_id, recipient, subject, body, kind, webhook_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        message.id,
        message.workspaceId,
        message.recipient,
        message.subject,
        message.body,
        message.kind,
        message.webhookId,
        message.createdAt,
      );
    return message;
  }

  page(workspaceId: string, request: PageRequest): Page<MailboxMessage> {
    const page = keysetPage<MailRow>(this.store.db, {
      from: 'mailbox',
      where: 'workspace_id = ?',
      params: [workspaceId],
      sortColumn: 'created_at',
      order: 'desc',
      request,
      position: (row) => ({ key: row.created_at, id: row.id }),
    });
    return { ...page, items: page.items.map(mailFrom) };
  }

  all(workspaceId: string): MailboxMessage[] {
    return (
      this.store.db.prepare('SELECT * FROM mailbox WHERE workspace_id = ? ORDER BY created_at, rowid').all(workspaceId) as MailRow[]
    ).map(mailFrom);
  }
}
