import type { Command } from 'commander';
import { action, type GlobalOptions, type Output } from '../output.js';
import { sandboxApi } from '../sandbox-api.js';

/** One notification the sandbox would have emailed (an endpoint paused or disabled). */
export interface MailboxItem {
  id: string;
  to: string;
  subject: string;
  body: string;
  kind: string;
  webhookId: string | null;
  createdAt: string;
}

/** The sandbox mailbox, newest first. */
export async function readMailbox(stateDir: string, limit = 25): Promise<MailboxItem[]> {
  const { data } = await sandboxApi<{ data: MailboxItem[] }>(stateDir, 'GET', `/api/v1/sandbox/mailbox?limit=${limit}`);
  return data.data;
}

export function formatMail(items: MailboxItem[]): string {
  if (items.length === 0) return 'The mailbox is empty.';
  return items
    .map((mail) =>
      [`From: settlement sandbox   To: ${mail.to}`, `Date: ${mail.createdAt}`, `Subject: ${mail.subject}`, '', mail.body].join('\n'),
    )
    .join('\n\n' + '─'.repeat(60) + '\n\n');
}

export function register(program: Command): void {
  program
    .command('mailbox')
    .description('read the notifications the sandbox would have emailed (webhook endpoints paused or disabled)')
    .option('--limit <n>', 'how many, newest first (1 to 100)', (v) => Number(v), 25)
    .action(action(mailbox, { docsPath: 'docs/realtime-and-webhooks.md' }));
}

async function mailbox(output: Output, globals: GlobalOptions, flags: { limit: number }): Promise<void> {
  const items = await readMailbox(globals.stateDir, flags.limit);
  output.result(() => formatMail(items), items);
}
