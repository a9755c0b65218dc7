import { allAccounts, type Accounts } from './accounts.js';
import type { ResolvedDeployment } from './addresses.js';
import { CREATE2_DEPLOYER, DEPLOYMENT_SALT } from './deployment.js';
import { DeploymentError } from './errors.js';
import type { DeploymentDescription } from './genesis.js';
import { deployPlan } from './genesis.js';
import type { Address, Hex } from '../contracts/deployment.js';
import { RpcError, toQuantity, type RpcClient } from './rpc.js';

/**
 * Deploying on a chain the sandbox did not start (`sandbox up --chain alpha=URL`), where several replicas may attach
 * at the same moment. The contracts go to their fixed CREATE2 addresses; the one thing that must not happen twice is
 * the funding (mints add up). The chain itself decides who deploys: the first CREATE2 creation of the plan can
 * succeed once only, so the replica whose creation transaction succeeds runs the plan and every other replica waits
 * for the plan's last step to show. No coordinator, no shared file: the chain is the lock.
 */

export type DeploymentOutcome = 'present' | 'deployed' | 'deployed-by-another';

export interface DeployOnceOptions {
  chainName: string;
  description: DeploymentDescription;
  resolve: () => Promise<ResolvedDeployment>;
  /** How long a deployment another replica began may go without progress before this one resumes it. */
  stallMs?: number;
  onProgress?: (message: string) => void;
}

const ALLOWANCE = '0xdd62ed3e';

/**
 * The plan's last step is the last taker's Permit2 approval of the last token: when it shows, every earlier step
 * (contracts, tokens, funding) is there too, because the plan runs in order from one sender at a time.
 */
export async function deploymentComplete(rpc: RpcClient, description: DeploymentDescription): Promise<boolean> {
  const addresses = [...Object.values(description.contracts), ...description.tokens.map((t) => t.address)];
  const codes = await Promise.all(addresses.map((address) => rpc.call<Hex>('eth_getCode', [address, 'latest'])));
  if (codes.some((code) => code === '0x')) return false;
  const token = description.tokens.at(-1)?.address;
  const taker = description.accounts.takers.at(-1)?.address;
  const permit2 = description.contracts.Permit2;
  if (token === undefined || taker === undefined || permit2 === undefined) return true;
  const data = `${ALLOWANCE}${word(taker)}${word(permit2)}` as Hex;
  const allowance = await rpc.call<Hex>('eth_call', [{ to: token, data }, 'latest']);
  return BigInt(allowance) > 0n;
}

export async function deployOnce(rpc: RpcClient, options: DeployOnceOptions): Promise<DeploymentOutcome> {
  const { chainName, description } = options;
  if (await deploymentComplete(rpc, description)) return 'present';
  const deployment = await options.resolve();
  // Transactions are sent from the plan's accounts: unlocked on an anvil started with the sandbox's mnemonic,
  // impersonated on any other anvil.
  await Promise.all(allAccounts(description.accounts).map((a) => rpc.call('anvil_impersonateAccount', [a.address]).catch(() => undefined)));
  if (await claimDeployment(rpc, chainName, deployment, description.accounts)) {
    options.onProgress?.(`chain ${chainName}: deploying the contracts and funding the accounts (first attach)`);
    await deployPlan(rpc, chainName, deployment, description.accounts);
    return 'deployed';
  }
  options.onProgress?.(`chain ${chainName}: another replica is deploying; waiting for it`);
  await waitForAnother(rpc, options, deployment);
  return 'deployed-by-another';
}

/** Sends the plan's first CREATE2 creation; true when this transaction created the contract (we won the race). */
async function claimDeployment(rpc: RpcClient, chainName: string, deployment: ResolvedDeployment, accounts: Accounts): Promise<boolean> {
  const first = deployment.contracts.find((contract) => contract.initCode !== undefined && contract.runtimeCode === undefined);
  const deployer = accounts.deployer[0]?.address;
  if (first?.initCode === undefined || deployer === undefined)
    throw new DeploymentError(chainName, 'claim', 'the plan has no CREATE2 contract');
  if ((await rpc.call<Hex>('eth_getCode', [first.address, 'latest'])) !== '0x') return false;
  const data = `${DEPLOYMENT_SALT}${first.initCode.slice(2)}` as Hex;
  const tx = { from: deployer, to: CREATE2_DEPLOYER, data };
  let gas: bigint;
  try {
    gas = BigInt(await rpc.call<Hex>('eth_estimateGas', [tx]));
  } catch {
    // The creation reverts: another replica created it between our two calls.
    return false;
  }
  let receipt: { status: Hex };
  try {
    receipt = await rpc.call<{ status: Hex }>('eth_sendTransactionSync', [{ ...tx, gas: toQuantity((gas * 125n) / 100n) }]);
  } catch (error) {
    // Two replicas that attach at once send the very same transaction (same sender, nonce and data, so the same
    // hash): the node takes the first and refuses the second as already imported. That one lost the race.
    if (error instanceof RpcError && /already (imported|known)/i.test(error.message)) return false;
    throw error;
  }
  return receipt.status === '0x1';
}

/**
 * Waits for the replica that claimed the deployment. Its progress shows as the deployer's nonce growing; when that
 * stands still for `stallMs` (the other replica died mid-plan), this one resumes the plan: creations skip what
 * exists and the funding tops balances up to their targets, so a resumed plan adds nothing twice.
 */
async function waitForAnother(rpc: RpcClient, options: DeployOnceOptions, deployment: ResolvedDeployment): Promise<void> {
  const stallMs = options.stallMs ?? 15_000;
  const deployer = options.description.accounts.deployer[0]?.address as Address;
  let nonce = await rpc.call<Hex>('eth_getTransactionCount', [deployer, 'latest']);
  let progressedAt = Date.now();
  for (;;) {
    if (await deploymentComplete(rpc, options.description)) return;
    const now = await rpc.call<Hex>('eth_getTransactionCount', [deployer, 'latest']);
    if (now !== nonce) {
      nonce = now;
      progressedAt = Date.now();
    } else if (Date.now() - progressedAt > stallMs) {
      options.onProgress?.(`chain ${options.chainName}: the other replica's deployment stalled; resuming it`);
      await deployPlan(rpc, options.chainName, deployment, options.description.accounts);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function word(address: string): string {
  return address.slice(2).toLowerCase().padStart(64, '0');
}
