import { type InProcessSandboxOptions, startInProcessSandbox } from '../../src/sandbox/in-process.js';
import { ClockRoute } from './clock-route.js';
import { DeployerMint, fundThroughFaucet } from './funding.js';
import type { ScenarioTarget } from './target.js';
import { signInWorkspace } from './workspace.js';

/** The sandbox's assembly options (environment, compliance, solvers and their seed, progress). */
export type InProcessTargetOptions = InProcessSandboxOptions;

export async function startInProcessTarget(options: InProcessTargetOptions = {}): Promise<ScenarioTarget> {
  const assembled = await startInProcessSandbox(options);
  const { sandbox, host, manifest, environment, solverCount: count, solvers } = assembled;
  try {
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
      faultSwitches: environment === 'sandbox',
      serviceNow: async () => host.now(),
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
      stop: () => assembled.stop(),
    };
    return target;
  } catch (error) {
    await assembled.stop();
    throw error;
  }
}
