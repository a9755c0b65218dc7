/**
 * The StandardOrder as TypeScript sees it, and the order id every input settler computes.
 * Mirrors contracts/src/types/StandardOrder.sol and OrderHashLib.orderIdentifier exactly; the integration
 * test compares `orderIdentifier` with the deployed settler's `orderIdentifier(order)`.
 */
import { type Address, type Hex, encodeAbiParameters, encodePacked, getAddress, pad, size, sliceHex } from 'viem';
import { keccak256 } from './keccak.js';

export const CANONICAL_PERMIT2: Address = '0x000000000022D473030F116dDEE9F6B43aC78BA3';

// The lock types are wire vocabulary: one list for the protocol layer, the service's schemas and the clients.
export { LOCK_TYPES, type LockType } from './wire/enums.js';

export interface MandateOutput {
  oracle: Hex;
  settler: Hex;
  chainId: bigint;
  token: Hex;
  amount: bigint;
  recipient: Hex;
  callbackData: Hex;
  context: Hex;
}

export interface StandardOrder {
  user: Address;
  nonce: bigint;
  originChainId: bigint;
  expires: number;
  fillDeadline: number;
  inputOracle: Address;
  /** [tokenId, amount]; escrow token ids are uint256(uint160(token)), resource-lock ids lockTag << 160 | token. */
  inputs: readonly (readonly [bigint, bigint])[];
  outputs: readonly MandateOutput[];
}

export interface SolveParams {
  timestamp: number;
  solver: Hex;
}

/** ABI parameter of `MandateOutput`, field order as in Solidity. */
export const mandateOutputAbi = {
  type: 'tuple',
  components: [
    { name: 'oracle', type: 'bytes32' },
    { name: 'settler', type: 'bytes32' },
    { name: 'chainId', type: 'uint256' },
    { name: 'token', type: 'bytes32' },
    { name: 'amount', type: 'uint256' },
    { name: 'recipient', type: 'bytes32' },
    { name: 'callbackData', type: 'bytes' },
    { name: 'context', type: 'bytes' },
  ],
} as const;

/** ABI parameter of `StandardOrder`, field order as in Solidity. */
export const standardOrderAbi = {
  type: 'tuple',
  components: [
    { name: 'user', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'originChainId', type: 'uint256' },
    { name: 'expires', type: 'uint32' },
    { name: 'fillDeadline', type: 'uint32' },
    { name: 'inputOracle', type: 'address' },
    { name: 'inputs', type: 'uint256[2][]' },
    { name: 'outputs', type: 'tuple[]', components: mandateOutputAbi.components },
  ],
} as const;

/** Left-pads an address to the bytes32 identifier form used by outputs and solve params. */
export function addressToBytes32(address: Address): Hex {
  return pad(getAddress(address), { size: 32 }).toLowerCase() as Hex;
}

/** Reads an address back from a bytes32 identifier, refusing dirty upper bits. */
export function bytes32ToAddress(value: Hex): Address {
  if (size(value) !== 32) throw new Error(`expected 32 bytes, got ${size(value)}`);
  const upper = sliceHex(value, 0, 12);
  if (BigInt(upper) !== 0n) throw new Error(`identifier ${value} has dirty upper bits`);
  return getAddress(sliceHex(value, 12));
}

/** Escrow token id: uint256(uint160(token)). */
export function tokenId(token: Address): bigint {
  return BigInt(getAddress(token));
}

/** ABI encoding of the order (`abi.encode(order)`): the argument of the escrow's project-only `orderIdentifier(bytes)`. */
export function encodeOrder(order: StandardOrder): Hex {
  return encodeAbiParameters([standardOrderAbi], [toAbiOrder(order)]);
}

/** The order as viem's contract calls want it (readonly arrays, tuples). */
export function toAbiOrder(order: StandardOrder) {
  return {
    user: order.user,
    nonce: order.nonce,
    originChainId: order.originChainId,
    expires: order.expires,
    fillDeadline: order.fillDeadline,
    inputOracle: order.inputOracle,
    inputs: order.inputs.map(([id, amount]) => [id, amount] as const),
    outputs: order.outputs.map((o) => ({ ...o })),
  };
}

/**
 * Order id on the origin chain: keccak256(abi.encodePacked(chainId, settler, user, nonce, expires,
 * fillDeadline, inputOracle, keccak256(abi.encodePacked(inputs)), abi.encode(outputs))).
 */
export function orderIdentifier(order: StandardOrder, settler: Address, chainId: bigint = order.originChainId): Hex {
  const packedInputs = encodePacked(
    order.inputs.map(() => 'uint256[2]' as const),
    order.inputs.map(([id, amount]) => [id, amount] as const),
  );
  const encodedOutputs = encodeAbiParameters(
    [{ type: 'tuple[]', components: mandateOutputAbi.components }],
    [order.outputs.map((o) => ({ ...o }))],
  );
  return keccak256(
    encodePacked(
      ['uint256', 'address', 'address', 'uint256', 'uint32', 'uint32', 'address', 'bytes32', 'bytes'],
      [
        chainId,
        settler,
        order.user,
        order.nonce,
        order.expires,
        order.fillDeadline,
        order.inputOracle,
        keccak256(packedInputs),
        encodedOutputs,
      ],
    ),
  );
}
