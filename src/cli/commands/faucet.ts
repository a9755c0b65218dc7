import type { Command } from 'commander';
import { DEFAULT_STATE_DIR, runCommand, sandboxApi, type CommandOptions } from './keys.js';
import { grouped } from '../../devnet/summary.js';

export interface FaucetResult {
  address: string;
  grants: { chain: string; chainId: number; token: string; amount: string; txHash: string }[];
  nativeTopUp: string;
}

interface FaucetFlags extends CommandOptions {
  chain?: string;
  token?: string;
  amount?: string;
}

/** `sandbox faucet 0x…`: test stablecoins (and gas) for any address, on every chain unless told otherwise. */
export async function requestFaucet(
  stateDir: string,
  address: string,
  flags: Omit<FaucetFlags, keyof CommandOptions>,
): Promise<FaucetResult> {
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
    .option('--state-dir <dir>', 'sandbox state folder holding sandbox.json', DEFAULT_STATE_DIR)
    .option('--json', 'print JSON for scripts')
    .action(async (address: string, _options: unknown, command: Command) => {
      const options = command.optsWithGlobals<FaucetFlags>();
      await runCommand(
        options,
        () => requestFaucet(options.stateDir, address, options),
        (result) =>
          [
            `Funded ${result.address}:`,
            ...result.grants.map((g) => `  ${g.chain.padEnd(8)} ${g.token.padEnd(5)} +${formatUnits6(g.amount)}  ${g.txHash}`),
          ].join('\n'),
      );
    });
}

function formatUnits6(amount: string): string {
  const value = BigInt(amount);
  return `${grouped(value / 1_000_000n)}${value % 1_000_000n === 0n ? '' : `.${(value % 1_000_000n).toString().padStart(6, '0')}`}`;
}
