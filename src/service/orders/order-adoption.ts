/**
 * OIF-native intake: an order a taker opened directly on an escrow (`open` or `openFor` sent by anyone but the
 * service), found from upstream's `Open(bytes32 indexed, StandardOrder)` event. It becomes the API order
 * `ord_<on-chain order id, 64 lowercase hex digits without 0x>` and then follows the same lifecycle as any other.
 */
import type { Logger } from 'pino';
import { type Address, getAddress, type Hex } from 'viem';
import type { ChainInfo } from '../../contracts/deployment.js';
import { bytes32ToAddress, type StandardOrder } from '../../contracts/order.js';
import type { ChainFact } from '../settlement/chain-facts.js';
import type { OrderRecord } from './order-repository.js';

/** The solver id of adopted orders: there was no auction, so no winner; every solver may fill. */
export const ONCHAIN_SOLVER = 'onchain';

/** The API id of an order adopted from its `Open` event. */
export function adoptedOrderId(onchainOrderId: string): string {
  return `ord_${onchainOrderId.toLowerCase().slice(2)}`;
}

type OpenedFact = Extract<ChainFact, { kind: 'opened' }>;

/**
 * The order record for an `Open` the service did not send, or undefined when the service could not settle it.
 * Only orders opened on a configured chain's escrow are adopted, with one input and one output whose oracle and
 * settler are the destination chain's `OutputOracle` and `OutputSettler`, and the origin chain's `InputOracle`:
 * anything else would sit in the API with no attestation the service could relay.
 */
export function adoptedOrder(
  chains: readonly ChainInfo[],
  logger: Logger,
  fact: OpenedFact,
  order: StandardOrder,
  at: number,
): OrderRecord | undefined {
  const origin = chains.find((c) => c.chainId === fact.chainId);
  const output = order.outputs[0];
  const destination = output && chains.find((c) => BigInt(c.chainId) === output.chainId);
  const input = order.inputs[0];
  const outputToken = output === undefined ? undefined : addressIn(output.token);
  if (
    origin === undefined ||
    destination === undefined ||
    output === undefined ||
    input === undefined ||
    outputToken === undefined ||
    input[0] >= 1n << 160n ||
    order.outputs.length !== 1 ||
    order.inputs.length !== 1 ||
    BigInt(origin.chainId) !== order.originChainId ||
    !sameAddress(fact.address, origin.contracts.InputSettlerEscrow) ||
    !sameAddress(order.inputOracle, origin.contracts.InputOracle) ||
    !sameAddress(addressIn(output.oracle), destination.contracts.OutputOracle) ||
    !sameAddress(addressIn(output.settler), destination.contracts.OutputSettler)
  ) {
    logger.info({ onchainOrderId: fact.onchainOrderId, chainId: fact.chainId }, 'on-chain order not adopted: not settleable here');
    return undefined;
  }
  const hex = fact.onchainOrderId.toLowerCase().slice(2);
  const inputToken = getAddress(`0x${input[0].toString(16).padStart(40, '0')}`);
  const symbol = (chain: ChainInfo, token: string) => chain.tokens.find((t) => sameAddress(t.address, token))?.symbol ?? token;
  return {
    id: adoptedOrderId(fact.onchainOrderId),
    workspaceId: null,
    quoteId: `onchain_${hex}`,
    rfqId: 'onchain',
    solverId: ONCHAIN_SOLVER,
    user: order.user,
    nonce: order.nonce,
    lockType: 'Permit2Escrow',
    settlementPath: 'direct',
    corridor: `${symbol(origin, inputToken)}/${symbol(destination, outputToken)} onchain`,
    originChainId: origin.chainId,
    destinationChainId: destination.chainId,
    inputToken,
    outputToken,
    inputAmount: input[1].toString(),
    outputAmount: output.amount.toString(),
    fillDeadline: order.fillDeadline,
    expires: order.expires,
    onchainOrderId: fact.onchainOrderId,
    standardOrder: order,
    signature: '0x',
    status: 'Opening',
    screening: { attestation: null, checks: [] },
    originTxHash: null,
    destinationTxHash: null,
    oracleAttestationHash: null,
    claimTxHash: null,
    refundTxHash: null,
    rejectReason: null,
    quoteCreatedAt: at,
    createdAt: at,
    updatedAt: at,
    settledAt: null,
  };
}

/** The address a bytes32 identifier carries, or undefined when its upper 12 bytes are not zero (anyone can emit such an order). */
function addressIn(identifier: Hex): Address | undefined {
  try {
    return bytes32ToAddress(identifier);
  } catch {
    return undefined;
  }
}

function sameAddress(a: string | undefined, b: string | undefined): boolean {
  return a !== undefined && b !== undefined && a.toLowerCase() === b.toLowerCase();
}
