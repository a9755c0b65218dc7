import type { Command } from 'commander';
import type { FlowStep } from '../../api/flows/flow-session.js';
import { action, bold, dim, type GlobalOptions, green, type Output, UsageError } from '../output.js';

const NAMES = ['refund', 'attestation', 'retries'] as const;

/**
 * `sandbox demo refund|attestation|retries`: a real flow in the sandbox's own workspace, told step by step as it
 * happens, with the dashboard's journey of the order. The story is what people came for, so it is the command's
 * output (stdout); with `--json` stdout holds the one result and each step is a progress line on stderr.
 */
export function register(program: Command): void {
  program
    .command('demo')
    .description('narrate a real flow step by step in the sandbox: refund, attestation (--lying-oracle), webhook retries')
    .argument('[name]', NAMES.join(' | '))
    .option('--lying-oracle', 'attestation: the oracle records the fill 1 % short, and the escrow refuses the claim')
    .action(action(demo, { docsPath: 'README.md#demo' }));
}

async function demo(output: Output, globals: GlobalOptions, name: string | undefined, flags: { lyingOracle?: boolean }): Promise<void> {
  const { isDemoName, runDemo } = await import('../../api/flows/demos.js');
  if (name === undefined || !isDemoName(name)) {
    throw new UsageError(`demo: ${name === undefined ? 'name a demo' : `"${name}" is not a demo`}: one of ${NAMES.join(', ')}`);
  }
  if (flags.lyingOracle === true && name !== 'attestation') throw new UsageError('demo: --lying-oracle goes with the attestation demo');
  let count = 0;
  const narrate = (step: FlowStep) => {
    count += 1;
    if (output.json) process.stderr.write(`${JSON.stringify({ progress: step })}\n`);
    else process.stdout.write(`${describeStep(count, step)}\n`);
  };
  const result = await runDemo(globals.stateDir, name, { lyingOracle: flags.lyingOracle === true }, narrate);
  output.result(
    () => `\n${green('✓')} ${result.outcome}\n  order ${result.orderId}: ${bold(result.status)}\n  ${dim(`journey: ${result.dashboard}`)}`,
    result,
  );
}

function describeStep(index: number, step: FlowStep): string {
  const where = step.chain === undefined ? '' : dim(` [${step.chain}${step.txHash === undefined ? '' : ` tx ${step.txHash}`}]`);
  return `${dim(`${String(index).padStart(2)}.`)} ${bold(step.step.padEnd(14))} ${step.detail}${where}`;
}
