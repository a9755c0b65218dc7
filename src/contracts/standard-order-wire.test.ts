import { describe, expect, it } from 'vitest';
import { addressToBytes32, type StandardOrder } from './order.js';
import { lockId } from './typed-data.js';
import { standardOrderFromWire, standardOrderToWire } from './standard-order-wire.js';

const token = '0x2000000000000000000000000000000000000001';
const order: StandardOrder = {
  user: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  nonce: 2n ** 200n + 7n,
  originChainId: 31_337n,
  expires: 1_893_456_900,
  fillDeadline: 1_893_456_600,
  inputOracle: '0x1000000000000000000000000000000000000005',
  inputs: [[lockId('0x3000000000000000000000ab', token), 25_000_000_000n]],
  outputs: [
    {
      oracle: addressToBytes32('0x1000000000000000000000000000000000000006'),
      settler: addressToBytes32('0x1000000000000000000000000000000000000007'),
      chainId: 31_338n,
      token: addressToBytes32(token),
      amount: 24_990_000_000n,
      recipient: addressToBytes32('0x70997970C51812dc3A010C7d01b50e0d17dc79C8'),
      callbackData: '0x',
      context: '0x00',
    },
  ],
};

describe('StandardOrder wire form', () => {
  it('round-trips exactly, showing address-valued identifiers as addresses and lock ids as 32 bytes', () => {
    const wire = standardOrderToWire(order);
    expect(wire.inputs[0]![0]).toMatch(/^0x3000000000000000000000ab2000000000000000000000000000000000000001$/);
    expect(wire.outputs[0]).toMatchObject({ token, chainId: 31_338, amount: '24990000000', recipient: order.user });
    expect(wire.nonce).toBe((2n ** 200n + 7n).toString());
    expect(JSON.parse(JSON.stringify(wire))).toEqual(wire);
    expect(standardOrderFromWire(JSON.parse(JSON.stringify(wire)))).toEqual(order);
    const escrow = { ...order, inputs: [[BigInt(token), 1n]] as const };
    expect(standardOrderToWire(escrow).inputs[0]![0]).toBe(token);
    expect(standardOrderFromWire(standardOrderToWire(escrow))).toEqual(escrow);
  });

  it('also accepts decimal ids and full bytes32 fields, and refuses garbage', () => {
    const wire = standardOrderToWire(order);
    const lenient = {
      ...wire,
      inputs: [[order.inputs[0]![0].toString(), '25000000000']],
      outputs: [{ ...wire.outputs[0]!, token: order.outputs[0]!.token, chainId: '31338' }],
    };
    expect(standardOrderFromWire(lenient)).toEqual(order);
    expect(() => standardOrderFromWire({ ...wire, nonce: '1.5' })).toThrow(TypeError);
    expect(() => standardOrderFromWire({ ...wire, outputs: [{ ...wire.outputs[0]!, settler: '0x1234' }] })).toThrow(/20 or 32 bytes/);
    expect(() => standardOrderFromWire(null)).toThrow(TypeError);
  });
});
