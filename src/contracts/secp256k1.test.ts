import { randomBytes } from 'node:crypto';
import { type Hex, bytesToHex, keccak256, parseTransaction, recoverAddress, recoverTransactionAddress, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { recoverSigner, signEip1559Transaction } from './secp256k1.js';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const key = (): Hex => bytesToHex(randomBytes(32));
const hash = (): Hex => keccak256(randomBytes(40));
const word = (value: bigint) => toHex(value, { size: 32 }).slice(2);

/** What viem answers for the same question: the address, or that it throws. */
async function viemAnswer(digest: Hex, signature: Hex): Promise<string> {
  return recoverAddress({ hash: digest, signature }).catch(() => 'throws');
}
async function ourAnswer(digest: Hex, signature: Hex): Promise<string> {
  return recoverSigner(digest, signature).catch(() => 'throws');
}

describe('secp256k1 in libsecp256k1: the same answers as viem', () => {
  it('recovers the signer of 40 random signatures, with v as 27/28 and as 0/1', async () => {
    for (let i = 0; i < 40; i += 1) {
      const account = privateKeyToAccount(key());
      const digest = hash();
      const signature = await account.sign({ hash: digest });
      expect(await recoverSigner(digest, signature)).toBe(account.address);
      const v = Number.parseInt(signature.slice(130), 16);
      const asParity = `${signature.slice(0, 130)}0${v - 27}` as Hex;
      expect(await recoverSigner(digest, asParity)).toBe(account.address);
      // Another hash recovers someone else, exactly as viem says.
      const other = hash();
      expect(await recoverSigner(other, signature)).toBe(await viemAnswer(other, signature));
    }
  });

  it('agrees with viem on malformed signatures: r or s of 0 or ≥ n, high s, a bad v, wrong lengths', async () => {
    const account = privateKeyToAccount(key());
    const digest = hash();
    const good = await account.sign({ hash: digest });
    const r = BigInt(`0x${good.slice(2, 66)}`);
    const s = BigInt(`0x${good.slice(66, 130)}`);
    const v = good.slice(130);
    const cases: Hex[] = [
      `0x${word(0n)}${word(s)}${v}`,
      `0x${word(r)}${word(0n)}${v}`,
      `0x${word(N)}${word(s)}${v}`,
      `0x${word(r)}${word(N)}${v}`,
      `0x${word(r)}${word(N + 5n)}${v}`,
      // The same signature with s mirrored (high s, the other parity): it recovers, to the same signer.
      `0x${word(r)}${word(N - s)}${v === '1b' ? '1c' : '1b'}`,
      `0x${word(r)}${word(s)}1d`,
      `0x${word(r)}${word(s)}02`,
      `0x${word(r)}${word(s)}`,
      `${good}00` as Hex,
      '0x',
    ];
    for (const signature of cases) expect(await ourAnswer(digest, signature), signature).toBe(await viemAnswer(digest, signature));
    expect(await ourAnswer(digest, cases[5]!)).toBe(account.address);
  });

  it('signs an EIP-1559 transaction to the same bytes as viem, and the sender recovers from it', async () => {
    for (let i = 0; i < 20; i += 1) {
      const privateKey = key();
      const transaction = {
        type: 'eip1559' as const,
        chainId: 31_337 + i,
        nonce: i * 7,
        to: privateKeyToAccount(key()).address,
        data: bytesToHex(randomBytes(i * 13)),
        gas: 21_000n + BigInt(i) * 1_000n,
        value: 0n,
        maxFeePerGas: 3_000_000_000n + BigInt(i),
        maxPriorityFeePerGas: 1_000_000_000n,
      };
      const ours = await signEip1559Transaction(privateKey, transaction);
      expect(ours).toBe(await privateKeyToAccount(privateKey).signTransaction(transaction));
      expect(await recoverTransactionAddress({ serializedTransaction: ours as never })).toBe(privateKeyToAccount(privateKey).address);
      expect(parseTransaction(ours).nonce).toBe(i * 7);
    }
  });
});
