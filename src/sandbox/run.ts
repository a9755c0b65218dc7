import { sandboxComponents } from './components.js';
import { startSandbox, type Sandbox } from '../devnet/sandbox.js';
import type { SandboxRunOptions } from './run-options.js';

export type { SandboxRunOptions } from './run-options.js';

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
