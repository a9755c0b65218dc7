import type { Command } from 'commander';
import { action, type GlobalOptions, type Output } from '../output.js';
import { collect, type UpFlags, up } from './up.js';

/**
 * `sandbox solvers`: the reference solvers on their own, against a service that runs elsewhere (its load balancer),
 * on the chains it runs on, with the API key its replicas share (`--access-file`).
 */
export function register(program: Command): void {
  program
    .command('solvers')
    .description('run only the reference solvers, against a service and chains that run elsewhere')
    .option('--chain <name=rpc-url>', 'a chain the service runs on, e.g. alpha=http://anvil-alpha:8545 (repeatable)', collect, [])
    .option('--config <file>', 'JSON config: chains (name, chainId, rpcUrl, wsUrl), mnemonic, environment')
    .requiredOption('--service-url <url>', 'the service (its load balancer), e.g. http://lb:8080')
    .requiredOption('--access-file <file>', 'the workspace and API key the service replicas wrote')
    .option('--solvers <count>', 'how many (default 3)')
    .option('--solver-seed <seed>', "seed of the reference solvers' pricing strategies")
    .action(action((output: Output, globals: GlobalOptions, flags: UpFlags) => up(output, globals, flags, 'solvers')));
}
