import { sandboxComponents } from './components.js';
import type { SandboxPartsOptions, SandboxRunOptions } from './run-options.js';
import { type Sandbox, startSandbox } from './sandbox.js';

export type { SandboxPartsOptions, SandboxRunOptions } from './run-options.js';

/** `sandbox up` (foreground, or in the detached supervisor): a persisted sandbox in the state folder. */
export async function runSandbox(options: SandboxRunOptions, onProgress: (message: string) => void): Promise<Sandbox> {
  return startSandbox({
    stateDir: options.stateDir,
    chains: options.chains,
    fresh: options.fresh,
    persist: true,
    mnemonic: options.mnemonic,
    environment: options.environment,
    allowPublicChainIds: options.allowPublicChainIds,
    cacheDir: options.cacheDir,
    components: await sandboxComponents(options),
    onProgress,
  });
}

/**
 * A sandbox of a harness's own (`sandbox certify solver`): two chains on free ports in a temporary folder, removed
 * on stop, with the same parts `sandbox up` would start for these options.
 */
export async function runScratchSandbox(options: SandboxPartsOptions, onProgress: (message: string) => void): Promise<Sandbox> {
  return startSandbox({ components: await sandboxComponents(options), onProgress });
}
