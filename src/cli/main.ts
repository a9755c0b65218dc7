#!/usr/bin/env node
import { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { register as registerCertify } from './commands/certify.js';
import { register as registerChains } from './commands/chains.js';
import { register as registerClock } from './commands/clock.js';
import { register as registerCompletion } from './commands/completion.js';
import { register as registerConformance } from './commands/conformance.js';
import { register as registerDemo } from './commands/demo.js';
import { register as registerDown } from './commands/down.js';
import { register as registerFaucet } from './commands/faucet.js';
import { register as registerFault } from './commands/fault.js';
import { register as registerKeys } from './commands/keys.js';
import { register as registerLedger } from './commands/ledger.js';
import { register as registerMailbox } from './commands/mailbox.js';
import { register as registerScenario } from './commands/scenario.js';
import { register as registerServe } from './commands/serve.js';
import { register as registerSolvers } from './commands/solvers.js';
import { register as registerStatus } from './commands/status.js';
import { register as registerTrigger } from './commands/trigger.js';
import { register as registerUp } from './commands/up.js';
import { register as registerWebhooks } from './commands/webhooks.js';
import { applyConventions, runProgram } from './conventions.js';
import { addExamples } from './help-examples.js';
import { addGlobalOptions } from './output.js';

/**
 * The `sandbox` command. Each command lives in commands/<name>.ts and exports `register(program)`; heavy
 * modules are imported inside the actions so that every command starts fast. `--json` and `--state-dir` are
 * program options, so every command accepts them (before or after its name); every action runs through
 * output.ts `action()`, which prints results and the one `--json` error shape.
 */
const program = addGlobalOptions(
  new Command('sandbox')
    .description('Local devnet and conformance harness for the cross-chain stablecoin settlement service')
    .version(packageVersion()),
);

registerUp(program);
registerChains(program);
registerServe(program);
registerSolvers(program);
registerDown(program);
registerStatus(program);
registerClock(program);
registerKeys(program);
registerConformance(program);
registerCertify(program);
registerScenario(program);
registerLedger(program);
registerWebhooks(program);
registerMailbox(program);
registerFaucet(program);
registerFault(program);
registerTrigger(program);
registerDemo(program);
registerCompletion(program);
addExamples(program);

await runProgram(applyConventions(program, process.argv), process.argv);

function packageVersion(): string {
  for (const path of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'settlement-sandbox' && pkg.version) return pkg.version;
    } catch {
      // Try the next layout (source or dist/).
    }
  }
  return '0.0.0';
}
