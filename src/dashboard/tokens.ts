/** Which token an amount is in, so the page can print `12,500 USDC` instead of `12500000000`. Pure. */
import type { OrderView } from './orders.js';

export interface TokenRef {
  symbol: string;
  decimals: number;
  address: string;
}

export interface ChainTokens {
  name: string;
  chainId: number;
  tokens: readonly TokenRef[];
}

export interface CorridorSides {
  origin: { chain: string; symbol: string };
  destination: { chain: string; symbol: string };
}

/** `alpha:USDC-beta:USDC` → both sides; undefined for anything else. */
export function parseCorridor(id: string | undefined): CorridorSides | undefined {
  const match = id === undefined ? null : /^([a-z0-9-]+?):([^:-]+)-([a-z0-9-]+):([^:-]+)$/.exec(id);
  if (match === null) return undefined;
  return { origin: { chain: match[1]!, symbol: match[2]! }, destination: { chain: match[3]!, symbol: match[4]! } };
}

function tokenOn(
  chains: readonly ChainTokens[],
  chainId: number | undefined,
  address: string | undefined,
  side: { chain: string; symbol: string } | undefined,
): TokenRef | undefined {
  const chain = chains.find((c) => c.chainId === chainId) ?? chains.find((c) => c.name === side?.chain);
  if (chain === undefined) return undefined;
  if (address !== undefined) {
    const byAddress = chain.tokens.find((t) => t.address.toLowerCase() === address.toLowerCase());
    if (byAddress !== undefined) return byAddress;
  }
  return side === undefined ? undefined : chain.tokens.find((t) => t.symbol === side.symbol);
}

export function inputTokenOf(order: OrderView, chains: readonly ChainTokens[]): TokenRef | undefined {
  return tokenOn(chains, order.originChainId, order.inputToken, parseCorridor(order.corridor)?.origin);
}

export function outputTokenOf(order: OrderView, chains: readonly ChainTokens[]): TokenRef | undefined {
  return tokenOn(chains, order.destinationChainId, order.outputToken, parseCorridor(order.corridor)?.destination);
}

/** The corridor id when the service did not send one: built from chain names and token symbols. */
export function corridorOf(order: OrderView, chains: readonly ChainTokens[]): string | undefined {
  if (order.corridor !== undefined) return order.corridor;
  const origin = chains.find((c) => c.chainId === order.originChainId);
  const destination = chains.find((c) => c.chainId === order.destinationChainId);
  const input = inputTokenOf(order, chains);
  const output = outputTokenOf(order, chains);
  if (origin === undefined || destination === undefined) return undefined;
  return `${origin.name}:${input?.symbol ?? '?'}-${destination.name}:${output?.symbol ?? '?'}`;
}
