import type { Command } from 'commander';
import { action, type GlobalOptions, type Output } from '../output.js';
import { type UpFlags, up } from './up.js';

/**
 * `sandbox chains`: the chains-only role of a sandbox split over hosts or containers. It runs the anvils with the
 * contracts deployed, saves their state on stop (and every `--save-every` seconds) and loads it on the next start;
 * service replicas attach to them with `sandbox serve --chain NAME=URL`.
 */
export function register(program: Command): void {
  program
    .command('chains')
    .description('run only the chains (anvils with the contracts, state saved), for services started elsewhere')
    .option('--chains <count>', 'number of chains (default 2)')
    .option('--names <names>', 'run these of the default chains, e.g. beta (chain 31338) in a container of its own')
    .option('--chain-ports <ports>', 'comma-separated port per chain, or "any" (default 8545,8546,…)')
    .option('--config <file>', 'JSON config: chains (name, chainId, port), mnemonic, environment')
    .option('--chain-host <address>', 'address the chains listen on (default 127.0.0.1; 0.0.0.0 in a container)')
    .option('--save-every <seconds>', 'also save the chain state this often (default: only on stop)')
    .option('--fresh', 'discard the saved chain state and start clean')
    .action(action((output: Output, globals: GlobalOptions, flags: UpFlags) => up(output, globals, flags, 'chains')));
}
