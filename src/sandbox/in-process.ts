import type { ApiInfo, SandboxManifest } from '../contracts/deployment.js';
import type { ReferenceSolvers } from '../solvers/index.js';
import { DEFAULT_SOLVERS } from './components.js';
import { type Sandbox, startSandbox } from './sandbox.js';
import type { ServiceSettings } from './service-config.js';
import { ServiceHost } from './service-host.js';
import { referenceSolversComponent } from './solvers-component.js';

/** The in-process sandbox's choices: the service's settings (as `sandbox up` takes them), solvers, environment. */
export interface InProcessSandboxOptions extends Omit<ServiceSettings, 'port'> {
  environment?: 'sandbox' | 'production';
  /** Reference solvers (default 3, like `sandbox up`). */
  solvers?: number;
  /** How they find orders: the solver stream (default) or the escrows' Open logs (`--solver-mode chain`). */
  solverMode?: 'stream' | 'chain';
  /** Seed of the solvers' pricing strategies. */
  seed?: number;
  onProgress?: (message: string) => void;
}

/**
 * Our whole deployment inside this process: the devnet chains, the settlement service on a host that can stop
 * and restart it on the same store and port (as a crash would), and the reference solvers connected over the real
 * solver stream. The scenario runner's in-process target is built on it.
 */
export interface InProcessSandbox {
  readonly sandbox: Sandbox;
  readonly host: ServiceHost;
  /** The chains' manifest with the service's `api` block (its first start's url and the host's workspace key). */
  readonly manifest: SandboxManifest & { api: ApiInfo };
  readonly environment: 'sandbox' | 'production';
  /** Reference solvers asked for (0: none started). */
  readonly solverCount: number;
  readonly solvers: ReferenceSolvers | undefined;
  /** Stops the solvers, then the service, then the chains. */
  stop(): Promise<void>;
}

export async function startInProcessSandbox(options: InProcessSandboxOptions = {}): Promise<InProcessSandbox> {
  const { environment = 'sandbox', solvers: count, solverMode, seed, onProgress = () => undefined, ...settings } = options;
  const host = new ServiceHost(settings);
  const solverCount = count ?? DEFAULT_SOLVERS;
  let solvers: ReferenceSolvers | undefined;
  // The composition root's start, with the host as the service component (the solvers stop first, the chains last).
  const sandbox = await startSandbox({
    environment,
    onProgress,
    components: [
      host.component(),
      referenceSolversComponent({
        count: solverCount,
        ...(seed === undefined ? {} : { seed }),
        ...(solverMode === undefined ? {} : { mode: solverMode }),
        onStarted: (started) => {
          solvers = started;
        },
      }),
    ],
  });
  const manifest = sandbox.manifest as SandboxManifest & { api: ApiInfo };
  return { sandbox, host, manifest, environment, solverCount, solvers, stop: () => sandbox.stop() };
}
