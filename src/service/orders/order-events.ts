/**
 * Reference A order events as the spec shows them (`order.created`, `order.settled`, `order.failed`). Amounts in
 * events are decimal strings of the output token (what the taker receives); the pair is `<OUTPUT>/<INPUT>` and the
 * side `buy`: the taker buys the output token with the input token.
 */
import { formatUnits, getAddress } from 'viem';
import type { ChainInfo } from '../../contracts/deployment.js';
import type { OrderRecord } from './order-repository.js';

export interface TokenFacts {
  symbol: string;
  decimals: number;
}

export function tokenFacts(chains: readonly ChainInfo[], chainId: number, address: string): TokenFacts {
  const chain = chains.find((c) => c.chainId === chainId);
  const token = chain?.tokens.find((t) => getAddress(t.address) === getAddress(address));
  return token ? { symbol: token.symbol, decimals: token.decimals } : { symbol: address, decimals: 0 };
}

export class OrderEventPayloads {
  constructor(private readonly chains: readonly ChainInfo[]) {}

  /** Output amount as a decimal string in token units. */
  amount(order: OrderRecord): string {
    const output = tokenFacts(this.chains, order.destinationChainId, order.outputToken);
    return formatUnits(BigInt(order.outputAmount), output.decimals);
  }

  pair(order: OrderRecord): string {
    const input = tokenFacts(this.chains, order.originChainId, order.inputToken);
    const output = tokenFacts(this.chains, order.destinationChainId, order.outputToken);
    return `${output.symbol}/${input.symbol}`;
  }

  created(order: OrderRecord): Record<string, unknown> {
    return {
      order: {
        id: order.id,
        pair: this.pair(order),
        side: 'buy',
        amount: this.amount(order),
        corridor: order.corridor,
        fillDeadline: order.fillDeadline,
        status: 'pending',
      },
    };
  }

  settled(order: OrderRecord, settledAt: number): Record<string, unknown> {
    return {
      order: {
        id: order.id,
        originTxHash: order.originTxHash,
        destinationTxHash: order.destinationTxHash,
        amount: this.amount(order),
        settledAt: new Date(settledAt).toISOString(),
      },
    };
  }

  /** Not shown by the spec beyond its place in the failure sequence: the refund, in the shape of `order.settled`. */
  failed(order: OrderRecord, refundedAt: number, refundTxHash: string | null): Record<string, unknown> {
    return {
      order: {
        id: order.id,
        status: 'failed',
        reason: 'fill_deadline_expired',
        originTxHash: order.originTxHash,
        refundTxHash,
        amount: this.amount(order),
        refundedAt: new Date(refundedAt).toISOString(),
      },
    };
  }
}
