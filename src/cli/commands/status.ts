import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { sandboxStatus } from '../../sandbox/daemon.js';
import { instancesFile, type InstanceStatus } from '../../sandbox/service-cluster.js';
import { stateLayout } from '../../devnet/state-dir.js';
import { commandFor } from '../hints.js';
import { action, dim, green, red, table, type GlobalOptions, type Output } from '../output.js';

export function register(program: Command): void {
  program
    .command('status')
    .description('report whether the sandbox of the state folder runs and whether its chains answer')
    .action(action(status));
}

/** Exit code 0 when the sandbox runs and every chain answers, 1 otherwise (scripts can wait on it). */
async function status(output: Output, globals: GlobalOptions): Promise<void> {
  const layout = stateLayout(globals.stateDir);
  const report = await sandboxStatus(layout.root);
  const healthy = report.running && report.chains.length > 0 && report.chains.every((c) => c.answering);
  if (!healthy) process.exitCode = 1;
  const { manifest, ...rest } = report;
  // `sandbox up --instances N`: which service processes run, and which one holds the singleton work.
  const instances = report.running && manifest?.api?.instances !== undefined ? readInstances(layout.root) : undefined;
  output.result(
    () => {
      if (!report.running) {
        return (
          `No sandbox is running on ${report.stateDir}.` +
          (report.stale
            ? dim(`\nIts last run was killed; the next \`${commandFor(globals.stateDir, 'up')}\` takes the folder over.`)
            : '') +
          (manifest ? dim(`\nThe last run's manifest is ${layout.manifest}.`) : '')
        );
      }
      const rows = report.chains.map((c) => [
        c.name,
        String(c.chainId),
        c.rpcUrl,
        c.answering ? green(`block ${c.blockNumber}`) : red(`not answering: ${c.error ?? '?'}`),
      ]);
      const service =
        instances === undefined
          ? ''
          : `\nService instances (${instances.length}): ${instances
              .map((instance) => `pid ${instance.pid}${instance.singleton ? ' (singleton work)' : ''}`)
              .join(', ')}`;
      return `Sandbox running (pid ${report.pid}, since ${report.startedAt}), state ${report.stateDir}\n${table(rows)}${service}`;
    },
    { ...rest, healthy, manifestPath: manifest ? layout.manifest : undefined, ...(instances === undefined ? {} : { instances }) },
  );
}

function readInstances(stateDir: string): InstanceStatus[] {
  try {
    return JSON.parse(readFileSync(instancesFile(stateDir), 'utf8')) as InstanceStatus[];
  } catch {
    return [];
  }
}
