import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestClock } from '../clock/index.js';
import { advanceChainTime, readChainTime } from '../devnet/chain-time.js';
import type { ApiInfo, ChainInfo, Environment } from '../contracts/deployment.js';
import type { RpcClient } from '../devnet/rpc.js';
import type { SandboxComponent, SandboxComponentContext } from '../devnet/sandbox.js';
import { createService, type Service } from '../service/app.js';
import type { ChainTime, ServiceConfig } from '../service/config.js';
import type { ServiceModule } from '../service/module.js';
import { redactUrl } from '../service/store/sql.js';
import { SandboxError } from '../devnet/errors.js';
import type { WorkerEntry } from './service-cluster.js';
import { readSavedAccess, type SavedAccess, serviceLayout } from './service-layout.js';

export { serviceLayout } from './service-layout.js';

export interface SandboxServiceOptions {
  stateDir: string;
  environment?: Environment;
  chains: ChainInfo[];
  chainTime?: ChainTime;
  /** Default: a ticking test clock starting now. */
  clock?: TestClock;
  port?: number;
  /** Workspace and keys of an earlier start: reused while the store still accepts them. */
  previous?: SavedAccess;
  logger?: ServiceConfig['logger'];
  modules?: ServiceModule[];
  /** Relayer keys of the settlement engine; `sandbox up` passes sandbox.json's relayer accounts. */
  settlement?: ServiceConfig['settlement'];
  /** Minter of the test stablecoins for `POST /api/v1/sandbox/faucet` (the deployer). */
  faucet?: ServiceConfig['faucet'];
  /** The devnet's controls (the `chain.restart` fault). */
  devnet?: ServiceConfig['devnet'];
  webhookProfile?: ServiceConfig['webhookProfile'];
  rateLimit?: ServiceConfig['rateLimit'];
  /** `postgres://…`: the store in Postgres instead of `<state>/service/service.sqlite`. */
  databaseUrl?: string;
  /** One of several instances (`--instances`): what to do when the singleton lease is lost (a worker exits). */
  onSingletonLost?: ServiceConfig['onSingletonLost'];
}

/**
 * The service as `sandbox up` runs it: test clock, store and log in `<state>/service/`, and a workspace
 * with an API key, returned as the `api` block of sandbox.json.
 */
export async function startSandboxService(options: SandboxServiceOptions): Promise<{ service: Service; api: ApiInfo }> {
  const layout = serviceLayout(options.stateDir);
  mkdirSync(layout.root, { recursive: true });
  const service = await createService({
    environment: options.environment ?? 'sandbox',
    chains: options.chains,
    storePath: layout.store,
    ...(options.databaseUrl === undefined ? {} : { databaseUrl: options.databaseUrl }),
    clock: options.clock ?? new TestClock({ ticking: true }),
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.chainTime === undefined ? {} : { chainTime: options.chainTime }),
    logger: options.logger ?? { file: layout.log },
    ...(options.modules === undefined ? {} : { modules: options.modules }),
    ...(options.settlement === undefined ? {} : { settlement: options.settlement }),
    ...(options.faucet === undefined ? {} : { faucet: options.faucet }),
    ...(options.devnet === undefined ? {} : { devnet: options.devnet }),
    ...(options.webhookProfile === undefined ? {} : { webhookProfile: options.webhookProfile }),
    ...(options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit }),
    ...(options.onSingletonLost === undefined ? {} : { onSingletonLost: options.onSingletonLost }),
  });
  const previous = options.previous ?? readSavedAccess(layout.access);
  const reusable = (previous?.apiKeys ?? []).filter((key) => {
    try {
      return service.access.verifyApiKey(key).workspaceId === previous?.workspaceId;
    } catch {
      return false;
    }
  });
  let access: SavedAccess;
  if (previous !== undefined && reusable.length > 0) access = { workspaceId: previous.workspaceId, apiKeys: reusable };
  else {
    const { workspaceId, apiKey } = service.bootstrapWorkspace('Sandbox workspace');
    access = { workspaceId, apiKeys: [apiKey] };
  }
  writeFileSync(layout.access, `${JSON.stringify(access, null, 2)}\n`, { mode: 0o600 });
  const store =
    options.databaseUrl === undefined
      ? { kind: 'sqlite' as const, location: layout.store }
      : { kind: 'postgres' as const, location: redactUrl(options.databaseUrl) };
  return { service, api: { url: service.url, wsUrl: service.wsUrl, ...access, store } };
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

export interface ServiceComponentOptions {
  /** Port of the REST/WebSocket server; default a free one (`sandbox up --port`). */
  port?: number;
  logLevel?: string;
  modules?: ServiceModule[];
  /** Webhook retry profile: A (default; pause after 5 exhausted events) or B (disable after 5 failed attempts). */
  webhookProfile?: ServiceConfig['webhookProfile'];
  rateLimit?: ServiceConfig['rateLimit'];
  /** The Postgres database of the store, once known (a local server starts just before the service). */
  databaseUrl?: () => string | undefined;
  /** Service processes behind the one port (`--instances`, default 1); 2 or more need Postgres. */
  instances?: number;
  /** The cluster workers' program, when not the built one (the hardening campaigns run the sources). */
  workerEntry?: WorkerEntry;
}

/**
 * The settlement service as a part of `sandbox up` (devnet `components`): it starts once the chains are
 * ready, on a clock aligned with the chains' time (saved chain offsets included), and adds `api` to
 * sandbox.json. `--fresh` drops its store too.
 */
export function settlementServiceComponent(options: ServiceComponentOptions = {}): SandboxComponent {
  return {
    name: 'settlement service',
    async start(context: SandboxComponentContext) {
      const layout = serviceLayout(context.layout.root);
      if (context.fresh) rmSync(layout.root, { recursive: true, force: true });
      const databaseUrl = options.databaseUrl?.();
      if ((options.instances ?? 1) > 1) {
        if (databaseUrl === undefined)
          throw new SandboxError('--instances 2 or more needs Postgres: add --database postgres or --database-url.', {
            code: 'config_invalid',
          });
        const { startServiceCluster } = await import('./service-cluster.js');
        const started = await startServiceCluster({
          instances: options.instances!,
          stateDir: context.layout.root,
          environment: context.manifest.environment,
          chains: context.manifest.chains,
          port: options.port,
          databaseUrl,
          logLevel: options.logLevel ?? 'info',
          ...(relayerKeys(context.manifest) === undefined ? {} : { settlement: relayerKeys(context.manifest) }),
          ...(context.manifest.accounts.deployer[0] ? { faucet: { minterKey: context.manifest.accounts.deployer[0].privateKey } } : {}),
          ...(options.webhookProfile === undefined ? {} : { webhookProfile: options.webhookProfile }),
          ...(options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit }),
          onProgress: context.onProgress,
          workerEntry: options.workerEntry,
        });
        const store = { kind: 'postgres' as const, location: redactUrl(databaseUrl) };
        context.onProgress(`settlement service listening on ${started.api.url} (${options.instances} instances)`);
        return { manifest: { api: { ...started.api, store } }, stop: () => started.stop() };
      }
      const times = await readChainTime(context.chains);
      const offsetSeconds = Math.max(0, ...times.map((time) => time.offsetSeconds));
      const { service, api } = await startSandboxService({
        stateDir: context.layout.root,
        environment: context.manifest.environment,
        chains: context.manifest.chains,
        chainTime: devnetChainTime(context.chains),
        // Chains run ahead of the wall clock by their saved offset; the service clock starts where they are.
        clock: new TestClock({ ticking: true, start: Date.now() + offsetSeconds * 1_000 }),
        ...(options.port === undefined ? {} : { port: options.port }),
        logger: { file: layout.log, level: options.logLevel ?? 'info' },
        ...(options.modules === undefined ? {} : { modules: options.modules }),
        settlement: relayerKeys(context.manifest),
        ...(options.webhookProfile === undefined ? {} : { webhookProfile: options.webhookProfile }),
        ...(options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit }),
        ...(databaseUrl === undefined ? {} : { databaseUrl }),
        ...(context.restartChain === undefined ? {} : { devnet: { restartChain: context.restartChain } }),
        ...(context.manifest.accounts.deployer[0] ? { faucet: { minterKey: context.manifest.accounts.deployer[0].privateKey } } : {}),
      });
      context.onProgress(`settlement service listening on ${api.url}`);
      return { manifest: { api }, stop: () => service.stop() };
    },
  };
}

/** The settlement engine relays with the devnet's service and oracle relayer accounts. */
function relayerKeys(manifest: SandboxComponentContext['manifest']): ServiceConfig['settlement'] {
  const service = manifest.accounts.serviceRelayer[0];
  const oracle = manifest.accounts.oracleRelayer[0];
  if (!service || !oracle) return undefined;
  return { serviceRelayer: { privateKey: service.privateKey }, oracleRelayer: { privateKey: oracle.privateKey } };
}
