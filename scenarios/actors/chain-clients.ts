import { type Address, type PublicClient, createPublicClient, erc20Abi, http } from 'viem';
import { ResourceLockArtifact } from '../../src/contracts/artifacts/ResourceLock.js';
import { lockId } from '../../src/contracts/typed-data.js';
import type { ChainInfo } from '../../src/contracts/deployment.js';
import { compactLockTag } from '../../src/contracts/lock-tag.js';

const clients = new Map<string, PublicClient>();

/** One viem client per RPC URL (HTTP keep-alive; receipts polled every 10 ms, not viem's default 4 s). */
export function chainClient(chain: Pick<ChainInfo, 'rpcUrl'>): PublicClient {
  let client = clients.get(chain.rpcUrl);
  if (client === undefined) {
    client = createPublicClient({ transport: http(chain.rpcUrl, { retryCount: 1 }), pollingInterval: 10 });
    clients.set(chain.rpcUrl, client);
  }
  return client;
}

export function tokenOf(chain: ChainInfo, symbol: string): { address: Address; decimals: number; symbol: string } {
  const token = chain.tokens.find((t) => t.symbol === symbol);
  if (token === undefined) throw new Error(`chain ${chain.name} has no token ${symbol}`);
  return { address: token.address as Address, decimals: token.decimals, symbol: token.symbol };
}

export function contractOf(chain: ChainInfo, name: string): Address {
  const address = chain.contracts[name];
  if (address === undefined) throw new Error(`chain ${chain.name} has no ${name} contract`);
  return address as Address;
}

export async function tokenBalance(chain: ChainInfo, token: Address, owner: Address, blockNumber?: bigint): Promise<bigint> {
  return chainClient(chain).readContract({
    address: token,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
    ...(blockNumber === undefined ? {} : { blockNumber }),
  });
}

/** The sandbox lock id of `token` (AlwaysOkAllocator, the sandbox reset period). */
export function sandboxLockId(chain: ChainInfo, token: Address): bigint {
  return lockId(compactLockTag(contractOf(chain, 'AlwaysOkAllocator')), token);
}

/** ERC-6909 balance of a resource lock (what a ResourceLock order spends). */
export async function lockBalance(chain: ChainInfo, token: Address, owner: Address): Promise<bigint> {
  return chainClient(chain).readContract({
    address: contractOf(chain, 'ResourceLock'),
    abi: ResourceLockArtifact.abi,
    functionName: 'balanceOf',
    args: [owner, sandboxLockId(chain, token)],
  }) as Promise<bigint>;
}
