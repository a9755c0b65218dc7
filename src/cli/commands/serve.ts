import type { Command } from 'commander';
import { ConfigError } from '../../contracts/errors/config-error.js';
import { isPostgresUrl } from '../../service/store/sql.js';
import { action, type GlobalOptions, type Output } from '../output.js';
import { collect, type UpFlags, up } from './up.js';

/**
 * `sandbox serve`: the service-only role. One service replica on chains started elsewhere (`--chain NAME=URL`,
 * repeatable, or a config file with rpcUrls) and a Postgres database given by URL; start as many as you like behind a
 * load balancer. The first replica to reach a chain without the contracts deploys them; the lease holder runs the
 * singleton work and moves the chains when the clock is advanced.
 */
export function register(program: Command): void {
  program
    .command('serve')
    .description('run only the settlement service, on chains started elsewhere and a given Postgres (one replica)')
    .option('--chain <name=rpc-url>', 'a chain to attach to, e.g. alpha=http://anvil-alpha:8545 (repeatable)', collect, [])
    .option('--config <file>', 'JSON config: chains (name, chainId, rpcUrl, wsUrl), mnemonic, environment')
    .option('--database-url <url>', 'postgres://… database of the store (default: $DATABASE_URL)')
    .option('--port <port>', 'port of the service (default a free one)')
    .option('--host <address>', 'address the service listens on (default 127.0.0.1; 0.0.0.0 behind a load balancer)')
    .option('--public-url <url>', 'the https:// origin users reach the service at (the proxy in front of it)')
    .option('--access-file <file>', 'workspace and API key shared by the replicas (a file on a shared volume)')
    .option('--solvers <count>', 'reference solvers to run beside this replica (default 0: they run on their own)')
    .option('--webhook-profile <A|B>', 'webhook retries: A (6 retries up to 31 h, pause) or B (5 attempts, disable)')
    .action(
      action((output: Output, globals: GlobalOptions, flags: UpFlags) => {
        const url = flags.databaseUrl ?? process.env.DATABASE_URL;
        if (!isPostgresUrl(url))
          throw new ConfigError(
            'sandbox serve needs the Postgres database its replicas share: --database-url postgres://… or DATABASE_URL.',
          );
        return up(output, globals, { ...flags, databaseUrl: url }, 'service');
      }),
    );
}
