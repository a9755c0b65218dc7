import type { Command } from 'commander';
import { action, bold, dim, type GlobalOptions, type Output, UsageError } from '../output.js';

/**
 * `sandbox trigger <event-type|flow>`: makes the sandbox emit an event by running the real flow behind it (like
 * `stripe trigger`), in the sandbox's own workspace: the order shows on the dashboard, the taker WebSocket and at
 * `sandbox webhooks listen`. `--list` names every flow and the events it emits.
 */
export function register(program: Command): void {
  program
    .command('trigger')
    .description('run the real flow that emits an event (order.settled, order.refunded, …) in the sandbox')
    .argument('[event]', 'an event type or flow name (see --list)')
    .option('--list', 'list the flows and the events each emits')
    .action(action(trigger, { docsPath: 'README.md#commands' }));
}

async function trigger(output: Output, globals: GlobalOptions, name: string | undefined, flags: { list?: boolean }): Promise<void> {
  const flows = await import('../../api/flows/triggers.js');
  if (flags.list === true || name === undefined) {
    if (name === undefined && flags.list !== true)
      throw new UsageError(`trigger: name an event or flow (${flows.triggerNames().join(', ')})`);
    const rows = flows.describeTriggers();
    output.result(
      () => rows.map((row) => `${bold(row.name.padEnd(16))} ${row.events.join(' → ').padEnd(30)} ${dim(row.summary)}`).join('\n'),
      {
        triggers: rows,
      },
    );
    return;
  }
  if (!flows.triggerNames().includes(name)) {
    throw new UsageError(`trigger: "${name}" is not a flow this sandbox can run; one of ${flows.triggerNames().join(', ')}`);
  }
  const result = await flows.runTrigger(globals.stateDir, name, (step) => output.progress(`${step.step}: ${step.detail}`));
  output.result(
    () =>
      `${bold(result.trigger)}: order ${result.orderId} ${result.status}; events ${result.events.join(', ')}\n  ${dim(`dashboard: ${result.dashboard}`)}`,
    result,
  );
}
