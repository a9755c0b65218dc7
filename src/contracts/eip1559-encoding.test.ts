import fc from 'fast-check';
import { bytesToHex, getAddress, type Hex, serializeTransaction, type TransactionSerializableEIP1559 } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { encodeEip1559, type RawSignature } from './eip1559-encoding.js';
import { signEip1559Transaction } from './secp256k1.js';

const hex = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : bytesToHex(bytes));
const word = (bytes: Uint8Array) => bytesToHex(bytes) as Hex;

/** Numbers at the edges RLP cares about: 0, one byte below and at 0x80, 55/56-byte lengths, up to 2^256 − 1. */
const amount = fc.oneof(
  fc.constantFrom(0n, 1n, 0x7fn, 0x80n, 0xffn, 0x100n, (1n << 256n) - 1n),
  fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }),
);
const transaction: fc.Arbitrary<TransactionSerializableEIP1559> = fc
  .record({
    chainId: fc.integer({ min: 1, max: 2 ** 40 }),
    nonce: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER })),
    maxPriorityFeePerGas: amount,
    extraFee: amount,
    gas: amount,
    // Checksummed (what callers pass, viem's `getAddress`), or all lower case.
    to: fc.option(
      fc.tuple(fc.uint8Array({ minLength: 20, maxLength: 20 }), fc.boolean()).map(([b, lower]) => {
        const address = getAddress(bytesToHex(b));
        return lower ? (address.toLowerCase() as Hex) : address;
      }),
      { nil: undefined },
    ),
    value: amount,
    // 0, 1, 55, 56 bytes and longer: the length header changes form at 56 and at 256.
    data: fc
      .oneof(fc.constantFrom(0, 1, 55, 56, 255, 256, 70_000), fc.nat(600))
      .chain((n) => fc.uint8Array({ minLength: n, maxLength: n })),
  })
  .map(({ extraFee, data, maxPriorityFeePerGas, ...rest }) => {
    const cap = maxPriorityFeePerGas + extraFee;
    return {
      type: 'eip1559' as const,
      ...rest,
      maxPriorityFeePerGas,
      maxFeePerGas: cap > (1n << 256n) - 1n ? maxPriorityFeePerGas : cap,
      data: bytesToHex(data),
    };
  });

/** r and s with leading zero bytes now and then (viem trims them; so must the encoder). */
const scalar = fc.oneof(
  fc.uint8Array({ minLength: 32, maxLength: 32 }),
  fc.tuple(fc.integer({ min: 1, max: 32 }), fc.uint8Array({ minLength: 32, maxLength: 32 })).map(([zeros, b]) => {
    const out = Uint8Array.from(b);
    out.fill(0, 0, zeros);
    return out;
  }),
);
const signature: fc.Arbitrary<RawSignature> = fc.record({ yParity: fc.constantFrom(0 as const, 1 as const), r: scalar, s: scalar });

describe('EIP-1559 transaction bytes', () => {
  it('are viem’s bytes, unsigned and signed, for any transaction and signature', () => {
    fc.assert(
      fc.property(transaction, signature, (tx, sig) => {
        expect(hex(encodeEip1559(tx))).toBe(serializeTransaction(tx));
        const viemSignature = { yParity: sig.yParity, r: word(sig.r), s: word(sig.s) };
        expect(hex(encodeEip1559(tx, sig))).toBe(serializeTransaction(tx, viemSignature));
      }),
      { numRuns: 300 },
    );
  });

  it('leaves to viem what viem refuses or reads its own way, so that a signed relay is viem’s answer either way', async () => {
    const base: TransactionSerializableEIP1559 = {
      type: 'eip1559',
      chainId: 31_337,
      nonce: 3,
      to: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      gas: 100_000n,
      maxFeePerGas: 3_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
      data: '0xabcdef',
    };
    const key: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
    const leftToViem: TransactionSerializableEIP1559[] = [
      { ...base, accessList: [{ address: '0x5FbDB2315678afecb367f032d93F642f64180aa3', storageKeys: [] }] },
      { ...base, data: '0xabc' },
      { ...base, data: '0xzz' as Hex },
      { ...base, to: '0x5fbDB2315678afecb367f032d93F642f64180aa3' },
      { ...base, maxPriorityFeePerGas: 4_000_000_000n },
      { ...base, chainId: 0 },
      { ...base, gas: -1n },
    ];
    for (const tx of leftToViem) {
      expect(encodeEip1559(tx)).toBeUndefined();
      const viem = await privateKeyToAccount(key)
        .signTransaction(tx)
        .catch((error: Error) => `throws ${error.name}`);
      const ours = await signEip1559Transaction(key, tx).catch((error: Error) => `throws ${error.name}`);
      expect(ours).toBe(viem);
    }
    // The usual relay goes through the encoder, to the same signed bytes as viem's.
    expect(encodeEip1559(base)).toBeDefined();
    expect(await signEip1559Transaction(key, base)).toBe(await privateKeyToAccount(key).signTransaction(base));
  });
});
