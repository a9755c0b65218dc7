import type { Command } from 'commander';
import { action, type GlobalOptions, type Output } from '../output.js';
import { sandboxApi } from '../sandbox-api.js';
import { FAULT_KINDS, FAULT_KIND_TABLE, type FaultKindSpec } from '../../contracts/fault-kinds.js';

const DOCS = 'docs/faults.md';

/** A fault switch as `/api/v1/sandbox/faults` answers it (the typed API's type, one definition). */
export type { FaultSwitch as FaultSwitchView } from '../../api/faults.js';
import type { FaultSwitch as FaultSwitchView } from '../../api/faults.js';

interface SetFlags {
  relay?: string;
  delay?: string;
  route?: string;
  chain?: string;
  method?: string;
  depth?: string;
  down?: string;
  order?: string;
  corridor?: string;
  solver?: string;
  count?: string;
  for?: string;
}

/** The body of `POST /api/v1/sandbox/faults` from the command's flags (the service checks it). */
export function faultRequest(kind: string, flags: SetFlags): Record<string, unknown> {
  const scope = {
    ...(flags.order === undefined ? {} : { orderId: flags.order }),
    ...(flags.corridor === undefined ? {} : { corridor: flags.corridor }),
    ...(flags.solver === undefined ? {} : { solverId: flags.solver }),
  };
  return {
    kind,
    ...(flags.relay === undefined ? {} : { relay: flags.relay }),
    ...(flags.delay === undefined ? {} : { delay: flags.delay }),
    ...(flags.route === undefined ? {} : { route: flags.route }),
    // A chain id that is not a whole number goes as text: the service names it (400, param chain).
    ...(flags.chain === undefined ? {} : { chain: /^\d+$/.test(flags.chain) ? Number(flags.chain) : flags.chain }),
    ...(flags.method === undefined ? {} : { method: flags.method }),
    ...(flags.down === undefined ? {} : { down: flags.down }),
    ...(flags.depth === undefined ? {} : { depth: /^\d+$/.test(flags.depth) ? Number(flags.depth) : flags.depth }),
    ...(Object.keys(scope).length === 0 ? {} : { scope }),
    // A count that is not a whole number goes as text: the service names it (400 parameter_invalid, param count).
    ...(flags.count === undefined ? {} : { count: /^\d+$/.test(flags.count) ? Number(flags.count) : flags.count }),
    ...(flags.for === undefined ? {} : { for: flags.for }),
  };
}

function describe(fault: FaultSwitchView): string {
  const what = [
    fault.kind,
    fault.relay,
    fault.route,
    fault.chainId === null ? null : `chain ${fault.chainId}`,
    fault.method,
    fault.delayMs === null ? null : `${fault.delayMs} ms`,
  ]
    .filter((x) => x !== null)
    .join(' ');
  const scope = Object.entries(fault.scope)
    .filter(([, value]) => value !== null)
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');
  const limits = [fault.remaining === null ? null : `${fault.remaining} left`, fault.expiresAt === null ? null : `until ${fault.expiresAt}`]
    .filter((x) => x !== null)
    .join(', ');
  return `${fault.id}  ${what}${scope === '' ? '' : `  [${scope}]`}  fired ${fault.fired}${limits === '' ? '' : `, ${limits}`}${fault.active ? '' : '  (spent)'}`;
}

/** A kind with the flags it takes, from the service's table: `chain.halt (--chain, [--for])`. */
function kindUsage(spec: FaultKindSpec): string {
  const flags = spec.params.map((param) => (param.required ? `--${param.name}` : `[--${param.name}]`));
  return flags.length === 0 ? spec.kind : `${spec.kind} (${flags.join(', ')})`;
}

export function register(program: Command): void {
  const fault = program
    .command('fault')
    .description('make the sandbox misbehave on purpose: hold, delay or drop relays, withhold attestations, 503 routes');
  fault
    .command('list')
    .description('the fault switches set, with how often each fired')
    .action(action(list, { docsPath: DOCS }));

  fault
    .command('set')
    .description(`set a switch: ${FAULT_KIND_TABLE.map(kindUsage).join(', ')}`)
    .argument('<kind>', `${FAULT_KINDS.join(', ')} (see docs/faults.md)`)
    .option('--relay <relay>', 'relay faults: deposit, attestation or refund')
    .option('--delay <duration>', 'relay.delay and oracle.late (clock time), service.slow (wall time), e.g. 10m')
    .option('--route <route>', 'service faults: "POST /api/v1/quotes", or a path for every method')
    .option('--chain <chainId>', 'chain faults: only this chain (every chain when left out)')
    .option('--method <name>', 'chain faults: only this JSON-RPC method, e.g. eth_sendRawTransactionSync')
    .option('--depth <blocks>', "chain.reorg: blocks replaced below the head, 1–16 (default: down to the fill's block)")
    .option('--down <delay>', 'chain.restart: how long the node stays down (wall time, e.g. 2s; at most 60s)')
    .option('--order <orderId>', 'only this order')
    .option('--corridor <corridor>', 'only orders of this corridor')
    .option('--solver <solverId>', 'only orders this solver won')
    .option('--count <n>', 'fire at most n times')
    .option('--for <duration>', 'turn off after this much clock time')
    .action(action(set, { docsPath: DOCS }));

  fault
    .command('clear')
    .description('clear one switch, or every switch; relays already held stay held until `sandbox relay release`')
    .argument('[faultId]', 'the switch (flt_…); every switch when left out')
    .action(action(clear, { docsPath: DOCS }));

  const relay = program.command('relay').description('relays the fault switches hold');
  relay
    .command('release')
    .description('send the relays a relay.hold switch holds: of one order, or all')
    .argument('[orderId]', 'only this order')
    .action(action(release, { docsPath: DOCS }));
}

async function list(output: Output, globals: GlobalOptions): Promise<void> {
  const { data } = await sandboxApi<{ data: FaultSwitchView[] }>(globals.stateDir, 'GET', '/api/v1/sandbox/faults');
  output.result(() => (data.data.length === 0 ? 'No fault switches set.' : data.data.map(describe).join('\n')), data);
}

async function set(output: Output, globals: GlobalOptions, kind: string, flags: SetFlags): Promise<void> {
  const { data } = await sandboxApi<FaultSwitchView>(globals.stateDir, 'POST', '/api/v1/sandbox/faults', faultRequest(kind, flags));
  output.result(() => `Set ${describe(data)}`, data);
}

async function clear(output: Output, globals: GlobalOptions, faultId: string | undefined): Promise<void> {
  const route = faultId === undefined ? '/api/v1/sandbox/faults' : `/api/v1/sandbox/faults/${encodeURIComponent(faultId)}`;
  const { data } = await sandboxApi<{ cleared: number }>(globals.stateDir, 'DELETE', route);
  output.result(`Cleared ${data.cleared} fault switch${data.cleared === 1 ? '' : 'es'}.`, data);
}

async function release(output: Output, globals: GlobalOptions, orderId: string | undefined): Promise<void> {
  const { data } = await sandboxApi<{ released: { relayId: number; orderId: string | null; faultId: string }[] }>(
    globals.stateDir,
    'POST',
    '/api/v1/sandbox/relays/release',
    orderId === undefined ? {} : { orderId },
  );
  output.result(
    () =>
      data.released.length === 0
        ? 'Nothing was held.'
        : [
            `Released ${data.released.length} relay(s):`,
            ...data.released.map((r) => `  relay ${r.relayId}  ${r.orderId ?? ''}  (${r.faultId})`),
          ].join('\n'),
    data,
  );
}
