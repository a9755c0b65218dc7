/**
 * The exact EIP-712 payload a taker signs for each lock type (onchain.md, "What the taker signs"). The API's
 * quote detail hands these out so that `signTypedData` is the only thing a client does.
 */
import { type Address, type Hex, getAddress } from 'viem';
import { CANONICAL_PERMIT2, type LockType, type StandardOrder, bytes32ToAddress, mandateOutputAbi } from './order.js';

export interface TypedDataDomain {
  name: string;
  version?: string;
  chainId: bigint;
  verifyingContract: Address;
}

export interface TypedDataField {
  name: string;
  type: string;
}

export interface OrderTypedData {
  domain: TypedDataDomain;
  types: Record<string, TypedDataField[]>;
  primaryType: string;
  message: Record<string, unknown>;
}

// The EIP-712 struct has exactly the ABI tuple's fields, in order: one list serves both.
const MANDATE_OUTPUT_FIELDS: TypedDataField[] = mandateOutputAbi.components.map(({ name, type }) => ({ name, type }));

function outputsMessage(order: StandardOrder) {
  return order.outputs.map((o) => ({ ...o }));
}

/** Permit2 `PermitBatchWitnessTransferFrom` with the order's `Permit2Witness`; spender = InputSettlerEscrow. */
export function permit2OrderTypedData(order: StandardOrder, escrow: Address): OrderTypedData {
  return {
    domain: { name: 'Permit2', chainId: order.originChainId, verifyingContract: CANONICAL_PERMIT2 },
    types: {
      PermitBatchWitnessTransferFrom: [
        { name: 'permitted', type: 'TokenPermissions[]' },
        { name: 'spender', type: 'address' },
        { name: 'nonce', type: 'uint256' },
        { name: 'deadline', type: 'uint256' },
        { name: 'witness', type: 'Permit2Witness' },
      ],
      TokenPermissions: [
        { name: 'token', type: 'address' },
        { name: 'amount', type: 'uint256' },
      ],
      Permit2Witness: [
        { name: 'user', type: 'address' },
        { name: 'expires', type: 'uint32' },
        { name: 'inputOracle', type: 'address' },
        { name: 'outputs', type: 'MandateOutput[]' },
      ],
      MandateOutput: MANDATE_OUTPUT_FIELDS,
    },
    primaryType: 'PermitBatchWitnessTransferFrom',
    message: {
      permitted: order.inputs.map(([id, amount]) => ({ token: idToAddress(id), amount })),
      spender: getAddress(escrow),
      nonce: order.nonce,
      deadline: BigInt(order.fillDeadline),
      witness: {
        user: order.user,
        expires: order.expires,
        inputOracle: order.inputOracle,
        outputs: outputsMessage(order),
      },
    },
  };
}

export interface TokenDomain {
  /** The token's EIP-712 name (its ERC-20 name for our test stablecoins). */
  name: string;
  /** "2" for USDC-style tokens. */
  version: string;
  address: Address;
}

/**
 * ERC-3009 `ReceiveWithAuthorization` for one input: to = InputSettlerEscrow, validAfter 0, validBefore =
 * fillDeadline (exclusive), nonce = order id. Orders with several inputs sign one per input.
 */
export function eip3009OrderTypedData(
  order: StandardOrder,
  inputIndex: number,
  token: TokenDomain,
  escrow: Address,
  orderId: Hex,
): OrderTypedData {
  const input = order.inputs[inputIndex];
  if (!input) throw new Error(`order has no input ${inputIndex}`);
  if (idToAddress(input[0]) !== getAddress(token.address)) {
    throw new Error(`input ${inputIndex} is not token ${token.address}`);
  }
  return {
    domain: { name: token.name, version: token.version, chainId: order.originChainId, verifyingContract: getAddress(token.address) },
    types: {
      ReceiveWithAuthorization: [
        { name: 'from', type: 'address' },
        { name: 'to', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'validAfter', type: 'uint256' },
        { name: 'validBefore', type: 'uint256' },
        { name: 'nonce', type: 'bytes32' },
      ],
    },
    primaryType: 'ReceiveWithAuthorization',
    message: {
      from: order.user,
      to: getAddress(escrow),
      value: input[1],
      validAfter: 0n,
      validBefore: BigInt(order.fillDeadline),
      nonce: orderId,
    },
  };
}

/** Splits a resource-lock id (lockTag << 160 | token) into its parts. */
export function splitLockId(id: bigint): { lockTag: Hex; token: Address } {
  const lockTag = (id >> 160n).toString(16).padStart(24, '0');
  return { lockTag: `0x${lockTag}`, token: idToAddress(id & ((1n << 160n) - 1n)) };
}

/** Builds a resource-lock id from a 12-byte lock tag and a token. */
export function lockId(lockTag: Hex, token: Address): bigint {
  return (BigInt(lockTag) << 160n) | BigInt(getAddress(token));
}

/** The Compact `BatchCompact` with the order's `Mandate`; arbiter = InputSettlerCompact, sponsor = user. */
export function compactOrderTypedData(order: StandardOrder, lockContract: Address, arbiter: Address): OrderTypedData {
  return {
    domain: { name: 'The Compact', version: '1', chainId: order.originChainId, verifyingContract: getAddress(lockContract) },
    types: {
      BatchCompact: [
        { name: 'arbiter', type: 'address' },
        { name: 'sponsor', type: 'address' },
        { name: 'nonce', type: 'uint256' },
        { name: 'expires', type: 'uint256' },
        { name: 'commitments', type: 'Lock[]' },
        { name: 'mandate', type: 'Mandate' },
      ],
      Lock: [
        { name: 'lockTag', type: 'bytes12' },
        { name: 'token', type: 'address' },
        { name: 'amount', type: 'uint256' },
      ],
      Mandate: [
        { name: 'fillDeadline', type: 'uint32' },
        { name: 'inputOracle', type: 'address' },
        { name: 'outputs', type: 'MandateOutput[]' },
      ],
      MandateOutput: MANDATE_OUTPUT_FIELDS,
    },
    primaryType: 'BatchCompact',
    message: {
      arbiter: getAddress(arbiter),
      sponsor: order.user,
      nonce: order.nonce,
      expires: BigInt(order.expires),
      commitments: order.inputs.map(([id, amount]) => ({ ...splitLockId(id), amount })),
      mandate: { fillDeadline: order.fillDeadline, inputOracle: order.inputOracle, outputs: outputsMessage(order) },
    },
  };
}

export interface LockContracts {
  inputSettlerEscrow: Address;
  inputSettlerCompact: Address;
  resourceLock: Address;
}

/** The payload to sign for `lockType` (ERC-3009: the first input's authorization). */
export function orderTypedData(
  lockType: LockType,
  order: StandardOrder,
  contracts: LockContracts,
  options: { token?: TokenDomain; orderId?: Hex } = {},
): OrderTypedData {
  switch (lockType) {
    case 'Permit2Escrow':
      return permit2OrderTypedData(order, contracts.inputSettlerEscrow);
    case 'EIP3009Escrow':
      if (!options.token || !options.orderId) throw new Error('EIP3009Escrow needs the token domain and the order id');
      return eip3009OrderTypedData(order, 0, options.token, contracts.inputSettlerEscrow, options.orderId);
    case 'ResourceLock':
      return compactOrderTypedData(order, contracts.resourceLock, contracts.inputSettlerCompact);
  }
}

/**
 * JSON form of a payload for the wire: bigints become decimal strings. `typedDataFromJson` reverses it using
 * the types, so a client can pass the result straight to viem's `signTypedData`.
 */
export function typedDataToJson(typedData: OrderTypedData): unknown {
  return JSON.parse(JSON.stringify(typedData, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
}

export function typedDataFromJson(json: unknown): OrderTypedData {
  const data = json as OrderTypedData;
  const revive = (typeName: string, value: unknown): unknown => {
    const arrayMatch = /^(.*)\[\d*\]$/.exec(typeName);
    if (arrayMatch) return (value as unknown[]).map((v) => revive(arrayMatch[1]!, v));
    const fields = data.types[typeName];
    if (fields) {
      const object = value as Record<string, unknown>;
      return Object.fromEntries(fields.map((f) => [f.name, revive(f.type, object[f.name])]));
    }
    if (/^u?int\d*$/.test(typeName)) return BigInt(value as string);
    return value;
  };
  return {
    domain: { ...data.domain, chainId: BigInt(data.domain.chainId) },
    types: data.types,
    primaryType: data.primaryType,
    message: revive(data.primaryType, data.message) as Record<string, unknown>,
  };
}

function idToAddress(id: bigint): Address {
  if (id >> 160n !== 0n) throw new Error(`token id ${id} has dirty upper bits`);
  return getAddress(`0x${id.toString(16).padStart(40, '0')}`);
}

export { bytes32ToAddress };
