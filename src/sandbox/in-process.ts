import type { ApiInfo, SandboxManifest } from '../contracts/deployment.js';
import { type Sandbox, startSandbox } from '../devnet/sandbox.js';
import { type ReferenceSolvers, startReferenceSolvers } from '../solvers/index.js';
import { DEFAULT_SOLVERS } from './components.js';
import { type ComplianceSettings, ServiceHost } from './service-host.js';

export interface InProcessSandboxOptions {
  environment?: 'sandbox' | 'production';
  compliance?: ComplianceSettings;
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
  const environment = options.environment ?? 'sandbox';
  const onProgress = options.onProgress ?? (() => undefined);
  const sandbox = await startSandbox({ environment, onProgress });
  const host = new ServiceHost(sandbox, options);
  let solvers: ReferenceSolvers | undefined;
  const stop = async () => {
    await solvers?.stop();
    await host.stop();
    await sandbox.stop();
  };
  try {
    await host.start();
    const first = host.service;
    const manifest: SandboxManifest & { api: ApiInfo } = {
      ...sandbox.manifest,
      api: { url: first.url, wsUrl: first.wsUrl, workspaceId: host.admin.workspaceId, apiKeys: [host.admin.apiKey] },
    };
    const solverCount = options.solvers ?? DEFAULT_SOLVERS;
    if (solverCount > 0)
      solvers = await startReferenceSolvers({
        manifest,
        count: solverCount,
        followFaults: true,
        ...(options.seed === undefined ? {} : { seed: options.seed }),
        ...(options.solverMode === undefined ? {} : { mode: options.solverMode }),
      });
    return { sandbox, host, manifest, environment, solverCount, solvers, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
