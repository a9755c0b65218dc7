import { sandboxComponents } from './components.js';
import type { SandboxPartsOptions, SandboxRunOptions } from './run-options.js';
import { type Sandbox, startSandbox } from './sandbox.js';

export type { SandboxPartsOptions, SandboxRunOptions } from './run-options.js';

/** `sandbox up` (foreground, or in the detached supervisor): a persisted sandbox in the state folder. */
export async function runSandbox(options: SandboxRunOptions, onProgress: (message: string) => void): Promise<Sandbox> {
  const sandbox = await startSandbox({
    stateDir: options.stateDir,
    chains: options.chains,
    fresh: options.fresh,
    persist: true,
    mnemonic: options.mnemonic,
    environment: options.environment,
    allowPublicChainIds: options.allowPublicChainIds,
    cacheDir: options.cacheDir,
    ...(options.attach === undefined ? {} : { attach: options.attach }),
    ...(options.chainHost === undefined ? {} : { chainHost: options.chainHost }),
    components: await sandboxComponents(options),
    onProgress,
  });
  if (options.saveEverySeconds !== undefined && options.saveEverySeconds > 0) autosave(sandbox, options.saveEverySeconds, onProgress);
  return sandbox;
}

/**
 * The chains role saves their state every few seconds as well as on stop: a chain container that is killed (not
 * stopped) comes back from its last save instead of from an empty chain, which the services attached to it could not
 * reconcile with what they recorded.
 */
function autosave(sandbox: Sandbox, seconds: number, onProgress: (message: string) => void): void {
  let saving = false;
  const timer = setInterval(() => {
    if (saving) return;
    saving = true;
    sandbox
      .save()
      .catch((error: unknown) => onProgress(`saving chain state failed: ${(error as Error).message}`))
      .finally(() => {
        saving = false;
      });
  }, seconds * 1_000);
  timer.unref();
  void sandbox.exited.then(() => clearInterval(timer));
}

/**
 * A sandbox of a harness's own (`sandbox certify solver`): two chains on free ports in a temporary folder, removed
 * on stop, with the same parts `sandbox up` would start for these options.
 */
export async function runScratchSandbox(options: SandboxPartsOptions, onProgress: (message: string) => void): Promise<Sandbox> {
  return startSandbox({ components: await sandboxComponents(options), onProgress });
}
