import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { allAccounts, deriveAccounts, type Accounts } from './accounts.js';
import { deploymentId, resolveDeployment, type ResolvedContract, type ResolvedDeployment } from './addresses.js';
import type { ArtifactSet } from './artifacts.js';
import { dumpChainState, writeFileAtomic } from './chain-state.js';
import { CREATE2_DEPLOYER, DEPLOYMENT_SALT, FUNDING, GAS } from './deployment.js';
import { DeploymentError } from './errors.js';
import type { Address, Hex, TokenInfo } from '../contracts/deployment.js';
import { toQuantity, type RpcClient } from './rpc.js';
import { ensureDir } from './state-dir.js';
import { sandboxStablecoinAbi } from '../contracts/stablecoin.js';

/**
 * Deploying is done once per deployment id and chain id, then reused: the first start deploys and saves
 * anvil's state as a "genesis" in the shared cache, every later start loads it with `--load-state` (about
 * 50 ms instead of some forty transactions). Contracts are never compiled here: they come from the generated
 * artifacts.
 */

/** Everything `sandbox.json` says about a deployment: the same on every chain. */
export interface DeploymentDescription {
  id: string;
  accounts: Accounts;
  contracts: Record<string, Address>;
  tokens: TokenInfo[];
}

/** Describes the deployment of this plan, code and mnemonic, from the cache when it was computed before. */
export async function describeDeployment(
  cacheDir: string,
  mnemonic: string,
  artifacts: ArtifactSet,
): Promise<{ description: DeploymentDescription; resolved?: ResolvedDeployment }> {
  const id = deploymentId(mnemonic, artifacts);
  const path = join(cacheDir, 'deployments', `${id}.json`);
  if (existsSync(path)) {
    try {
      return { description: JSON.parse(readFileSync(path, 'utf8')) as DeploymentDescription };
    } catch {
      // A damaged cache entry is recomputed below.
    }
  }
  const accounts = await deriveAccounts(mnemonic);
  const resolved = await resolveDeployment(id, accounts, artifacts);
  const description: DeploymentDescription = {
    id,
    accounts,
    contracts: Object.fromEntries(resolved.contracts.map((c) => [c.name, c.address])),
    tokens: resolved.tokens.map((t) => t.info),
  };
  ensureDir(join(cacheDir, 'deployments'));
  writeFileAtomic(path, JSON.stringify(description, null, 2) + '\n', 0o600);
  return { description, resolved };
}

/** Cache path of the genesis state of one chain id (anvil's dump format may change with its version). */
export function genesisPath(cacheDir: string, id: string, chainId: number, anvilVersion: string): string {
  const version = anvilVersion.replace(/[^a-zA-Z0-9.]/g, '_');
  return join(cacheDir, 'genesis', `${id}-${chainId}-anvil${version}.json`);
}

export async function saveGenesis(rpc: RpcClient, path: string): Promise<void> {
  const state = await dumpChainState(rpc);
  ensureDir(join(path, '..'));
  writeFileAtomic(path, state);
}

interface Receipt {
  status: Hex;
  transactionHash: Hex;
}

/**
 * Executes the deployment plan on a fresh chain: contracts through the CREATE2 deployer, Permit2's code at its
 * canonical address, tokens, then funding. One sender at a time and in order (anvil's automine can strand
 * concurrent transactions of one sender), with explicit gas limits.
 */
export async function deployPlan(rpc: RpcClient, chainName: string, deployment: ResolvedDeployment, accounts: Accounts): Promise<void> {
  const { encodeFunctionData, erc20Abi, maxUint256 } = await import('viem');
  const deployer = accounts.deployer[0]?.address;
  if (!deployer) throw new DeploymentError(chainName, 'accounts', 'no deployer account');

  const send = async (step: string, tx: { from: Address; to: Address; data: Hex; gas: bigint }): Promise<Receipt> => {
    let receipt: Receipt;
    try {
      receipt = await rpc.call<Receipt>('eth_sendTransactionSync', [{ ...tx, gas: toQuantity(tx.gas) }]);
    } catch (cause) {
      throw new DeploymentError(chainName, step, (cause as Error).message, cause);
    }
    if (receipt.status !== '0x1') throw new DeploymentError(chainName, step, `transaction ${receipt.transactionHash} reverted`);
    return receipt;
  };

  const etherWei = FUNDING.etherPerAccount * 10n ** 18n;
  for (const account of allAccounts(accounts)) {
    await rpc.call('anvil_setBalance', [account.address, toQuantity(etherWei)]);
  }

  const place = async (contract: ResolvedContract): Promise<void> => {
    const step = `deploy ${contract.name}`;
    if (contract.runtimeCode) {
      await rpc.call('anvil_setCode', [contract.address, contract.runtimeCode]);
    } else if (contract.initCode) {
      const existing = await rpc.call<Hex>('eth_getCode', [contract.address, 'latest']);
      if (existing === '0x') {
        const tx = { from: deployer, to: CREATE2_DEPLOYER, data: `${DEPLOYMENT_SALT}${contract.initCode.slice(2)}` as Hex };
        let estimate: bigint;
        try {
          estimate = BigInt(await rpc.call<Hex>('eth_estimateGas', [tx]));
        } catch (cause) {
          throw new DeploymentError(chainName, step, `constructor reverts: ${(cause as Error).message}`, cause);
        }
        await send(step, { ...tx, gas: estimate + (estimate * GAS.deploymentHeadroomPercent) / 100n });
      }
    }
    const code = await rpc.call<Hex>('eth_getCode', [contract.address, 'latest']);
    if (code === '0x') throw new DeploymentError(chainName, step, `no code at ${contract.address} afterwards`);
  };

  for (const contract of deployment.contracts) await place(contract);
  for (const token of deployment.tokens) await place(token.contract);

  const permit2 = deployment.contracts.find((c) => c.name === 'Permit2')?.address;
  for (const { info } of deployment.tokens) {
    const unit = 10n ** BigInt(info.decimals);
    const grants: Array<[Address, bigint]> = [
      ...accounts.takers.map((a) => [a.address, FUNDING.tokensPerTaker * unit] as [Address, bigint]),
      ...accounts.solvers.map((a) => [a.address, FUNDING.tokensPerSolver * unit] as [Address, bigint]),
    ];
    for (const [to, target] of grants) {
      // Tops the balance up to its target: a plan resumed on a chain another replica began (deploy-once.ts) must
      // not fund twice. On a fresh chain the balance is 0 and this mints the whole amount.
      const balanceCall = encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [to] });
      const balance = BigInt(await rpc.call<Hex>('eth_call', [{ to: info.address, data: balanceCall }, 'latest']));
      if (balance >= target) continue;
      const amount = target - balance;
      const data = encodeFunctionData({ abi: sandboxStablecoinAbi, functionName: 'mint', args: [to, amount] });
      await send(`mint ${info.symbol} to ${to}`, { from: deployer, to: info.address, data, gas: GAS.call });
    }
    if (permit2) {
      const data = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [permit2, maxUint256] });
      for (const taker of accounts.takers) {
        await send(`approve Permit2 for ${info.symbol} from ${taker.address}`, {
          from: taker.address,
          to: info.address,
          data,
          gas: GAS.call,
        });
      }
    }
  }
}
