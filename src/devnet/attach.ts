import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ANVIL_MNEMONIC, deriveAccounts } from './accounts.js';
import { resolveDeployment } from './addresses.js';
import { loadArtifacts } from './artifacts.js';
import { type AttachedChainSpec, attachedWsUrl, validateAttachedChains } from './chain-config.js';
import { advanceChainTime, readChainTime } from './chain-time.js';
import { deployOnce } from './deploy-once.js';
import { CREATE2_DEPLOYER, DEPLOYMENT_SALT } from './deployment.js';
import type { Devnet, DevnetExit, SandboxChain, StartDevnetOptions } from './devnet.js';
import { ChainStartError, SandboxError } from './errors.js';
import { describeDeployment } from './genesis.js';
import { acquireStateLock } from './lock.js';
import { writeManifest } from './manifest-file.js';
import type { Hex, SandboxManifest } from '../contracts/deployment.js';
import { createRpcClient, type RpcClient } from './rpc.js';
import { defaultCacheDir, ensureDir, stateLayout } from './state-dir.js';

/**
 * The chains of a sandbox that runs elsewhere: anvils in their own containers or hosts (`sandbox chains`, or any
 * anvil). Attaching checks each chain's id, deploys the contracts at their fixed addresses where they are missing
 * (once, whoever attaches first: deploy-once.ts), and gives the same handle `startDevnet` gives, minus what only the
 * owner of the processes can do: saving their state and restarting them belongs to the chains' own role.
 */
export async function attachDevnet(attach: readonly AttachedChainSpec[], options: StartDevnetOptions = {}): Promise<Devnet> {
  const onProgress = options.onProgress ?? (() => {});
  validateAttachedChains(attach, { allowPublicChainIds: options.allowPublicChainIds ?? false });
  const temporary = options.stateDir === undefined;
  const layout = stateLayout(options.stateDir ?? mkdtempSync(join(tmpdir(), 'sandbox-')));
  const mnemonic = options.mnemonic ?? ANVIL_MNEMONIC;
  ensureDir(layout.root);
  const lock = acquireStateLock(layout.lock, layout.root, options.ownerPid);
  const rpcs = attach.map((chain) => createRpcClient(chain.rpcUrl));
  const release = () => {
    for (const rpc of rpcs) rpc.close();
    lock.release();
    if (temporary) rmSync(layout.root, { recursive: true, force: true });
  };
  try {
    onProgress(`attaching to chains ${attach.map((c) => `${c.name} (${c.rpcUrl})`).join(', ')}`);
    await Promise.all(attach.map((chain, i) => assertChainId(chain, rpcs[i] as RpcClient)));
    const artifacts = loadArtifacts();
    const { description, resolved } = await describeDeployment(options.cacheDir ?? defaultCacheDir(), mnemonic, artifacts);
    let resolving = resolved === undefined ? undefined : Promise.resolve(resolved);
    const resolve = () => {
      resolving ??= deriveAccounts(mnemonic).then((accounts) => resolveDeployment(description.id, accounts, artifacts));
      return resolving;
    };
    const outcomes = await Promise.all(
      attach.map((chain, i) => deployOnce(rpcs[i] as RpcClient, { chainName: chain.name, description, resolve, onProgress })),
    );
    onProgress(`contracts on ${attach.map((chain, i) => `${chain.name}: ${outcomes[i]}`).join(', ')}`);

    const chains: SandboxChain[] = attach.map((spec, i) => {
      const wsUrl = attachedWsUrl(spec);
      return {
        name: spec.name,
        chainId: spec.chainId,
        rpcUrl: spec.rpcUrl,
        wsUrl,
        port: Number(new URL(spec.rpcUrl).port || 0),
        pid: undefined,
        rpc: rpcs[i] as RpcClient,
        info: {
          name: spec.name,
          chainId: spec.chainId,
          rpcUrl: spec.rpcUrl,
          wsUrl,
          contracts: { ...description.contracts },
          tokens: description.tokens.map((t) => ({ ...t })),
        },
      };
    });
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

    let resolveExit!: (exit: DevnetExit) => void;
    const exited = new Promise<DevnetExit>((done) => (resolveExit = done));
    let closing: Promise<void> | undefined;
    const close = () => {
      closing ??= (async () => {
        release();
        resolveExit({ reason: 'stopped' });
      })();
      return closing;
    };
    return {
      manifest,
      chains,
      stateDir: layout.root,
      layout,
      fresh: options.fresh ?? false,
      // The chains' state is theirs to keep (`sandbox chains` saves it): nothing to save from here.
      persist: false,
      advanceTime: (seconds) => advanceChainTime(chains, seconds),
      chainTime: () => readChainTime(chains),
      save: async () => undefined,
      stop: close,
      close,
      writeManifest: (next) => writeManifest(layout, next),
      exited,
      restartChain: async () => {
        throw new SandboxError('the chains run elsewhere (attached): restart their container or process instead', {
          code: 'chain_restart_unavailable',
        });
      },
    };
  } catch (error) {
    release();
    throw error;
  }
}

/** The chain at that URL is the one named: a wrong URL (another network, a typo) must not get contracts and funds. */
async function assertChainId(chain: AttachedChainSpec, rpc: RpcClient): Promise<void> {
  // A chain that starts beside us (a container started in the same breath) gets a while to answer.
  const deadline = Date.now() + 30_000;
  let answered: number;
  for (;;) {
    try {
      answered = Number(await rpc.call<string>('eth_chainId', [], { timeoutMs: 5_000 }));
      break;
    } catch (cause) {
      if (Date.now() > deadline)
        throw new ChainStartError(chain.name, `no answer from ${chain.rpcUrl}: ${(cause as Error).message}`, cause);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  if (answered !== chain.chainId)
    throw new ChainStartError(chain.name, `${chain.rpcUrl} answers with chain id ${answered} instead of ${chain.chainId}`);
}
