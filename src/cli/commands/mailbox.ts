import type { Command } from 'commander';
import { DEFAULT_STATE_DIR, runCommand, sandboxApi, type CommandOptions } from './keys.js';

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
    .option('--state-dir <dir>', 'sandbox state folder holding sandbox.json', DEFAULT_STATE_DIR)
    .option('--json', 'print JSON for scripts')
    .action(async (_options: unknown, command: Command) => {
      const options = command.optsWithGlobals<CommandOptions & { limit: number }>();
      await runCommand(options, () => readMailbox(options.stateDir, options.limit), formatMail);
    });
}
