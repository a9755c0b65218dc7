import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ACCOUNT_COUNT, ANVIL_MNEMONIC, deriveAccounts } from './accounts.js';
import { resolveDeployment } from './addresses.js';
import { startAnvilProcess, type AnvilProcess } from './anvil.js';
import { resolveAnvilBinary } from './anvil-binary.js';
import { loadArtifacts } from './artifacts.js';
import { defaultChains, validateChains, type ChainSpec } from './chain-config.js';
import {
  findSavedChainState,
  restoreChainTime,
  resumeBlockProduction,
  saveChainState,
  stopBlockProduction,
  type ChainStateMeta,
} from './chain-state.js';
import { advanceChainTime, readChainTime, type ChainTime } from './chain-time.js';
import { CREATE2_DEPLOYER, DEPLOYMENT_SALT } from './deployment.js';
import { ChainStartError, SandboxError } from './errors.js';
import { deployPlan, describeDeployment, genesisPath, saveGenesis, type DeploymentDescription } from './genesis.js';
import { acquireStateLock } from './lock.js';
import { writeManifest } from './manifest-file.js';
import type { ChainInfo, Environment, Hex, SandboxManifest } from '../contracts/deployment.js';
import { assertPortFree } from './ports.js';
import { createRpcClient, type RpcClient } from './rpc.js';
import { defaultCacheDir, ensureDir, stateLayout, type StateLayout } from './state-dir.js';

export interface StartDevnetOptions {
  /** State folder. Default: a new temporary folder, removed by stop(). */
  stateDir?: string;
  /** Number of chains (named alpha, beta, …, ids 31337, 31338, …) or the chains themselves. Default 2. */
  chains?: number | readonly ChainSpec[];
  /** Ports of the chains when `chains` is a number: a list, or 'any' for free ports. Default 'any'. */
  chainPorts?: readonly number[] | 'any';
  /** Ignore and delete the saved chain state: deploy and fund from scratch. */
  fresh?: boolean;
  /** Save chain state on stop() and load it on the next start. Default: true with a stateDir, false without. */
  persist?: boolean;
  mnemonic?: string;
  environment?: Environment;
  /** Allow chain ids of public networks (refused by default: devnet signatures must not be valid there). */
  allowPublicChainIds?: boolean;
  /** Shared cache of deployments and genesis states. Default node_modules/.cache/settlement-sandbox. */
  cacheDir?: string;
  /** Progress lines for people ("starting chains", "deploying contracts"). */
  onProgress?: (message: string) => void;
  /** Owner pid recorded in the lock and manifest. Default: this process. */
  ownerPid?: number;
  /** Address the anvils listen on (default 127.0.0.1): `0.0.0.0` for `sandbox chains` in a container. */
  chainHost?: string;
}

/** One running chain of a sandbox. */
export interface SandboxChain {
  readonly name: string;
  readonly chainId: number;
  readonly rpcUrl: string;
  readonly wsUrl: string;
  readonly port: number;
  /** pid of the anvil process. */
  readonly pid: number | undefined;
  readonly info: ChainInfo;
  /** JSON-RPC client of this chain (anvil_* and evm_* included). */
  readonly rpc: RpcClient;
}

export type DevnetExit = { reason: 'stopped' } | { reason: 'chain-exited'; chain: string; code: number | undefined };

/**
 * The running chains of a sandbox: anvil processes with the contracts deployed and the accounts funded, the state
 * folder they hold (lock, `sandbox.json`, saved chain state). What runs on top of them (the service, solvers) is
 * the composition root's business (src/sandbox).
 */
export interface Devnet {
  /** The chains' part of `sandbox.json`, as written at start. */
  readonly manifest: SandboxManifest;
  readonly chains: readonly SandboxChain[];
  readonly stateDir: string;
  readonly layout: StateLayout;
  /** Started with `fresh`: saved state was dropped (parts on top drop theirs too). */
  readonly fresh: boolean;
  /** Chain state is saved on stop() and loaded on the next start. */
  readonly persist: boolean;
  /** Moves every chain's time forward together and mines a block on each. */
  advanceTime(seconds: number): Promise<ChainTime[]>;
  chainTime(): Promise<ChainTime[]>;
  /**
   * Saves every chain's state now (stop() does it too when persisting). `final`: the chains stop with this save, so
   * they stop producing blocks first, as stop() does: a block mined during the save would be lost with the process
   * although its sender holds a receipt. Only for a save that close() follows.
   */
  save(options?: { final?: boolean }): Promise<void>;
  /** Saves state (when persisting), then close(). Idempotent. */
  stop(): Promise<void>;
  /** Stops the chains without saving and releases the state folder (removed when temporary). Idempotent. */
  close(): Promise<void>;
  /** Rewrites `sandbox.json` (parts started on top add their fields, e.g. `api`). */
  writeManifest(manifest: SandboxManifest): void;
  /** Settles when the devnet ends: stop() or close() was called, or a chain died on its own. */
  readonly exited: Promise<DevnetExit>;
  /**
   * Kills one chain's anvil with SIGKILL and starts it again on the same port from the state saved just before
   * (`downMs` of wall time in between): what a crashed node that comes back looks like to its clients. Its pool is
   * lost, as a crash loses it; blocks, balances and time are kept.
   */
  restartChain(chainId: number, options?: { downMs?: number }): Promise<void>;
}

interface ChainPlan {
  spec: ChainSpec;
  saved?: { statePath: string; meta: ChainStateMeta };
  genesis: string;
  /** No saved state and no cached genesis: deploy on this start. */
  deploy: boolean;
}

/**
 * Starts the chains of a sandbox: contracts at fixed addresses, funded accounts. Ready when it resolves (RPC
 * answers, contracts present), with `sandbox.json` written to the state folder.
 */
export async function startDevnet(options: StartDevnetOptions = {}): Promise<Devnet> {
  const onProgress = options.onProgress ?? (() => {});
  const specs = typeof options.chains === 'object' ? [...options.chains] : defaultChains(options.chains ?? 2, options.chainPorts ?? 'any');
  validateChains(specs, { allowPublicChainIds: options.allowPublicChainIds ?? false });
  // Only once the configuration is known to be valid: a refused start must not leave a folder behind.
  const temporary = options.stateDir === undefined;
  const layout = stateLayout(options.stateDir ?? mkdtempSync(join(tmpdir(), 'sandbox-')));
  const persist = options.persist ?? !temporary;
  const fresh = options.fresh ?? false;
  const mnemonic = options.mnemonic ?? ANVIL_MNEMONIC;
  const cacheDir = options.cacheDir ?? defaultCacheDir();

  ensureDir(layout.root);
  const lock = acquireStateLock(layout.lock, layout.root, options.ownerPid);
  const processes: AnvilProcess[] = [];
  const rpcs: RpcClient[] = [];
  /** Chains being restarted on purpose: their anvil's exit is not the sandbox's end. */
  const restarting = new Set<string>();
  let chainList: SandboxChain[] = [];
  let deploymentId = '';
  const restartChain = async (chainId: number, restart: { downMs?: number } = {}): Promise<void> => {
    const index = chainList.findIndex((c) => c.chainId === chainId);
    const chain = chainList[index];
    const old = processes[index];
    if (chain === undefined || old === undefined) throw new SandboxError(`no chain ${chainId} in this sandbox`, { code: 'unknown_chain' });
    if (restarting.has(chain.name)) throw new SandboxError(`chain ${chain.name} is already restarting`, { code: 'chain_restarting' });
    restarting.add(chain.name);
    try {
      await stopBlockProduction(chain.rpc);
      let saved: ReturnType<typeof findSavedChainState>;
      let cause: unknown;
      try {
        await saveChainState(chain.rpc, layout, chain, deploymentId, { last: true });
        saved = findSavedChainState(layout, chain, deploymentId);
      } catch (error) {
        cause = error;
      }
      if (saved === undefined) {
        // The chain goes on as it was.
        await resumeBlockProduction(chain.rpc).catch(() => undefined);
        throw new SandboxError(`chain ${chain.name}: its state could not be saved`, { code: 'save_failed', cause });
      }
      if (old.pid !== undefined) process.kill(old.pid, 'SIGKILL');
      await old.stop().catch(() => {});
      if ((restart.downMs ?? 0) > 0) await new Promise((resolve) => setTimeout(resolve, restart.downMs));
      const next = await startAnvilProcess({
        name: chain.name,
        chainId: chain.chainId,
        port: chain.port,
        portFlag: '--chain-ports',
        cachePath: layout.chainCache(chain.name),
        loadStatePath: saved.statePath,
        mnemonic,
        accounts: ACCOUNT_COUNT,
        ...(options.chainHost === undefined ? {} : { host: options.chainHost }),
      });
      processes[index] = next;
      (chain as { pid: number | undefined }).pid = next.pid;
      await restoreChainTime(chain.rpc, saved.meta);
      onRestarted(next);
    } finally {
      restarting.delete(chain.name);
    }
  };
  let onRestarted: (process: AnvilProcess) => void = () => undefined;

  const cleanUp = async () => {
    await Promise.all(processes.map((p) => p.stop().catch(() => {})));
    for (const rpc of rpcs) rpc.close();
    lock.release();
    if (temporary) rmSync(layout.root, { recursive: true, force: true });
  };

  try {
    await Promise.all(specs.map((spec) => assertPortFree(spec.port, `chain ${spec.name}`, '--chain-ports')));
    const anvil = resolveAnvilBinary();
    const artifacts = loadArtifacts();
    let { description, resolved } = await describeDeployment(cacheDir, mnemonic, artifacts);

    if (fresh) rmSync(join(layout.root, 'chains'), { recursive: true, force: true });
    const plans: ChainPlan[] = specs.map((spec) => {
      const saved = findSavedChainState(layout, spec, description.id);
      const genesis = genesisPath(cacheDir, description.id, spec.chainId, anvil.version);
      return { spec, saved, genesis, deploy: !saved && !existsSync(genesis) };
    });

    const source = (plan: ChainPlan) =>
      plan.saved ? `saved state of ${plan.saved.meta.savedAt}` : plan.deploy ? 'empty, deploying' : 'cached deployment';
    onProgress(`starting chains ${plans.map((p) => `${p.spec.name} (${source(p)})`).join(', ')}`);
    const started = await Promise.allSettled(
      plans.map((plan) =>
        startAnvilProcess({
          name: plan.spec.name,
          chainId: plan.spec.chainId,
          port: plan.spec.port,
          portFlag: '--chain-ports',
          cachePath: layout.chainCache(plan.spec.name),
          loadStatePath: plan.saved?.statePath ?? (plan.deploy ? undefined : plan.genesis),
          mnemonic,
          accounts: ACCOUNT_COUNT,
          ...(options.chainHost === undefined ? {} : { host: options.chainHost }),
        }),
      ),
    );
    for (const result of started) if (result.status === 'fulfilled') processes.push(result.value);
    const failure = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure) throw failure.reason;
    for (const process of processes) rpcs.push(createRpcClient(process.rpcUrl));

    if (plans.some((p) => p.deploy)) {
      onProgress('deploying contracts and funding accounts (first start of this deployment; cached afterwards)');
      resolved ??= await resolveDeployment(description.id, await deriveAccounts(mnemonic), artifacts);
      const deployment = resolved;
      await Promise.all(
        plans.map(async (plan, i) => {
          if (!plan.deploy) return;
          const rpc = rpcs[i] as RpcClient;
          await deployPlan(rpc, plan.spec.name, deployment, description.accounts);
          await saveGenesis(rpc, plan.genesis);
        }),
      );
    }
    await Promise.all(plans.map((plan, i) => (plan.saved ? restoreChainTime(rpcs[i] as RpcClient, plan.saved.meta) : undefined)));
    // A cached genesis carries the timestamp of the day it was built: mine one block so that `latest` shows the
    // chain's real time (clients compute deadlines from it). Restored chains keep their height on purpose.
    await Promise.all(plans.map((plan, i) => (plan.saved || plan.deploy ? undefined : (rpcs[i] as RpcClient).call('evm_mine', []))));
    await Promise.all(plans.map((plan, i) => assertChainReady(plan.spec, rpcs[i] as RpcClient, description)));

    deploymentId = description.id;
    const chains: SandboxChain[] = processes.map((process, i) => ({
      name: process.name,
      chainId: process.chainId,
      rpcUrl: process.rpcUrl,
      wsUrl: process.wsUrl,
      port: process.port,
      pid: process.pid,
      rpc: rpcs[i] as RpcClient,
      info: {
        name: process.name,
        chainId: process.chainId,
        rpcUrl: process.rpcUrl,
        wsUrl: process.wsUrl,
        ...(process.ipcPath === undefined ? {} : { ipcPath: process.ipcPath }),
        contracts: { ...description.contracts },
        tokens: description.tokens.map((t) => ({ ...t })),
      },
    }));
    const manifest: SandboxManifest = {
      environment: options.environment ?? 'sandbox',
      manifestVersion: 1,
      stateDir: layout.root,
      chains: chains.map((c) => c.info),
      accounts: description.accounts,
      pid: lock.owner.pid,
      startedAt: lock.owner.startedAt,
      deployment: { id: description.id, create2Deployer: CREATE2_DEPLOYER, salt: DEPLOYMENT_SALT as Hex },
      mnemonic,
    };
    writeManifest(layout, manifest);
    chainList = chains;

    const handle = createHandle({
      layout,
      manifest,
      chains,
      processes,
      persist,
      fresh,
      deploymentId: description.id,
      cleanUp,
      restarting,
      restartChain,
    });
    onRestarted = handle.watch;
    return handle.sandbox;
  } catch (error) {
    await cleanUp();
    throw error;
  }
}

/** Readiness that is real: the right chain answers on that port, and every contract of the manifest has code. */
async function assertChainReady(spec: ChainSpec, rpc: RpcClient, description: DeploymentDescription): Promise<void> {
  const chainId = Number(await rpc.call<string>('eth_chainId'));
  if (chainId !== spec.chainId) {
    throw new ChainStartError(spec.name, `answers with chain id ${chainId} instead of ${spec.chainId}`);
  }
  const addresses = [...Object.entries(description.contracts), ...description.tokens.map((t) => [t.symbol, t.address] as const)];
  const codes = await Promise.all(addresses.map(([, address]) => rpc.call<string>('eth_getCode', [address, 'latest'])));
  const missing = addresses.filter((_, i) => codes[i] === '0x').map(([name]) => name);
  if (missing.length > 0) throw new ChainStartError(spec.name, `no code for ${missing.join(', ')} after start`);
}

function createHandle(parts: {
  layout: StateLayout;
  manifest: SandboxManifest;
  chains: SandboxChain[];
  processes: AnvilProcess[];
  persist: boolean;
  fresh: boolean;
  deploymentId: string;
  cleanUp: () => Promise<void>;
  restarting: ReadonlySet<string>;
  restartChain: Devnet['restartChain'];
}): { sandbox: Devnet; watch: (process: AnvilProcess) => void } {
  const { layout, manifest, chains, processes, persist, deploymentId, cleanUp, restarting } = parts;
  let stopping: Promise<void> | undefined;
  let closing: Promise<void> | undefined;
  let resolveExit!: (exit: DevnetExit) => void;
  const exited = new Promise<DevnetExit>((resolve) => (resolveExit = resolve));
  const dead = new Set<string>();

  /** `last`: the chains stop with this save, so they stop producing blocks first (see stopBlockProduction). */
  const save = async (last = false) => {
    const results = await Promise.allSettled(
      chains
        .filter((c) => !dead.has(c.name))
        .map(async (c) => {
          if (last) await stopBlockProduction(c.rpc);
          return saveChainState(c.rpc, layout, c, deploymentId, { last });
        }),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed)
      throw new SandboxError(`Saving chain state failed: ${(failed.reason as Error).message}`, {
        code: 'save_failed',
        cause: failed.reason,
      });
  };

  const close = () => {
    closing ??= (async () => {
      await cleanUp();
      resolveExit({ reason: 'stopped' });
    })();
    return closing;
  };
  const stop = () => {
    stopping ??= (async () => {
      try {
        if (persist) await save(true);
      } finally {
        await close();
      }
    })();
    return stopping;
  };

  const watch = (process: AnvilProcess) => {
    process.onUnexpectedExit((code) => {
      // Killed on purpose by restartChain: the chain comes back, the sandbox goes on.
      if (restarting.has(process.name)) return;
      dead.add(process.name);
      resolveExit({ reason: 'chain-exited', chain: process.name, code });
    });
  };
  processes.forEach(watch);

  const sandbox: Devnet = {
    manifest,
    chains,
    stateDir: layout.root,
    layout,
    fresh: parts.fresh,
    persist,
    advanceTime: (seconds) => advanceChainTime(chains, seconds),
    chainTime: () => readChainTime(chains),
    save: (options) => save(options?.final === true),
    stop,
    close,
    writeManifest: (next) => writeManifest(layout, next),
    exited,
    restartChain: parts.restartChain,
  };
  return { sandbox, watch };
}
