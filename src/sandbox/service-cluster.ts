import cluster, { type Worker } from 'node:cluster';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { ApiInfo, ChainInfo, Environment } from '../contracts/deployment.js';
import { writeFileAtomic } from '../devnet/chain-state.js';
import { SandboxError } from '../devnet/errors.js';
import type { ServiceKeys, ServiceSettings } from './service-config.js';
import { processEntry } from './entry-points.js';
import { type SavedAccess, serviceLayout } from './service-layout.js';

/**
 * `sandbox up --instances N`: N service processes behind one port, with Node's cluster module (the primary holds
 * the listening socket and hands connections to the workers in turn; no balancer of ours). The instances share
 * the Postgres store; which one runs the singleton work is decided there (src/service/cluster). The primary only
 * starts workers, starts a new one when one dies, and stops them all.
 */
export interface WorkerConfig {
  stateDir: string;
  environment: Environment | undefined;
  chains: ChainInfo[];
  port: number;
  databaseUrl: string;
  logFile: string;
  logLevel: string;
  previous?: SavedAccess;
  keys: ServiceKeys;
  /** The user's service settings, as a lone instance gets them (its port aside: the cluster's). */
  settings: ServiceSettings;
}

export interface InstanceStatus {
  pid: number;
  instanceId: string;
  singleton: boolean;
}

export type WorkerMessage =
  | { type: 'ready'; api: ApiInfo; status: InstanceStatus }
  | { type: 'status'; status: InstanceStatus }
  | { type: 'failed'; message: string };

/** The worker's program: the built service-worker.js beside this file, unless a harness runs the sources. */
export interface WorkerEntry {
  path: string;
  /** Node flags for the workers (a TypeScript loader when `path` is a .ts file). */
  execArgv: string[];
}

export interface ServiceClusterOptions extends Omit<WorkerConfig, 'port' | 'logFile' | 'previous'> {
  instances: number;
  workerEntry?: WorkerEntry | undefined;
  /** 0 or undefined: the first worker's free port, shared by the rest. */
  port?: number | undefined;
  onProgress?: (message: string) => void;
}

export interface ServiceCluster {
  api: ApiInfo;
  /** The live workers, as they last reported. */
  instances(): InstanceStatus[];
  stop(): Promise<void>;
}

/** A port free on 127.0.0.1 right now (the kernel picks it; the workers bind it a moment later). */
function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Runs `start` on a port found free, again on another one when `start` fails with EADDRINUSE: a port found free can
 * be taken before it is bound, by any process's outgoing connection (the kernel hands out local ports from the same
 * range). For ports we choose; a port the user named is theirs to fix.
 */
export async function onFreePort<T>(
  start: (port: number) => Promise<T>,
  options: { pick?: () => Promise<number>; attempts?: number; onTaken?: (port: number) => void } = {},
): Promise<{ port: number; value: T }> {
  const pick = options.pick ?? freeLoopbackPort;
  const attempts = options.attempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    const port = await pick();
    try {
      return { port, value: await start(port) };
    } catch (error) {
      if (attempt >= attempts || !/EADDRINUSE/.test((error as Error).message)) throw error;
      options.onTaken?.(port);
    }
  }
}

/** A worker that does not stop within this is killed. */
const STOP_TIMEOUT_MS = 10_000;

/** Where the primary writes the instances' pids and which one holds the singleton work (`sandbox status`, tests). */
export function instancesFile(stateDir: string): string {
  return join(serviceLayout(stateDir).root, 'instances.json');
}

export async function startServiceCluster(options: ServiceClusterOptions): Promise<ServiceCluster> {
  const entry = options.workerEntry ?? { path: processEntry('service-worker'), execArgv: [] };
  if (!existsSync(entry.path)) {
    throw new SandboxError(`Service worker ${entry.path} is missing: build with \`npm run build\`.`, { code: 'not_built' });
  }
  const layout = serviceLayout(options.stateDir);
  mkdirSync(layout.root, { recursive: true });
  // Workers must not inherit the CLI's or a test runner's flags (loaders, inspector ports): only the entry's own.
  cluster.setupPrimary({ exec: entry.path, args: [], execArgv: entry.execArgv });
  const statuses = new Map<Worker, InstanceStatus>();
  const writeStatus = () =>
    // Atomically: `sandbox status` and tests read it while workers come and go (a plain write showed them an empty file).
    writeFileAtomic(instancesFile(options.stateDir), `${JSON.stringify([...statuses.values()], null, 2)}\n`, 0o600);
  let stopping = false;
  let base: Omit<WorkerConfig, 'logFile'> | undefined;
  let slot = 0;

  const fork = (config: Omit<WorkerConfig, 'logFile'>): Promise<{ worker: Worker; api: ApiInfo }> => {
    slot += 1;
    const logFile = join(layout.root, `service.${slot}.log`);
    const worker = cluster.fork({ SANDBOX_SERVICE_WORKER: JSON.stringify({ ...config, logFile } satisfies WorkerConfig) });
    return new Promise((resolve, reject) => {
      let ready = false;
      worker.on('message', (message: WorkerMessage) => {
        if (message.type === 'failed')
          reject(new SandboxError(`a service instance failed to start: ${message.message}`, { code: 'service_failed' }));
        if (message.type === 'ready' || message.type === 'status') {
          statuses.set(worker, message.status);
          writeStatus();
        }
        if (message.type === 'ready') {
          ready = true;
          resolve({ worker, api: message.api });
        }
      });
      worker.once('exit', (code, signal) => {
        statuses.delete(worker);
        if (!stopping) writeStatus();
        if (!ready)
          reject(
            new SandboxError(`a service instance exited while starting (${signal ?? `code ${code}`}); see ${logFile}`, {
              code: 'service_failed',
            }),
          );
        else if (!stopping && base !== undefined) {
          // A dead instance is replaced; its singleton work was taken over by another instance meanwhile.
          options.onProgress?.(`service instance ${worker.process.pid} exited (${signal ?? `code ${code}`}); starting another`);
          fork(base).catch((error: unknown) => options.onProgress?.(`could not replace a service instance: ${(error as Error).message}`));
        }
      });
    });
  };

  const stop = async (): Promise<void> => {
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.isDead()) return resolve();
            const timer = setTimeout(() => worker.process.kill('SIGKILL'), STOP_TIMEOUT_MS);
            worker.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            worker.send({ type: 'stop' }, (error) => {
              if (error) worker.process.kill('SIGTERM');
            });
          }),
      ),
    );
    statuses.clear();
    writeStatus();
  };

  try {
    // The first instance alone: it creates the tables and the workspace, and its port is the one all share.
    const common = {
      stateDir: options.stateDir,
      environment: options.environment,
      chains: options.chains,
      databaseUrl: options.databaseUrl,
      logLevel: options.logLevel,
      keys: options.keys,
      settings: options.settings,
    };
    // Every worker must ask for the same port number: the primary shares one socket per (address, port) it was
    // asked for, so a worker asking for 0 and another for the port the first one got would bind twice.
    const chosen = options.port !== undefined && options.port !== 0 ? options.port : undefined;
    const { port, value: first } =
      chosen === undefined
        ? await onFreePort((free) => fork({ ...common, port: free }), {
            onTaken: (taken) => options.onProgress?.(`port ${taken} was taken before the first service instance bound it; trying another`),
          })
        : { port: chosen, value: await fork({ ...common, port: chosen }) };
    base = { ...common, port, previous: { workspaceId: first.api.workspaceId, apiKeys: first.api.apiKeys } };
    const rest = await Promise.all(Array.from({ length: options.instances - 1 }, () => fork(base!)));
    options.onProgress?.(`${1 + rest.length} service instances on port ${port}`);
    return { api: { ...first.api, instances: options.instances }, instances: () => [...statuses.values()], stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
