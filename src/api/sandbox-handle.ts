import type { ApiInfo, Environment, SandboxManifest } from '../contracts/deployment.js';
import { type ChainSpec, defaultChains } from '../devnet/chain-config.js';
import { readServiceManifest } from '../devnet/manifest-file.js';
import { DEFAULT_STATE_DIR, stateLayout } from '../devnet/state-dir.js';
import { RestClient } from '../clients/rest-client.js';
import { SandboxAdminClient } from '../clients/sandbox-admin-client.js';
import type { SandboxPartsOptions, SandboxRunOptions } from '../sandbox/run-options.js';
import { type SandboxClock, sandboxClock } from './clock.js';
import { type FaultSwitches, faultSwitches } from './faults.js';

/**
 * `sandbox up`'s flags as options: the same names in camelCase, the same defaults (two chains on 8545, 8546…,
 * three reference solvers, SQLite in the state folder, a free service port).
 */
export interface SandboxOptions extends SandboxPartsOptions {
  /** `--state-dir` (default `.sandbox`). Two sandboxes need two folders. */
  stateDir?: string;
  /** `--chains`: a count, or the chains themselves (name, chainId, port; port 0 picks a free one). */
  chains?: number | ChainSpec[];
  /** `--chain-ports`: one port per chain, or 'any' for free ones (what a test suite wants). */
  chainPorts?: readonly number[] | 'any';
  /** `--fresh`: discard the saved chain state. */
  fresh?: boolean;
  /** `--detach`: run in a background process that outlives this one; `stop()` or `sandbox down` ends it. */
  detach?: boolean;
  mnemonic?: string;
  environment?: Environment;
  allowPublicChainIds?: boolean;
  /** Where deployments and genesis states are cached (default `node_modules/.cache/settlement-sandbox`). */
  cacheDir?: string;
  onProgress?: (message: string) => void;
}

/** The clients of a running sandbox, already pointed at it with its workspace key. */
export interface SandboxClients {
  /** The settlement service's REST API, as a taker or solver integrator uses it. */
  rest: RestClient;
  /** The sandbox's own routes (`/api/v1/sandbox/…`: clock, faults, keys). */
  admin: SandboxAdminClient;
}

/** A running sandbox: what `sandbox.json` says, clients, the clock and the fault switches. */
export interface SandboxHandle {
  /** `sandbox.json`: chains, contracts, funded accounts, the service's URL and keys. */
  readonly manifest: SandboxManifest & { api: ApiInfo };
  /** Absolute state folder: `sandbox` commands given `--state-dir <it>` talk to this sandbox. */
  readonly stateDir: string;
  readonly clients: SandboxClients;
  readonly clock: SandboxClock;
  readonly faults: FaultSwitches;
  /** Stops it (saving chain state, like `sandbox down`). Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts a sandbox the way `sandbox up` does, through the same composition root (`runSandbox`) or, with `detach`,
 * the same supervisor (`startDetached`). Resolves once it is ready.
 */
export async function up(options: SandboxOptions = {}): Promise<SandboxHandle> {
  const runOptions = toRunOptions(options);
  const onProgress = options.onProgress ?? (() => {});
  if (options.detach) {
    const { startDetached, stopSandbox } = await import('../sandbox/daemon.js');
    await startDetached(runOptions, onProgress);
    return attach(runOptions.stateDir, async () => {
      await stopSandbox(runOptions.stateDir);
    });
  }
  const { runSandbox } = await import('../sandbox/run.js');
  const sandbox = await runSandbox(runOptions, onProgress);
  return attach(runOptions.stateDir, () => sandbox.stop());
}

/** Stops the sandbox of a state folder, wherever it was started (`sandbox down`). */
export async function down(stateDir: string = DEFAULT_STATE_DIR): Promise<{ stopped: boolean }> {
  const { stopSandbox } = await import('../sandbox/daemon.js');
  const { stopped } = await stopSandbox(stateLayout(stateDir).root);
  return { stopped };
}

/**
 * A handle on a sandbox already running (started by `sandbox up`, `up()` or the vitest global setup), read from
 * its state folder. Its `stop()` stops that sandbox.
 */
export function attach(stateDir: string = DEFAULT_STATE_DIR, stop?: () => Promise<void>): SandboxHandle {
  const root = stateLayout(stateDir).root;
  const manifest = readServiceManifest(root);
  const admin = new SandboxAdminClient({ url: manifest.api.url, apiKeys: manifest.api.apiKeys });
  const rest = new RestClient({ baseUrl: manifest.api.url, ...(manifest.api.apiKeys[0] ? { apiKey: manifest.api.apiKeys[0] } : {}) });
  let stopping: Promise<void> | undefined;
  return {
    manifest,
    stateDir: root,
    clients: { rest, admin },
    clock: sandboxClock(admin),
    faults: faultSwitches(admin),
    stop: () => {
      stopping ??= stop ? stop() : down(root).then(() => undefined);
      return stopping;
    },
  };
}

/** The options as the CLI hands them to the composition root (`SandboxRunOptions`). */
export function toRunOptions(options: SandboxOptions): SandboxRunOptions {
  const { stateDir = DEFAULT_STATE_DIR, chains, chainPorts, fresh = false, detach: _detach, onProgress: _onProgress, ...rest } = options;
  const specs = Array.isArray(chains)
    ? chains.map((chain, i) => ({ ...chain, port: chainPorts === 'any' ? 0 : (chainPorts?.[i] ?? chain.port) }))
    : defaultChains(chains, chainPorts);
  // Absolute: the detached supervisor and everything reading sandbox.json may run from another folder.
  return { ...rest, stateDir: stateLayout(stateDir).root, chains: specs, fresh };
}
