import type { Command } from 'commander';
import {
  type AttachedChainSpec,
  CHAIN_NAMES,
  defaultChainId,
  defaultChains,
  parseChainFlag,
  parsePortList,
  type ChainSpec,
} from '../../devnet/chain-config.js';
import { loadSandboxConfig } from '../../devnet/config.js';
import { ConfigError } from '../../contracts/errors/config-error.js';
import type { SandboxManifest } from '../../contracts/deployment.js';
import type { SandboxRunOptions } from '../../sandbox/run.js';
import type { SandboxRole } from '../../sandbox/run-options.js';
import { resolve } from 'node:path';
import { stateLayout } from '../../devnet/state-dir.js';
import { isPostgresUrl } from '../../service/store/sql.js';
import { formatSandboxSummary } from '../../devnet/summary.js';
import { commandFor } from '../hints.js';
import { action, bold, dim, type GlobalOptions, type Output } from '../output.js';

export interface UpFlags {
  chains?: string;
  chainPorts?: string;
  config?: string;
  fresh?: boolean;
  detach?: boolean;
  port?: string;
  solvers?: string;
  solverSeed?: string;
  solverMode?: string;
  webhookProfile?: string;
  database?: string;
  databaseUrl?: string;
  instances?: string;
  chain?: string[];
  chainsOnly?: boolean;
  chainHost?: string;
  host?: string;
  publicUrl?: string;
  accessFile?: string;
  serviceUrl?: string;
  saveEvery?: string;
  names?: string;
}

export function register(program: Command): void {
  program
    .command('up')
    .description('start the sandbox: local chains with every contract deployed and accounts funded')
    .option('--chains <count>', `number of chains, named ${CHAIN_NAMES.slice(0, 3).join(', ')}, … (default 2)`)
    .option('--chain-ports <ports>', 'comma-separated port per chain, or "any" (default 8545,8546,…)')
    .option('--config <file>', 'JSON config: chains (name, chainId, port), mnemonic, environment')
    .option('--fresh', 'discard the saved chain state and start clean')
    .option('-d, --detach', 'run in the background; `sandbox down` stops it')
    .option('--port <port>', 'port of the settlement service (REST and WebSocket); default a free one')
    .option('--solvers <count>', 'reference solvers to connect (default 3; 0 for none)')
    .option('--solver-seed <seed>', "seed of the reference solvers' pricing strategies")
    .option('--solver-mode <stream|chain>', 'reference solvers: quote on the solver stream (default), or watch Open logs only')
    .option('--webhook-profile <A|B>', 'webhook retries: A (6 retries up to 31 h, pause) or B (5 attempts, disable)')
    .option('--database <sqlite|postgres>', "the service's store: sqlite (default, a file in the state folder) or postgres")
    .option('--database-url <url>', 'postgres://… database for the store (default: $DATABASE_URL when it is a postgres:// URL)')
    .option(
      '--instances <count>',
      'service processes behind the one port (default 1; 2 or more need --database postgres or --database-url)',
    )
    .option('--chain <name=rpc-url>', 'attach to a chain started elsewhere instead of starting one (repeatable)', collect, [])
    .option('--chains-only', 'run only the chains (what `sandbox chains` does)')
    .option('--chain-host <address>', 'address the chains listen on (default 127.0.0.1; 0.0.0.0 in a container)')
    .option('--host <address>', 'address the service listens on (default 127.0.0.1; 0.0.0.0 behind a load balancer)')
    .option('--public-url <url>', 'the https:// origin users reach the service at (the proxy in front of it)')
    .option('--access-file <file>', 'workspace and API key shared by the service replicas (a file on a shared volume)')
    .action(
      action((output: Output, globals: GlobalOptions, flags: UpFlags) => up(output, globals, flags, flags.chainsOnly ? 'chains' : 'all')),
    );
}

/** Commander's way to take a repeatable flag (`--chain alpha=… --chain beta=…`). */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** `sandbox up`, and the roles of a sandbox split over hosts (`sandbox chains`, `serve`, `solvers`). */
export async function up(output: Output, globals: GlobalOptions, flags: UpFlags, role: SandboxRole = 'all'): Promise<void> {
  const options = { ...runOptions(globals, flags), role };
  if (role === 'chains' && options.attach !== undefined) throw new ConfigError('--chains-only runs chains: it attaches to none (--chain).');
  if ((role === 'service' || role === 'solvers') && options.attach === undefined)
    throw new ConfigError(
      `sandbox ${role === 'service' ? 'serve' : 'solvers'} runs on chains started elsewhere: name them with --chain NAME=RPC_URL or --config.`,
    );
  const manifestPath = stateLayout(options.stateDir).manifest;

  if (flags.detach) {
    const { startDetached } = await import('../../sandbox/daemon.js');
    const manifest = await startDetached(options, (message) => output.progress(message));
    output.result(
      () =>
        `${summary(manifest, manifestPath)}\n\n` +
        dim(
          `Running in the background (pid ${manifest.pid}). Stop with \`${commandFor(globals.stateDir, 'down')}\`; check with \`${commandFor(globals.stateDir, 'status')}\`.`,
        ),
      manifest,
    );
    return;
  }

  // Signals that arrive while starting are honoured once the start has settled.
  let signalled: NodeJS.Signals | undefined;
  let onSignal = (signal: NodeJS.Signals) => {
    signalled = signal;
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => onSignal(signal));
  // A foreground sandbox belongs to the process that started it. When that one is gone (a script or test runner
  // killed, a terminal closed without SIGHUP), nobody could stop this one any more: stop, as on a hang-up.
  const parent = process.ppid;
  let orphaned = false;
  setInterval(() => {
    if (process.ppid === parent || orphaned) return;
    orphaned = true;
    onSignal('SIGHUP');
  }, 250).unref();

  const { runSandbox } = await import('../../sandbox/run.js');
  const sandbox = await runSandbox(options, (message) => output.progress(message));
  const stop = async (why: string, exitCode: number) => {
    output.progress(`stopping (${why}); saving chain state`);
    try {
      await sandbox.stop();
    } finally {
      process.exit(exitCode);
    }
  };
  if (signalled) return stop(signalled, 130);

  output.result(
    () =>
      `${summary(sandbox.manifest, manifestPath)}\n\n${dim(`Running. Ctrl-C stops everything (or \`${commandFor(globals.stateDir, 'down')}\` from another terminal).`)}`,
    sandbox.manifest,
  );

  let stopping = false;
  onSignal = (signal) => {
    if (stopping) {
      // A second Ctrl-C: leave now. The chains' watchdogs stop every anvil; unsaved chain state is lost.
      output.warn('stopped without saving chain state');
      process.exit(130);
    }
    stopping = true;
    void stop(signal, 0);
  };
  const exit = await sandbox.exited;
  if (exit.reason === 'chain-exited' && !stopping) {
    stopping = true;
    output.warn(`chain ${exit.chain} exited on its own (code ${exit.code ?? '?'}); stopping the sandbox`);
    await stop('a chain died', 1);
  }
}

function runOptions(globals: GlobalOptions, flags: UpFlags): SandboxRunOptions {
  const config = flags.config ? loadSandboxConfig(flags.config) : {};
  const attach = attachedChains(flags, config.attach);
  let chains: ChainSpec[];
  const ports =
    flags.chainPorts === undefined ? undefined : flags.chainPorts === 'any' ? ('any' as const) : parsePortList(flags.chainPorts);
  if (config.chains) {
    if (flags.chains !== undefined) throw new ConfigError('--chains and a config file with chains: use one of them.');
    if (Array.isArray(ports) && ports.length !== config.chains.length) {
      throw new ConfigError(`--chain-ports lists ${ports.length} port(s) for ${config.chains.length} chain(s).`);
    }
    chains = config.chains.map((chain, i) => ({ ...chain, port: ports === 'any' ? 0 : (ports?.[i] ?? chain.port) }));
  } else if (flags.names !== undefined) {
    chains = namedChains(flags.names, ports);
  } else {
    const count = flags.chains === undefined ? undefined : Number(flags.chains);
    if (count !== undefined && !Number.isInteger(count)) throw new ConfigError(`--chains: "${flags.chains}" is not a whole number.`);
    chains = defaultChains(count, ports);
  }
  return {
    // Absolute: the detached supervisor and everything reading sandbox.json may run from another folder.
    stateDir: stateLayout(globals.stateDir).root,
    chains,
    fresh: flags.fresh === true,
    ...(config.mnemonic ? { mnemonic: config.mnemonic } : {}),
    ...(config.environment ? { environment: config.environment } : {}),
    ...(config.allowPublicChainIds ? { allowPublicChainIds: true } : {}),
    ...(config.rateLimit === undefined ? {} : { rateLimit: config.rateLimit }),
    ...(flags.port === undefined ? {} : { port: wholeNumber('--port', flags.port, 0, 65_535) }),
    ...(flags.solvers === undefined ? {} : { solvers: wholeNumber('--solvers', flags.solvers, 0, 3) }),
    ...(flags.solverSeed === undefined ? {} : { solverSeed: wholeNumber('--solver-seed', flags.solverSeed, 0, Number.MAX_SAFE_INTEGER) }),
    ...(flags.solverMode === undefined ? {} : { solverMode: solverMode(flags.solverMode) }),
    ...(flags.webhookProfile === undefined ? {} : { webhookProfile: webhookProfile(flags.webhookProfile) }),
    ...databaseChoice(flags),
    ...instancesChoice(flags),
    ...(attach === undefined ? {} : { attach }),
    ...(flags.chainHost === undefined ? {} : { chainHost: flags.chainHost }),
    ...(flags.host === undefined ? {} : { host: flags.host }),
    ...(flags.publicUrl === undefined ? {} : { publicUrl: flags.publicUrl }),
    ...(flags.accessFile === undefined ? {} : { accessFile: resolve(flags.accessFile) }),
    ...(flags.serviceUrl === undefined ? {} : { serviceUrl: flags.serviceUrl }),
    ...(flags.saveEvery === undefined ? {} : { saveEverySeconds: wholeNumber('--save-every', flags.saveEvery, 0, 86_400) }),
  };
}

/**
 * `sandbox chains --names beta`: some of the default chains by name, with their default ids (one chain per container:
 * the `beta` container runs chain 31338 whatever else runs).
 */
function namedChains(names: string, ports: readonly number[] | 'any' | undefined): ChainSpec[] {
  const list = names.split(',').map((name) => name.trim());
  if (Array.isArray(ports) && ports.length !== list.length)
    throw new ConfigError(`--chain-ports lists ${ports.length} port(s) for ${list.length} chain(s).`);
  return list.map((name, i) => {
    const chainId = defaultChainId(name);
    if (chainId === undefined)
      throw new ConfigError(`--names: "${name}" is not one of ${CHAIN_NAMES.join(', ')} (other chains: --config).`);
    return {
      name,
      chainId,
      port:
        ports === 'any'
          ? 0
          : Array.isArray(ports)
            ? (ports[i] as number)
            : 8545 + CHAIN_NAMES.indexOf(name as (typeof CHAIN_NAMES)[number]),
    };
  });
}

/** `--chain NAME=URL` (repeatable) or a config file whose chains have rpcUrls: chains started elsewhere. */
function attachedChains(flags: UpFlags, fromConfig: AttachedChainSpec[] | undefined): AttachedChainSpec[] | undefined {
  const fromFlags = (flags.chain ?? []).map(parseChainFlag);
  if (fromFlags.length > 0 && fromConfig !== undefined) throw new ConfigError('--chain and a config file with rpcUrls: use one of them.');
  const attach = fromFlags.length > 0 ? fromFlags : fromConfig;
  if (attach === undefined) return undefined;
  if (flags.chains !== undefined || flags.chainPorts !== undefined)
    throw new ConfigError('--chain attaches to chains started elsewhere: --chains and --chain-ports do not apply.');
  return attach;
}

/** `--instances N`: several service processes share one store, so N ≥ 2 needs Postgres (SQLite is one process's file). */
function instancesChoice(flags: UpFlags): Pick<SandboxRunOptions, 'instances'> {
  if (flags.instances === undefined) return {};
  const instances = wholeNumber('--instances', flags.instances, 1, 16);
  if (instances > 1 && databaseChoice(flags).database !== 'postgres') {
    throw new ConfigError(
      `--instances ${instances} needs Postgres: add --database postgres or --database-url (SQLite is one process's file).`,
    );
  }
  return { instances };
}

/**
 * `--database-url` names a Postgres database; without it, DATABASE_URL does when it holds a postgres:// URL (the
 * variable is shared with other tools, so any other URL in it is not ours to read). `--database postgres` alone runs
 * a Postgres of the sandbox's own.
 */
function databaseChoice(flags: UpFlags): Pick<SandboxRunOptions, 'database' | 'databaseUrl'> {
  const kind = flags.database;
  if (kind !== undefined && kind !== 'sqlite' && kind !== 'postgres') {
    throw new ConfigError(`--database: "${kind}" is not sqlite or postgres.`);
  }
  if (flags.databaseUrl !== undefined && !isPostgresUrl(flags.databaseUrl)) {
    throw new ConfigError(`--database-url: "${flags.databaseUrl}" is not a postgres:// or postgresql:// URL.`);
  }
  if (kind === 'sqlite') {
    if (flags.databaseUrl !== undefined) throw new ConfigError('--database sqlite and --database-url: use one of them.');
    return { database: 'sqlite' };
  }
  const environment = process.env.DATABASE_URL;
  const url = flags.databaseUrl ?? (isPostgresUrl(environment) ? environment : undefined);
  if (url !== undefined) {
    if (flags.fresh) {
      throw new ConfigError(
        '--fresh with a Postgres URL: that database is yours and the sandbox will not empty it. Drop and recreate it, or use --database postgres.',
      );
    }
    return { database: 'postgres', databaseUrl: url };
  }
  return kind === 'postgres' ? { database: 'postgres' } : {};
}

function solverMode(value: string): 'stream' | 'chain' {
  if (value !== 'stream' && value !== 'chain') throw new ConfigError(`--solver-mode: "${value}" must be stream or chain.`);
  return value;
}

function webhookProfile(value: string): 'A' | 'B' {
  const upper = value.toUpperCase();
  if (upper !== 'A' && upper !== 'B') throw new ConfigError(`--webhook-profile: "${value}" must be A or B.`);
  return upper;
}

function wholeNumber(flag: string, value: string, min: number, max: number): number {
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || parsed < min || parsed > max) {
    throw new ConfigError(`${flag}: "${value}" must be a whole number from ${min} to ${max}.`);
  }
  return parsed;
}

function summary(manifest: SandboxManifest, manifestPath: string): string {
  return formatSandboxSummary(manifest, {
    style: { heading: bold, muted: dim },
    manifestPath,
    // performance.now() counts from process start: the figure includes Node's own start-up.
    readyMs: performance.now(),
  });
}
