import { describe, expect, it } from 'vitest';
import { hashTypedData, keccak256, recoverTypedDataAddress, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import {
  addressToBytes32,
  bytes32ToAddress,
  compactOrderTypedData,
  eip3009OrderTypedData,
  encodeFillDescription,
  encodeMandateOutput,
  lockId,
  orderIdentifier,
  permit2OrderTypedData,
  splitLockId,
  tokenId,
  typedDataFromJson,
  typedDataToJson,
  type StandardOrder,
} from './index.js';

const taker = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const token = '0x5FbDB2315678afecb367f032d93F642f64180aa3' as const;
const escrow = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512' as const;

function sampleOrder(): StandardOrder {
  return {
    user: taker.address,
    nonce: 7n,
    originChainId: 31337n,
    expires: 1_900_000_000,
    fillDeadline: 1_899_990_000,
    inputOracle: '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0',
    inputs: [[tokenId(token), 25_000_000_000n]],
    outputs: [
      {
        oracle: addressToBytes32('0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9'),
        settler: addressToBytes32('0xDc64a140Aa3E981100a9becA4E685f962f0cF6C9'),
        chainId: 31338n,
        token: addressToBytes32(token),
        amount: 24_990_000_000n,
        recipient: addressToBytes32(taker.address),
        callbackData: '0x',
        context: '0x',
      },
    ],
  };
}

describe('order identifiers', () => {
  it('changes when any signed field changes', () => {
    const base = orderIdentifier(sampleOrder(), escrow);
    const variants: Partial<StandardOrder>[] = [
      { nonce: 8n },
      { expires: 1_900_000_001 },
      { fillDeadline: 1_899_990_001 },
      { inputOracle: '0x0000000000000000000000000000000000000001' },
      { inputs: [[tokenId(token), 25_000_000_001n]] },
    ];
    for (const v of variants) expect(orderIdentifier({ ...sampleOrder(), ...v }, escrow)).not.toBe(base);
    expect(orderIdentifier(sampleOrder(), escrow, 1n)).not.toBe(base);
  });

  it('round-trips bytes32 identifiers and refuses dirty bits', () => {
    expect(bytes32ToAddress(addressToBytes32(taker.address))).toBe(taker.address);
    expect(() => bytes32ToAddress(`0x01${addressToBytes32(taker.address).slice(4)}`)).toThrow(/dirty/);
  });

  it('encodes fill descriptions with 2-byte length prefixes', () => {
    const output = { ...sampleOrder().outputs[0]!, callbackData: '0xabcd' as const };
    const description = encodeFillDescription(addressToBytes32(taker.address), keccak256('0x01'), 5, output);
    // solver 32 + orderId 32 + timestamp 4 + token 32 + amount 32 + recipient 32 + 2 + 2 + 2 + 0
    expect((description.length - 2) / 2).toBe(32 + 32 + 4 + 96 + 2 + 2 + 2);
    expect(encodeMandateOutput(output).slice(-12)).toBe('0002abcd0000');
  });
});

describe('typed data per lock type', () => {
  it('survives the JSON wire form and recovers the signer', async () => {
    const order = sampleOrder();
    const payloads = [
      permit2OrderTypedData(order, escrow),
      eip3009OrderTypedData(order, 0, { name: 'USD Coin', version: '2', address: token }, escrow, orderIdentifier(order, escrow)),
      compactOrderTypedData(
        { ...order, inputs: [[lockId('0x000000000000000000000001', token), 1n]] },
        '0x0165878A594ca255338adfa4d48449f69242Eb8F',
        escrow,
      ),
    ];
    for (const payload of payloads) {
      const revived = typedDataFromJson(JSON.parse(JSON.stringify(typedDataToJson(payload))));
      expect(hashTypedData(revived as never)).toBe(hashTypedData(payload as never));
      const signature = await taker.signTypedData(revived as never);
      expect(await recoverTypedDataAddress({ ...(payload as object), signature } as never)).toBe(taker.address);
    }
  });

  it('refuses an ERC-3009 payload for a token that is not the input', () => {
    const other = '0x0000000000000000000000000000000000000002';
    expect(() =>
      eip3009OrderTypedData(sampleOrder(), 0, { name: 'X', version: '2', address: other }, escrow, toHex(1, { size: 32 })),
    ).toThrow();
  });

  it('splits and rebuilds lock ids', () => {
    const id = lockId('0x00000000000000000000002a', token);
    expect(splitLockId(id)).toEqual({ lockTag: '0x00000000000000000000002a', token });
  });
});
