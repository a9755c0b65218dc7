/**
 * Builds the StandardOrder a quote turns into for one taker: the single source for the quote detail's
 * `standardOrder`/`typedData` (auction) and for the order the service relays (orders). Both must agree byte for
 * byte, or the taker's signature would not match what is sent on chain.
 */
import { type Address, getAddress } from 'viem';
import { exclusiveLimitContext } from './output-context.js';
import type { ChainInfo } from './deployment.js';
import { type LockType, type StandardOrder, addressToBytes32, orderIdentifier, tokenId } from './order.js';
import { type LockContracts, type OrderTypedData, type TokenDomain, lockId, orderTypedData } from './typed-data.js';

export interface OrderTerms {
  originChain: ChainInfo;
  destinationChain: ChainInfo;
  inputToken: Address;
  outputToken: Address;
  inputAmount: bigint;
  outputAmount: bigint;
  lockType: LockType;
  /** Unix seconds. Opens must happen strictly before; fills at or before. */
  fillDeadline: number;
  /** Unix seconds, >= fillDeadline. Escrow refund strictly after; Compact claims strictly before. */
  expires: number;
  /**
   * The auction's winner fills alone until `until` (unix seconds): the output's context becomes OIF's exclusive
   * limit order `0xe0 ‖ bytes32(solver) ‖ uint32(until)`, and other solvers' fills revert `ExclusiveTo(solver)`
   * before then. Absent: a plain limit order (`0x`), fillable by anyone.
   */
  exclusive?: { solver: Address; until: number } | null | undefined;
}

import { compactLockTag } from './lock-tag.js';

export { compactLockTag, SANDBOX_LOCK_RESET_PERIOD } from './lock-tag.js';

function contract(chain: ChainInfo, name: string): Address {
  const address = chain.contracts[name];
  if (!address) throw new Error(`chain ${chain.name} has no ${name} contract`);
  return address;
}

export function lockContracts(chain: ChainInfo): LockContracts {
  return {
    inputSettlerEscrow: contract(chain, 'InputSettlerEscrow'),
    inputSettlerCompact: contract(chain, 'InputSettlerCompact'),
    resourceLock: contract(chain, 'ResourceLock'),
  };
}

/** The input settler that holds (or claims) the order on the origin chain; its address is part of the order id. */
export function inputSettlerFor(chain: ChainInfo, lockType: LockType): Address {
  return lockType === 'ResourceLock' ? contract(chain, 'InputSettlerCompact') : contract(chain, 'InputSettlerEscrow');
}

export function buildStandardOrder(terms: OrderTerms, user: Address, nonce: bigint, recipient: Address = user): StandardOrder {
  const { originChain, destinationChain } = terms;
  const inputId =
    terms.lockType === 'ResourceLock'
      ? lockId(compactLockTag(contract(originChain, 'AlwaysOkAllocator')), terms.inputToken)
      : tokenId(terms.inputToken);
  return {
    user: getAddress(user),
    nonce,
    originChainId: BigInt(originChain.chainId),
    expires: terms.expires,
    fillDeadline: terms.fillDeadline,
    inputOracle: contract(originChain, 'InputOracle'),
    inputs: [[inputId, terms.inputAmount]],
    outputs: [
      {
        oracle: addressToBytes32(contract(destinationChain, 'OutputOracle')),
        settler: addressToBytes32(contract(destinationChain, 'OutputSettler')),
        chainId: BigInt(destinationChain.chainId),
        token: addressToBytes32(terms.outputToken),
        amount: terms.outputAmount,
        recipient: addressToBytes32(recipient),
        callbackData: '0x',
        context: exclusiveLimitContext(terms.exclusive),
      },
    ],
  };
}

/** On-chain order id (bytes32) under the settler of the lock type. */
export function onchainOrderId(terms: Pick<OrderTerms, 'originChain' | 'lockType'>, order: StandardOrder): `0x${string}` {
  return orderIdentifier(order, inputSettlerFor(terms.originChain, terms.lockType));
}

/** The EIP-712 payload the taker signs for this order (ERC-3009: the input token's authorization). */
export function typedDataFor(terms: OrderTerms, order: StandardOrder): OrderTypedData {
  const contracts = lockContracts(terms.originChain);
  if (terms.lockType !== 'EIP3009Escrow') return orderTypedData(terms.lockType, order, contracts);
  const token = terms.originChain.tokens.find((t) => getAddress(t.address) === getAddress(terms.inputToken));
  if (!token) throw new Error(`token ${terms.inputToken} is not on chain ${terms.originChain.name}`);
  if (!token.eip3009) throw new Error(`token ${token.symbol} does not support ERC-3009`);
  const domain: TokenDomain = { name: token.name, version: '2', address: token.address };
  return orderTypedData('EIP3009Escrow', order, contracts, { token: domain, orderId: onchainOrderId(terms, order) });
}
