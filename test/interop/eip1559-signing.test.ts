/**
 * The relayers' and the reference solvers' signed transactions (`signEip1559Transaction`, written with the project's
 * own encoder) read by ethers, an EIP-1559 implementation the code does not use: ethers parses each one back to its
 * fields and its sender, and ethers' own wallet signs the same fields to the same bytes (both sign with RFC 6979
 * nonces and low s).
 */
import { Transaction, Wallet } from 'ethers';
import fc from 'fast-check';
import { bytesToHex, getAddress, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { signEip1559Transaction } from '../../src/contracts/secp256k1.js';
import { keccakReady } from '../../src/contracts/keccak.js';

const amount = fc.oneof(fc.constantFrom(0n, 1n, 0x7fn, 0x80n, 0x100n), fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }));

describe('EIP-1559 transactions as ethers reads them', () => {
  it('parse back to their fields and sender, and ethers signs the same fields to the same bytes', async () => {
    await keccakReady;
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 32, maxLength: 32 }).filter((b) => b.some((x) => x !== 0)),
        fc.record({
          chainId: fc.integer({ min: 1, max: 2 ** 32 }),
          nonce: fc.integer({ min: 0, max: 2 ** 40 }),
          tip: amount,
          extra: amount,
          gas: fc.bigInt({ min: 21_000n, max: 30_000_000n }),
          to: fc.uint8Array({ minLength: 20, maxLength: 20 }),
          value: amount,
          data: fc.oneof(fc.constantFrom(0, 1, 55, 56, 300), fc.nat(2_000)).chain((n) => fc.uint8Array({ minLength: n, maxLength: n })),
        }),
        async (key, f) => {
          const privateKey = bytesToHex(key) as Hex;
          // Keys at or above the curve order are not keys; viem and ethers both refuse them.
          let wallet: Wallet;
          try {
            wallet = new Wallet(privateKey);
          } catch {
            return;
          }
          const fields = {
            chainId: f.chainId,
            nonce: f.nonce,
            maxPriorityFeePerGas: f.tip,
            maxFeePerGas: f.tip + f.extra,
            gas: f.gas,
            to: getAddress(bytesToHex(f.to)),
            value: f.value,
            data: bytesToHex(f.data) as Hex,
          };
          const ours = await signEip1559Transaction(privateKey, { type: 'eip1559', ...fields });
          const parsed = Transaction.from(ours);
          expect(parsed.type).toBe(2);
          expect(parsed.from).toBe(wallet.address);
          expect([parsed.chainId, BigInt(parsed.nonce), parsed.gasLimit, parsed.maxFeePerGas, parsed.maxPriorityFeePerGas]).toEqual([
            BigInt(fields.chainId),
            BigInt(fields.nonce),
            fields.gas,
            fields.maxFeePerGas,
            fields.maxPriorityFeePerGas,
          ]);
          expect([parsed.to, parsed.value, parsed.data]).toEqual([fields.to, fields.value, fields.data]);
          const theirs = await wallet.signTransaction({
            type: 2,
            chainId: fields.chainId,
            nonce: fields.nonce,
            maxPriorityFeePerGas: fields.maxPriorityFeePerGas,
            maxFeePerGas: fields.maxFeePerGas,
            gasLimit: fields.gas,
            to: fields.to,
            value: fields.value,
            data: fields.data,
          });
          expect(ours).toBe(theirs);
        },
      ),
      { numRuns: 60 },
    );
  });
});
