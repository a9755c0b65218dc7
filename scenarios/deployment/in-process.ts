import { startSandbox } from '../../src/devnet/sandbox.js';
import { type ComplianceSettings, ServiceHost } from '../../src/sandbox/service-host.js';
import { type ReferenceSolvers, startReferenceSolvers } from '../../src/solvers/index.js';
import { ClockRoute } from './clock-route.js';
import { DeployerMint, fundThroughFaucet } from './funding.js';
import type { ScenarioTarget, ServedManifest } from './target.js';
import { signInWorkspace } from './workspace.js';

export interface InProcessTargetOptions {
  environment?: 'sandbox' | 'production';
  compliance?: ComplianceSettings;
  /** Reference solvers (default 3). */
  solvers?: number;
  /** Seed of the solvers' pricing strategies. */
  seed?: number;
  onProgress?: (message: string) => void;
}

export async function startInProcessTarget(options: InProcessTargetOptions = {}): Promise<ScenarioTarget> {
  const environment = options.environment ?? 'sandbox';
  const onProgress = options.onProgress ?? (() => undefined);
  const sandbox = await startSandbox({ environment, onProgress });
  const host = new ServiceHost(sandbox, options);
  let solvers: ReferenceSolvers | undefined;
  try {
    await host.start();
    const first = host.service;
    const manifest: ServedManifest = {
      ...sandbox.manifest,
      api: { url: first.url, wsUrl: first.wsUrl, workspaceId: host.admin.workspaceId, apiKeys: [host.admin.apiKey] },
    };
    const count = options.solvers ?? 3;
    if (count > 0)
      solvers = await startReferenceSolvers({ manifest, count, ...(options.seed === undefined ? {} : { seed: options.seed }) });
    const clock = new ClockRoute(manifest.api.url, host.admin.apiKey);
    const mint = new DeployerMint(manifest);
    const target: ScenarioTarget = {
      kind: 'in-process',
      description: `in-process ${environment} (${sandbox.chains.length} chains, ${count} reference solver${count === 1 ? '' : 's'})`,
      manifest,
      environment,
      adminKey: host.admin.apiKey,
      solvers: solvers?.solvers ?? [],
      service: host,
      storePath: host.storePath,
      testClock: environment === 'sandbox',
      serviceNow: async () => host.service.clock.now(),
      advanceClock: (ms) => clock.advance(ms),
      advanceChains: async (seconds) => {
        await sandbox.advanceTime(seconds);
      },
      createWorkspace: async (label) =>
        environment === 'sandbox'
          ? signInWorkspace(manifest.api.url, manifest.chains[0]!.chainId, 'sandbox')
          : host.service.bootstrapWorkspace(label),
      fund: (address, chainId, token, amount) =>
        environment === 'sandbox'
          ? fundThroughFaucet(manifest, host.admin.apiKey, address, chainId, token, amount)
          : mint.fund(address, chainId, token, amount),
      stop: async () => {
        await solvers?.stop();
        await host.stop();
        await sandbox.stop();
      },
    };
    return target;
  } catch (error) {
    await solvers?.stop();
    await host.stop();
    await sandbox.stop();
    throw error;
  }
}
