/**
 * The JSON form of a StandardOrder on the wire (quote detail, `order.assigned`): numbers that fit stay numbers,
 * uint256 values are decimal strings, and bytes32 identifiers that hold an address travel as that address, as the
 * interface spec shows them (`inputs` as [token, amount], outputs with `token`). Nothing is lost: an input id
 * with upper bits (a resource-lock id) travels as 32-byte hex, and `standardOrderFromWire` restores the exact
 * order from either form.
 */
import { type Address, type Hex, getAddress, isHex, pad, size } from 'viem';
import { type MandateOutput, type StandardOrder, addressToBytes32 } from './order.js';

export interface MandateOutputWire {
  oracle: string;
  settler: string;
  chainId: number;
  token: string;
  amount: string;
  recipient: string;
  callbackData: string;
  context: string;
}

export interface StandardOrderWire {
  user: string;
  nonce: string;
  originChainId: number;
  expires: number;
  fillDeadline: number;
  inputOracle: string;
  /** [token id, amount]: the token address for escrow orders, the 32-byte lock id for resource locks. */
  inputs: [string, string][];
  outputs: MandateOutputWire[];
}

const ADDRESS_MASK = (1n << 160n) - 1n;

function idToWire(id: bigint): string {
  if (id <= ADDRESS_MASK) return getAddress(`0x${id.toString(16).padStart(40, '0')}`);
  return `0x${id.toString(16).padStart(64, '0')}`;
}

function bytes32ToWire(value: Hex): string {
  const n = BigInt(value);
  return n <= ADDRESS_MASK ? getAddress(`0x${n.toString(16).padStart(40, '0')}`) : value.toLowerCase();
}

function wireToBytes32(value: string, field: string): Hex {
  if (!isHex(value)) throw new TypeError(`${field}: expected hex, got ${JSON.stringify(value)}`);
  if (size(value) === 20) return addressToBytes32(value as Address);
  if (size(value) === 32) return value.toLowerCase() as Hex;
  throw new TypeError(`${field}: expected 20 or 32 bytes, got ${size(value)}`);
}

function wireToUint(value: string | number, field: string): bigint {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) throw new TypeError(`${field}: not a non-negative integer`);
    return BigInt(value);
  }
  if (/^0x[0-9a-fA-F]+$/.test(value)) return BigInt(value);
  if (/^(0|[1-9][0-9]*)$/.test(value)) return BigInt(value);
  throw new TypeError(`${field}: expected an integer string, got ${JSON.stringify(value)}`);
}

export function standardOrderToWire(order: StandardOrder): StandardOrderWire {
  return {
    user: getAddress(order.user),
    nonce: order.nonce.toString(),
    originChainId: Number(order.originChainId),
    expires: order.expires,
    fillDeadline: order.fillDeadline,
    inputOracle: getAddress(order.inputOracle),
    inputs: order.inputs.map(([id, amount]) => [idToWire(id), amount.toString()]),
    outputs: order.outputs.map((output) => ({
      oracle: bytes32ToWire(output.oracle),
      settler: bytes32ToWire(output.settler),
      chainId: Number(output.chainId),
      token: bytes32ToWire(output.token),
      amount: output.amount.toString(),
      recipient: bytes32ToWire(output.recipient),
      callbackData: output.callbackData,
      context: output.context,
    })),
  };
}

/** Restores the exact order; also accepts decimal ids, bytes32 fields in full, and uint256 values as strings. */
export function standardOrderFromWire(wire: unknown): StandardOrder {
  const order = wire as StandardOrderWire;
  if (typeof order !== 'object' || order === null) throw new TypeError('standardOrder: expected an object');
  const outputs: MandateOutput[] = order.outputs.map((output, i) => ({
    oracle: wireToBytes32(output.oracle, `outputs.${i}.oracle`),
    settler: wireToBytes32(output.settler, `outputs.${i}.settler`),
    chainId: wireToUint(output.chainId, `outputs.${i}.chainId`),
    token: wireToBytes32(output.token, `outputs.${i}.token`),
    amount: wireToUint(output.amount, `outputs.${i}.amount`),
    recipient: wireToBytes32(output.recipient, `outputs.${i}.recipient`),
    callbackData: output.callbackData as Hex,
    context: output.context as Hex,
  }));
  return {
    user: getAddress(order.user),
    nonce: wireToUint(order.nonce, 'nonce'),
    originChainId: wireToUint(order.originChainId, 'originChainId'),
    expires: Number(order.expires),
    fillDeadline: Number(order.fillDeadline),
    inputOracle: getAddress(order.inputOracle),
    inputs: order.inputs.map(([id, amount], i) => [wireToUint(id, `inputs.${i}.0`), wireToUint(amount, `inputs.${i}.1`)] as const),
    outputs,
  };
}

/** Zero-padded bytes32 of an address (re-exported for clients that build fill data). */
export function solverIdentifier(address: Address): Hex {
  return pad(getAddress(address), { size: 32 }).toLowerCase() as Hex;
}
