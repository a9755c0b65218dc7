import type { Address, Hex, PublicClient } from 'viem';
import { isChainUnreachable } from '../settlement/rpc-transport.js';

/** How many deposit shapes are remembered; past it the memory starts over (the next of each shape estimates again). */
const REMEMBERED_SHAPES = 256;

/**
 * The gas limit of a deposit, and the simulation that refuses one that would revert before anything is recorded.
 *
 * `eth_estimateGas` answers both, but a node finds the estimate by running the transaction again and again (a
 * binary search over the gas limit): on anvil about 2 ms of the chain's CPU per deposit, more than the deposit
 * itself. Deposits come in few shapes (the chain, the settler, the lock type, the tokens), and one shape needs about
 * the same gas every time. So the first deposit of a shape is estimated, and its limit (the estimate with headroom)
 * is remembered; the next ones run once, with `eth_call` at that limit. A call that succeeds proves the deposit fits
 * in the limit on the chain's current state, which is all an estimate proves. A call that fails for any reason but an
 * outage is estimated as before: a revert then gets the estimate's answer (the custom error that names the reason),
 * and a deposit that needs more gas than the shape did so far gets its own limit, which the shape keeps from then on.
 */
export class DepositGasLimits {
  private readonly limits = new Map<string, bigint>();

  /** `withHeadroom`: the limit a deposit is sent with, from its estimate. */
  constructor(private readonly withHeadroom: (estimate: bigint) => bigint) {}

  /**
   * The gas limit to send `request` with, once the chain has run it without a revert; throws the chain's refusal (or
   * its outage) as `estimateGas` does.
   */
  async limitFor(client: PublicClient, request: { account: Address; to: Address; data: Hex }, shape: string): Promise<bigint> {
    const known = this.limits.get(shape);
    if (known !== undefined) {
      try {
        await client.call({ ...request, gas: known });
        return known;
      } catch (error) {
        // The chain did not answer: the estimate would not get an answer either.
        if (isChainUnreachable(error)) throw error;
      }
    }
    const limit = this.withHeadroom(await client.estimateGas(request));
    if (this.limits.size >= REMEMBERED_SHAPES && !this.limits.has(shape)) this.limits.clear();
    this.limits.set(shape, known === undefined || limit > known ? limit : known);
    return limit;
  }
}

/** What makes two deposits alike in gas: where they go, the lock type, and the tokens they move. */
export function depositShape(chainId: number, to: Address, lockType: string, tokens: readonly Hex[]): string {
  return `${chainId}:${to.toLowerCase()}:${lockType}:${tokens.map((token) => token.toLowerCase()).join(',')}`;
}
