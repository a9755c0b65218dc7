import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Hex, hashTypedData } from 'viem';
import { hashTypedDataCached } from './typed-data-hash.js';
import {
  addressToBytes32,
  compactOrderTypedData,
  eip3009OrderTypedData,
  type OrderTypedData,
  permit2OrderTypedData,
  type StandardOrder,
  tokenId,
} from './index.js';

const token = '0x5FbDB2315678afecb367f032d93F642f64180aa3' as const;
const escrow = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512' as const;
const compactContract = '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0' as const;

const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => `0x${Buffer.from(b).toString('hex')}` as Hex);
const bytes = fc.uint8Array({ maxLength: 80 }).map((b) => `0x${Buffer.from(b).toString('hex')}` as Hex);
const uint = (bits: number) => fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n });

const output = fc.record({
  oracle: address.map(addressToBytes32),
  settler: address.map(addressToBytes32),
  chainId: uint(64),
  token: address.map(addressToBytes32),
  amount: uint(256),
  recipient: address.map(addressToBytes32),
  callbackData: bytes,
  context: bytes,
});

const order: fc.Arbitrary<StandardOrder> = fc.record({
  user: address,
  nonce: uint(256),
  originChainId: uint(64),
  expires: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
  fillDeadline: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
  inputOracle: address,
  inputs: fc.array(fc.tuple(uint(160), uint(256)), { minLength: 1, maxLength: 3 }),
  outputs: fc.array(output, { minLength: 1, maxLength: 3 }),
});

/** The three payloads takers sign (onchain.md), for one order. */
function payloads(o: StandardOrder, name: string, lockTag: bigint): OrderTypedData[] {
  // A resource lock's id carries its lock tag above the token's 160 bits.
  const locked: StandardOrder = { ...o, inputs: o.inputs.map(([id, amount]) => [(lockTag << 160n) | id, amount]) };
  const first: StandardOrder = { ...o, inputs: [[tokenId(token), o.inputs[0]![1]], ...o.inputs.slice(1)] };
  return [
    permit2OrderTypedData(o, escrow),
    compactOrderTypedData(locked, compactContract, escrow),
    eip3009OrderTypedData(first, 0, { name, version: '2', address: token }, escrow, addressToBytes32(o.user)),
  ];
}

function outcome(hash: () => Hex): { digest: Hex } | { refused: string } {
  try {
    return { digest: hash() };
  } catch (error) {
    return { refused: (error as Error).name };
  }
}

describe('hashTypedDataCached', () => {
  it("gives viem's hashTypedData digest for every order payload, also after its type hashes are remembered", () => {
    fc.assert(
      fc.property(order, fc.string({ maxLength: 20 }), uint(96), (o, name, lockTag) => {
        for (const payload of payloads(o, name, lockTag)) {
          const expected = hashTypedData(payload as unknown as Parameters<typeof hashTypedData>[0]);
          expect(hashTypedDataCached(payload)).toBe(expected);
          expect(hashTypedDataCached(payload)).toBe(expected);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('refuses what viem refuses (a bad address, an integer out of range), with the same error', () => {
    const valid = permit2OrderTypedData(fc.sample(order, { numRuns: 1, seed: 7 })[0]!, escrow);
    const witness = valid.message.witness as Record<string, unknown>;
    const broken: OrderTypedData[] = [
      { ...valid, message: { ...valid.message, witness: { ...witness, user: '0x1234' } } },
      { ...valid, message: { ...valid.message, witness: { ...witness, expires: 2 ** 32 } } },
      { ...valid, message: { ...valid.message, nonce: -1n } },
      { ...valid, primaryType: 'Unknown' },
    ];
    for (const payload of broken) {
      const expected = outcome(() => hashTypedData(payload as unknown as Parameters<typeof hashTypedData>[0]));
      expect('refused' in expected).toBe(true);
      expect(outcome(() => hashTypedDataCached(payload))).toEqual(expected);
    }
  });
});
