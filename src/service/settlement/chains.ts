import { type Address, type PublicClient, createPublicClient, getAddress } from 'viem';
import { keepAliveTransport } from './rpc-transport.js';
import type { ChainInfo } from '../../contracts/deployment.js';

/** The contracts the settlement engine talks to; one address each on every chain (CREATE2). */
export interface SettlementContracts {
  inputSettlerEscrow: Address;
  inputSettlerCompact: Address;
  inputOracle: Address;
  outputSettler: Address;
  outputOracle: Address;
  resourceLock: Address;
  allocator: Address;
}

/** One chain as the engine sees it: a client for calls and sends (IPC or HTTP), the WebSocket URL for watching. */
export interface SettlementChain {
  chainId: number;
  name: string;
  wsUrl: string;
  info: ChainInfo;
  client: PublicClient;
  contracts: SettlementContracts;
  /** Releases the client's sockets. */
  close(): void;
}

const REQUIRED: Record<keyof SettlementContracts, string> = {
  inputSettlerEscrow: 'InputSettlerEscrow',
  inputSettlerCompact: 'InputSettlerCompact',
  inputOracle: 'InputOracle',
  outputSettler: 'OutputSettler',
  outputOracle: 'OutputOracle',
  resourceLock: 'ResourceLock',
  allocator: 'AlwaysOkAllocator',
};

/** The chains that carry every settlement contract; others (a chain list without deployments) are skipped. */
export function settlementChains(
  infos: readonly ChainInfo[],
  options: { beforeCall?: (chainId: number, method: string) => Promise<void> | void } = {},
): SettlementChain[] {
  const chains: SettlementChain[] = [];
  for (const info of infos) {
    const entries = Object.entries(REQUIRED).map(([key, name]) => [key, info.contracts[name]] as const);
    if (entries.some(([, address]) => address === undefined)) continue;
    const contracts = Object.fromEntries(entries.map(([key, address]) => [key, getAddress(address!)])) as unknown as SettlementContracts;
    const beforeCall = options.beforeCall;
    const { transport, close } = keepAliveTransport(info.rpcUrl, {
      ipcPath: info.ipcPath,
      ...(beforeCall === undefined ? {} : { beforeCall: (method: string) => beforeCall(info.chainId, method) }),
    });
    chains.push({
      chainId: info.chainId,
      name: info.name,
      wsUrl: info.wsUrl,
      info,
      client: createPublicClient({ transport, pollingInterval: 50 }),
      contracts,
      close,
    });
  }
  return chains;
}

/**
 * The timestamp the chain's next block will carry (the `pending` block's), in Unix seconds: what a transaction sent
 * now is checked against. Blocks never go back in time, so once it is past a deadline, every later block is too.
 */
export async function nextBlockTime(chain: SettlementChain): Promise<number> {
  const pending = (await chain.client.request({ method: 'eth_getBlockByNumber', params: ['pending', false] })) as {
    timestamp: string;
  } | null;
  if (pending !== null) return Number(pending.timestamp);
  const latest = await chain.client.getBlock({ blockTag: 'latest' });
  return Number(latest.timestamp) + 1;
}
