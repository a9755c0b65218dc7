import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { TestClock } from '../clock/index.js';
import type { ApiInfo, ChainInfo, Environment } from '../contracts/deployment.js';
import { createService, type Service } from '../service/app.js';
import type { ChainTime, ServiceConfig } from '../service/config.js';
import type { ServiceModule } from '../service/module.js';
import { redactUrl } from '../service/store/sql.js';
import { SandboxError } from '../devnet/errors.js';
import type { SandboxComponent, SandboxComponentContext } from './sandbox.js';
import type { WorkerEntry } from './service-cluster.js';
import {
  chainAlignedClock,
  devnetChainTime,
  type ServiceKeys,
  type ServiceSettings,
  serviceConfigFor,
  serviceKeysOf,
  serviceSettingsOf,
} from './service-config.js';
import { readSavedAccess, type SavedAccess, serviceLayout } from './service-layout.js';

export { serviceLayout } from './service-layout.js';
export { devnetChainTime } from './service-config.js';

export interface SandboxServiceOptions {
  stateDir: string;
  environment?: Environment;
  chains: ChainInfo[];
  chainTime?: ChainTime;
  /** Default: a ticking test clock starting now. */
  clock?: TestClock;
  /** Port, webhook profile, compliance: the user's choices, as every assembly path passes them. */
  settings?: ServiceSettings;
  /** Workspace and keys of an earlier start: reused while the store still accepts them. */
  previous?: SavedAccess;
  logger?: ServiceConfig['logger'];
  modules?: ServiceModule[];
  /** Relayer keys of the settlement engine and the faucet's minter: sandbox.json's accounts. */
  keys?: ServiceKeys;
  /** The devnet's chain restart (the `chain.restart` fault). */
  restartChain?: SandboxComponentContext['restartChain'];
  /** `postgres://…`: the store in Postgres instead of `<state>/service/service.sqlite`. */
  databaseUrl?: string;
  /** One of several instances (`--instances`): what to do when the singleton lease is lost (a worker exits). */
  onSingletonLost?: ServiceConfig['onSingletonLost'];
  /** A file the replicas of a split sandbox share: one workspace and key for all of them (shared-access.ts). */
  accessFile?: string;
  /**
   * The clock of a restarted service, never earlier than `notBefore` (the `service.restart` fault): given, the
   * sandbox can stop this service and start it again on the same store, port and keys; absent, the fault is refused.
   */
  restartClock?: (notBefore: number) => Promise<TestClock>;
}

/**
 * The service as `sandbox up` runs it: test clock, store and log in `<state>/service/`, and a workspace
 * with an API key, returned as the `api` block of sandbox.json.
 */
export async function startSandboxService(
  options: SandboxServiceOptions,
): Promise<{ service: Service; api: ApiInfo; stop: () => Promise<void> }> {
  const layout = serviceLayout(options.stateDir);
  mkdirSync(layout.root, { recursive: true });
  let clock = options.clock ?? new TestClock({ ticking: true });
  /** Pinned after the first start: a restarted service answers where the first one did. */
  let port: number | undefined;
  let current: Service;
  let restarting: Promise<void> | undefined;
  let stopped = false;
  const restartClock = options.restartClock;
  const restartService =
    restartClock === undefined
      ? undefined
      : ({ downMs }: { downMs: number }) => {
          restarting ??= (async () => {
            try {
              const notBefore = current.clock.now();
              await current.stop();
              await new Promise((resolve) => setTimeout(resolve, downMs));
              if (stopped) return;
              clock = await restartClock(notBefore);
              current = await create();
            } catch (error) {
              process.stderr.write(`${new Date().toISOString()} service.restart failed: ${(error as Error).stack ?? String(error)}\n`);
            } finally {
              restarting = undefined;
            }
          })();
        };
  const create = () =>
    createService(
      serviceConfigFor({
        stateDir: options.stateDir,
        environment: options.environment,
        chains: options.chains,
        keys: options.keys ?? {},
        settings: port === undefined ? (options.settings ?? {}) : { ...options.settings, port },
        logger: options.logger ?? { file: layout.log },
        clock,
        chainTime: options.chainTime,
        restartChain: options.restartChain,
        restartService,
        databaseUrl: options.databaseUrl,
        modules: options.modules,
        onSingletonLost: options.onSingletonLost,
      }),
    );
  const service =
    options.databaseUrl === undefined
      ? await create()
      : await import('./start-lock.js').then(({ startingAlone }) => startingAlone(options.databaseUrl as string, create));
  current = service;
  port = Number(new URL(service.url).port);
  const stop = async () => {
    stopped = true;
    await restarting;
    await current.stop();
  };
  const previous = options.previous ?? readSavedAccess(options.accessFile ?? layout.access);
  const usable = (saved: SavedAccess | undefined) =>
    (saved?.apiKeys ?? []).filter((key) => {
      try {
        return service.access.verifyApiKey(key).workspaceId === saved?.workspaceId;
      } catch {
        return false;
      }
    });
  const reusable = usable(previous);
  let access: SavedAccess;
  if (previous !== undefined && reusable.length > 0) access = { workspaceId: previous.workspaceId, apiKeys: reusable };
  else {
    const { workspaceId, apiKey } = service.bootstrapWorkspace('Sandbox workspace');
    access = { workspaceId, apiKeys: [apiKey] };
    if (options.accessFile !== undefined) {
      const { publishSharedAccess } = await import('./shared-access.js');
      access = publishSharedAccess(options.accessFile, access, (saved) => usable(saved).length > 0);
    }
  }
  writeFileSync(layout.access, `${JSON.stringify(access, null, 2)}\n`, { mode: 0o600 });
  const store =
    options.databaseUrl === undefined
      ? { kind: 'sqlite' as const, location: layout.store }
      : { kind: 'postgres' as const, location: redactUrl(options.databaseUrl) };
  return { service, api: { url: service.url, wsUrl: service.wsUrl, ...access, store }, stop };
}

/** The user's service settings (port, webhook profile, log level…), and how this sandbox runs its service. */
export interface ServiceComponentOptions extends ServiceSettings {
  modules?: ServiceModule[];
  /** The Postgres database of the store, once known (a local server starts just before the service). */
  databaseUrl?: () => string | undefined;
  /** Service processes behind the one port (`--instances`, default 1); 2 or more need Postgres. */
  instances?: number;
  /** The cluster workers' program, when not the built one (the hardening campaigns run the sources). */
  workerEntry?: WorkerEntry;
  /** `--access-file`: the workspace and key the replicas of a split sandbox share. */
  accessFile?: string;
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
          keys: serviceKeysOf(context.manifest),
          settings: serviceSettingsOf(options),
          onProgress: context.onProgress,
          workerEntry: options.workerEntry,
        });
        const store = { kind: 'postgres' as const, location: redactUrl(databaseUrl) };
        context.onProgress(`settlement service listening on ${started.api.url} (${options.instances} instances)`);
        return { manifest: { api: { ...started.api, store } }, stop: () => started.stop() };
      }
      const { api, stop } = await startSandboxService({
        stateDir: context.layout.root,
        environment: context.manifest.environment,
        chains: context.manifest.chains,
        chainTime: devnetChainTime(context.chains),
        // Chains run ahead of the wall clock by their saved offset; the service clock starts where they are.
        clock: await chainAlignedClock(context.chains),
        settings: serviceSettingsOf(options),
        logger: { file: layout.log, level: options.logLevel ?? 'info' },
        ...(options.modules === undefined ? {} : { modules: options.modules }),
        keys: serviceKeysOf(context.manifest),
        ...(databaseUrl === undefined ? {} : { databaseUrl }),
        ...(context.restartChain === undefined ? {} : { restartChain: context.restartChain }),
        ...(options.accessFile === undefined ? {} : { accessFile: options.accessFile }),
        // The sandbox runs this one service itself: it can restart it (service.restart), on a clock aligned again.
        restartClock: (notBefore) => chainAlignedClock(context.chains, notBefore),
      });
      context.onProgress(`settlement service listening on ${api.url}`);
      return { manifest: { api }, stop };
    },
  };
}
