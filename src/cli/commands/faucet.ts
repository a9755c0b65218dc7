import type { Command } from 'commander';
import { grouped } from '../../devnet/summary.js';
import { action, type GlobalOptions, type Output } from '../output.js';
import { sandboxApi } from '../sandbox-api.js';

export interface FaucetResult {
  address: string;
  grants: { chain: string; chainId: number; token: string; amount: string; txHash: string }[];
  nativeTopUp: string;
}

interface FaucetFlags {
  chain?: string;
  token?: string;
  amount?: string;
}

/** `sandbox faucet 0x…`: test stablecoins (and gas) for any address, on every chain unless told otherwise. */
export async function requestFaucet(stateDir: string, address: string, flags: FaucetFlags): Promise<FaucetResult> {
  const body = {
    address,
    ...(flags.chain === undefined ? {} : { chain: flags.chain }),
    ...(flags.token === undefined ? {} : { token: flags.token }),
    ...(flags.amount === undefined ? {} : { amount: flags.amount }),
  };
  const { data } = await sandboxApi<FaucetResult>(stateDir, 'POST', '/api/v1/sandbox/faucet', body);
  return data;
}

export function register(program: Command): void {
  program
    .command('faucet')
    .description('mint test stablecoins to an address (every chain and token unless narrowed) and top up its gas')
    .argument('<address>', 'the address to fund')
    .option('--chain <name|id>', 'only this chain')
    .option('--token <symbol>', 'only this token (USDC, USDT)')
    .option('--amount <tokens>', 'whole tokens per token and chain (default 100000)')
    .action(action(faucet, { docsPath: 'README.md#faucet' }));
}

async function faucet(output: Output, globals: GlobalOptions, address: string, flags: FaucetFlags): Promise<void> {
  const result = await requestFaucet(globals.stateDir, address, flags);
  output.result(
    () =>
      [
        `Funded ${result.address}:`,
        ...result.grants.map((g) => `  ${g.chain.padEnd(8)} ${g.token.padEnd(5)} +${formatUnits6(g.amount)}  ${g.txHash}`),
      ].join('\n'),
    result,
  );
}

function formatUnits6(amount: string): string {
  const value = BigInt(amount);
  return `${grouped(value / 1_000_000n)}${value % 1_000_000n === 0n ? '' : `.${(value % 1_000_000n).toString().padStart(6, '0')}`}`;
}
