import { type Clock, TestClock } from '../clock/index.js';
import type { ChainInfo, Environment, SandboxManifest } from '../contracts/deployment.js';
import { advanceChainTime, readChainTime } from '../devnet/chain-time.js';
import type { SandboxRateLimit } from '../devnet/config.js';
import type { RpcClient } from '../devnet/rpc.js';
import type { ChainTime, ServiceConfig } from '../service/config.js';
import type { ComplianceSettings } from '../service/compliance/settings.js';
import type { ServiceModule } from '../service/module.js';
import type { WebhookProfileName } from '../service/webhooks/schedule.js';
import { serviceLayout } from './service-layout.js';

/**
 * What a user chooses about the sandbox's service, the same whichever way the sandbox is assembled (`sandbox up`
 * and its detached supervisor and cluster workers, the in-process sandbox, certify, hardening). JSON-serialisable:
 * it travels to the supervisor and the workers as it is. A new service flag goes here, and reaches every path.
 */
export interface ServiceSettings {
  /** REST/WebSocket port (`--port`); default a free one. */
  port?: number;
  /** Webhook retry profile (`--webhook-profile A|B`): A (default; pause after 5 exhausted events) or B. */
  webhookProfile?: WebhookProfileName;
  /** Compliance screening (the scenario runner's production sandbox). */
  compliance?: ComplianceSettings;
  /** Level of the service's log (default info). */
  logLevel?: string;
  /** The config file's `rateLimit`: request limits raised for fuzzers and CI suites (default 100/s, burst 1,000). */
  rateLimit?: SandboxRateLimit;
  /** Address the service listens on (`--host`, default 127.0.0.1); `0.0.0.0` for a replica behind a load balancer. */
  host?: string;
  /** The https:// origin users reach the service at (`--public-url`): the proxy in front of the replicas. */
  publicUrl?: string;
}

/** The service settings among a larger options object (`sandbox up`'s run options), and only those. */
export function serviceSettingsOf(options: ServiceSettings): ServiceSettings {
  return {
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.webhookProfile === undefined ? {} : { webhookProfile: options.webhookProfile }),
    ...(options.compliance === undefined ? {} : { compliance: options.compliance }),
    ...(options.logLevel === undefined ? {} : { logLevel: options.logLevel }),
    ...(options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit }),
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(options.publicUrl === undefined ? {} : { publicUrl: options.publicUrl }),
  };
}

/** The devnet accounts the service signs with: the relayers of the settlement engine, the faucet's minter. */
export interface ServiceKeys {
  settlement?: ServiceConfig['settlement'];
  faucet?: ServiceConfig['faucet'];
}

export function serviceKeysOf(manifest: Pick<SandboxManifest, 'accounts'>): ServiceKeys {
  const service = manifest.accounts.serviceRelayer[0];
  const oracle = manifest.accounts.oracleRelayer[0];
  const deployer = manifest.accounts.deployer[0];
  return {
    ...(service && oracle
      ? { settlement: { serviceRelayer: { privateKey: service.privateKey }, oracleRelayer: { privateKey: oracle.privateKey } } }
      : {}),
    ...(deployer ? { faucet: { minterKey: deployer.privateKey } } : {}),
  };
}

/** Everything the sandbox knows when it starts its service: where, on which chains, with what. */
export interface ServiceAssembly {
  /** The sandbox's state folder: the store (when SQLite) is `<stateDir>/service/service.sqlite`. */
  stateDir: string;
  environment: Environment | undefined;
  chains: ChainInfo[];
  keys: ServiceKeys;
  settings: ServiceSettings;
  logger: NonNullable<ServiceConfig['logger']>;
  /** The service clock; without one the service picks its own. */
  clock?: Clock | undefined;
  /** Moves the chains with the service clock. */
  chainTime?: ChainTime | undefined;
  /** The devnet's chain restart (the `chain.restart` fault). */
  restartChain?: NonNullable<ServiceConfig['devnet']>['restartChain'] | undefined;
  /** The sandbox's restart of this service (the `service.restart` fault). */
  restartService?: NonNullable<ServiceConfig['devnet']>['restartService'] | undefined;
  /** `postgres://…`: the store in Postgres instead of the SQLite file. */
  databaseUrl?: string | undefined;
  modules?: ServiceModule[] | undefined;
  onSingletonLost?: ServiceConfig['onSingletonLost'];
}

/** The one place the sandbox's service configuration is built, for every way the sandbox is assembled. */
export function serviceConfigFor(assembly: ServiceAssembly): ServiceConfig {
  const { settings, keys } = assembly;
  return {
    environment: assembly.environment ?? 'sandbox',
    chains: assembly.chains,
    storePath: serviceLayout(assembly.stateDir).store,
    ...(assembly.databaseUrl === undefined ? {} : { databaseUrl: assembly.databaseUrl }),
    ...(assembly.clock === undefined ? {} : { clock: assembly.clock }),
    ...(settings.port === undefined ? {} : { port: settings.port }),
    ...(settings.host === undefined ? {} : { host: settings.host }),
    ...(settings.publicUrl === undefined ? {} : { publicUrl: settings.publicUrl }),
    ...(assembly.chainTime === undefined ? {} : { chainTime: assembly.chainTime }),
    logger: assembly.logger,
    ...(assembly.modules === undefined ? {} : { modules: assembly.modules }),
    ...(keys.settlement === undefined ? {} : { settlement: keys.settlement }),
    // The faucet and the chain restart act in the sandbox environment only (their modules ignore them elsewhere).
    ...(keys.faucet === undefined ? {} : { faucet: keys.faucet }),
    ...(assembly.restartChain === undefined && assembly.restartService === undefined
      ? {}
      : {
          devnet: {
            ...(assembly.restartChain === undefined ? {} : { restartChain: assembly.restartChain }),
            ...(assembly.restartService === undefined ? {} : { restartService: assembly.restartService }),
          },
        }),
    ...(settings.webhookProfile === undefined ? {} : { webhookProfile: settings.webhookProfile }),
    ...(settings.compliance === undefined ? {} : { compliance: settings.compliance }),
    ...(settings.rateLimit === undefined ? {} : { rateLimit: settings.rateLimit }),
    ...(assembly.onSingletonLost === undefined ? {} : { onSingletonLost: assembly.onSingletonLost }),
  };
}

/** Moves the sandbox chains with the service clock, through the devnet's chain-time functions. */
export function devnetChainTime(chains: ReadonlyArray<{ name: string; rpc: RpcClient }>): ChainTime {
  return {
    advance: async (seconds) => {
      await advanceChainTime(chains, seconds);
    },
    now: async () => Math.max(...(await readChainTime(chains)).map((chain) => chain.timestamp)),
  };
}

/**
 * A ticking test clock where the chains are: they may run ahead of the wall clock (earlier advances, a saved
 * offset), and the service clock starts there; never before `notBefore` (a restarted service's clock must not step
 * back and date new work before work already done).
 */
export async function chainAlignedClock(chains: ReadonlyArray<{ name: string; rpc: RpcClient }>, notBefore = 0): Promise<TestClock> {
  const offsetSeconds = Math.max(0, ...(await readChainTime(chains)).map((time) => time.offsetSeconds));
  return new TestClock({ ticking: true, start: Math.max(Date.now() + offsetSeconds * 1_000, notBefore) });
}
