import type { SandboxManifest } from '../contracts/deployment.js';
import type { AttachedChainSpec } from '../devnet/chain-config.js';
import { type Devnet, type DevnetExit, type SandboxChain, type StartDevnetOptions, startDevnet } from '../devnet/devnet.js';
import type { StateLayout } from '../devnet/state-dir.js';

export type { SandboxChain } from '../devnet/devnet.js';

export interface StartSandboxOptions extends StartDevnetOptions {
  /** Parts started once the chains are ready, in order (the settlement service, reference solvers). */
  components?: readonly SandboxComponent[];
  /**
   * Chains started elsewhere to attach to instead of starting anvils (`sandbox up --chain alpha=URL`, `sandbox
   * serve`): their ids are checked and the contracts deployed where missing (src/devnet/attach.ts). `chains` and
   * `chainPorts` are then ignored.
   */
  attach?: readonly AttachedChainSpec[];
}

export interface SandboxComponentContext {
  manifest: SandboxManifest;
  chains: readonly SandboxChain[];
  layout: StateLayout;
  /** `--fresh`: components drop their own saved state too. */
  fresh: boolean;
  onProgress: (message: string) => void;
  /** Kills one chain's anvil (SIGKILL) and starts it again from its state saved just before (the sandbox's fault). */
  restartChain?(chainId: number, options?: { downMs?: number }): Promise<void>;
}

export interface RunningComponent {
  /** Fields this component adds to `sandbox.json` (e.g. `api`). */
  manifest?: Partial<SandboxManifest>;
  stop(): Promise<void>;
}

/**
 * A part of the sandbox that runs on top of the chains. The settlement service plugs in here: `sandbox up`
 * passes it in `components`, its start() receives the chains and manifest, and what it returns is merged into
 * `sandbox.json` and stopped (in reverse order) before the chains.
 */
export interface SandboxComponent {
  name: string;
  start(context: SandboxComponentContext): Promise<RunningComponent>;
}

export type SandboxExit = DevnetExit;

/** The chains with the components started on them; `manifest` is `sandbox.json` with the components' fields. */
export interface Sandbox extends Omit<Devnet, 'close' | 'writeManifest' | 'layout' | 'fresh' | 'persist'> {
  /** Saves chain state (when persisting), stops components (in reverse order), then the chains. Idempotent. */
  stop(): Promise<void>;
}

/**
 * The composition root's start: the devnet's chains, then the components on top of them, in order. Ready when it
 * resolves, with `sandbox.json` naming what every component added.
 */
export async function startSandbox(options: StartSandboxOptions = {}): Promise<Sandbox> {
  const { components = [], attach, ...devnetOptions } = options;
  const onProgress = options.onProgress ?? (() => {});
  const devnet =
    attach !== undefined && attach.length > 0
      ? await import('../devnet/attach.js').then(({ attachDevnet }) => attachDevnet(attach, devnetOptions))
      : await startDevnet(devnetOptions);
  const running: RunningComponent[] = [];
  const stopComponents = async () => {
    for (const component of running.reverse()) await component.stop().catch(() => {});
  };
  let manifest = devnet.manifest;
  try {
    for (const component of components) {
      onProgress(`starting ${component.name}`);
      const started = await component.start({
        manifest,
        chains: devnet.chains,
        layout: devnet.layout,
        fresh: devnet.fresh,
        onProgress,
        restartChain: devnet.restartChain,
      });
      running.push(started);
      if (started.manifest) {
        manifest = { ...manifest, ...started.manifest };
        devnet.writeManifest(manifest);
      }
    }
  } catch (error) {
    await stopComponents();
    await devnet.close();
    throw error;
  }

  let stopping: Promise<void> | undefined;
  // The chains' state is saved while the components still run (as one piece, before anything stops).
  const stop = () => {
    stopping ??= (async () => {
      try {
        // Final: the chains stop producing blocks before they are saved (the save is the last of them).
        if (devnet.persist) await devnet.save({ final: true });
      } finally {
        await stopComponents();
        await devnet.close();
      }
    })();
    return stopping;
  };
  return {
    manifest,
    chains: devnet.chains,
    stateDir: devnet.stateDir,
    advanceTime: devnet.advanceTime,
    chainTime: devnet.chainTime,
    save: devnet.save,
    stop,
    exited: devnet.exited,
    restartChain: devnet.restartChain,
  };
}
