import type { Command } from 'commander';
import { commandPath } from './output.js';

/**
 * Examples shown at the end of each command's `--help`: the invocations people reach for first, copied from the
 * README's commands section so the two agree. Keyed by the command as typed.
 */
const EXAMPLES: Record<string, readonly string[]> = {
  'sandbox up': ['sandbox up', 'sandbox up --detach --state-dir /tmp/demo', 'sandbox up --chains 3 --solvers 0 --fresh'],
  'sandbox down': ['sandbox down', 'sandbox down --state-dir /tmp/demo'],
  'sandbox status': ['sandbox status', 'sandbox status --json | jq .healthy'],
  'sandbox clock advance': ['sandbox clock advance 31h', 'sandbox clock advance 1h30m --json'],
  'sandbox clock show': ['sandbox clock show'],
  'sandbox keys create': ['sandbox keys create'],
  'sandbox keys rotate': ['sandbox keys rotate', 'sandbox keys rotate key_…'],
  'sandbox keys list': ['sandbox keys list --json'],
  'sandbox trigger': ['sandbox trigger order.settled', 'sandbox trigger order.refunded --json', 'sandbox trigger --list'],
  'sandbox demo': ['sandbox demo refund', 'sandbox demo attestation --lying-oracle', 'sandbox demo retries --json'],
  'sandbox conformance': [
    'sandbox conformance',
    'sandbox conformance --target https://api.example.test --profile A --api-key svc_test_… --report html=report.html',
    'sandbox conformance --list | head',
  ],
  'sandbox conformance verify': ['sandbox conformance verify report.json'],
  'sandbox certify solver': ['sandbox certify solver --solver-key 0x…'],
  'sandbox certify webhook-receiver': ['sandbox certify webhook-receiver --url http://127.0.0.1:3000/webhooks --secret whsec_…'],
  'sandbox scenario run': [
    'sandbox scenario run',
    'sandbox scenario run success-* --seed 7',
    'sandbox scenario run --report junit=out/scenarios.xml',
    'sandbox scenario run refund-solver-never-fills --target .sandbox --workspace sandbox',
  ],
  'sandbox scenario list': ['sandbox scenario list', 'sandbox scenario list --json'],
  'sandbox ledger verify': ['sandbox ledger verify', 'sandbox ledger verify --json'],
  'sandbox webhooks listen': [
    'sandbox webhooks listen',
    'sandbox webhooks listen --events "order.*" --forward-to http://127.0.0.1:3000/hooks',
  ],
  'sandbox webhooks list': ['sandbox webhooks list'],
  'sandbox webhooks test': ['sandbox webhooks test wh_…'],
  'sandbox webhooks replay': ['sandbox webhooks replay wh_… --since 2h'],
  'sandbox mailbox': ['sandbox mailbox'],
  'sandbox faucet': ['sandbox faucet 0xYourAddress', 'sandbox faucet 0xYourAddress --chain beta --token USDT --amount 2500'],
  'sandbox fault set': ['sandbox fault set relay.hold --relay attestation', 'sandbox fault set solver.never-fill --count 1'],
  'sandbox fault list': ['sandbox fault list'],
  'sandbox fault clear': ['sandbox fault clear', 'sandbox fault clear flt_…'],
  'sandbox completion': ['source <(sandbox completion bash)', 'sandbox completion zsh > ~/.zsh/completions/_sandbox'],
};

/** Adds the examples of every command of the tree that has some. */
export function addExamples(command: Command): void {
  const examples = EXAMPLES[commandPath(command)];
  if (examples !== undefined) command.addHelpText('after', `\nExamples:\n${examples.map((line) => `  $ ${line}`).join('\n')}\n`);
  for (const sub of command.commands) addExamples(sub);
}
