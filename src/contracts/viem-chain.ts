import { defineChain, type Chain } from 'viem';
import type { ChainInfo } from './deployment.js';

/**
 * A viem chain for a sandbox chain, for `createPublicClient({ chain, transport })`. Polling is short because
 * viem's default (4 s on a custom chain) makes sequential writes crawl; prefer `webSocket(chain.wsUrl)` to
 * watch events.
 */
export function viemChain(chain: ChainInfo): Chain {
  return defineChain({
    id: chain.chainId,
    name: `sandbox ${chain.name}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [chain.rpcUrl], webSocket: [chain.wsUrl] } },
    testnet: true,
  });
}

/** Polling interval (ms) that suits anvil's instant blocks. */
export const SANDBOX_POLLING_INTERVAL = 10;
