import type { Address, Hex } from 'viem';
import type { MandateOutput, StandardOrder } from '../../contracts/order.js';

/** The StandardOrder as JSON (uints as decimal strings): stored with the order and sent to solvers. */
export interface StandardOrderJson {
  user: Address;
  nonce: string;
  originChainId: string;
  expires: number;
  fillDeadline: number;
  inputOracle: Address;
  inputs: [string, string][];
  outputs: {
    oracle: Hex;
    settler: Hex;
    chainId: string;
    token: Hex;
    amount: string;
    recipient: Hex;
    callbackData: Hex;
    context: Hex;
  }[];
}

export function standardOrderToJson(order: StandardOrder): StandardOrderJson {
  return {
    user: order.user,
    nonce: order.nonce.toString(),
    originChainId: order.originChainId.toString(),
    expires: order.expires,
    fillDeadline: order.fillDeadline,
    inputOracle: order.inputOracle,
    inputs: order.inputs.map(([id, amount]) => [id.toString(), amount.toString()]),
    outputs: order.outputs.map((o) => ({ ...o, chainId: o.chainId.toString(), amount: o.amount.toString() })),
  };
}

export function standardOrderFromJson(json: StandardOrderJson): StandardOrder {
  return {
    user: json.user,
    nonce: BigInt(json.nonce),
    originChainId: BigInt(json.originChainId),
    expires: json.expires,
    fillDeadline: json.fillDeadline,
    inputOracle: json.inputOracle,
    inputs: json.inputs.map(([id, amount]) => [BigInt(id), BigInt(amount)] as const),
    outputs: json.outputs.map((o): MandateOutput => ({ ...o, chainId: BigInt(o.chainId), amount: BigInt(o.amount) })),
  };
}
