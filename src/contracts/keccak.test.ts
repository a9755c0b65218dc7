import { randomBytes } from 'node:crypto';
import { bytesToHex, keccak256 as viemKeccak256 } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import { keccak256, keccakReady } from './keccak.js';

beforeAll(() => keccakReady);

describe('keccak256 (WebAssembly)', () => {
  it('gives viem’s bytes for inputs of every length around the sponge’s 136-byte rate, as hex and as bytes', () => {
    for (const length of [0, 1, 31, 32, 33, 64, 135, 136, 137, 271, 272, 273, 300, 1_000, 4_096]) {
      const bytes = new Uint8Array(randomBytes(length));
      const hex = bytesToHex(bytes);
      expect(keccak256(bytes)).toBe(viemKeccak256(bytes));
      expect(keccak256(hex)).toBe(viemKeccak256(hex));
      expect(keccak256(hex, 'hex')).toBe(viemKeccak256(hex, 'hex'));
      expect(keccak256(bytes, 'bytes')).toEqual(viemKeccak256(bytes, 'bytes'));
    }
  });

  it('reads odd-length hex as viem does, and leaves no state behind between calls', () => {
    expect(keccak256('0x1')).toBe(viemKeccak256('0x1'));
    expect(keccak256('0x')).toBe('0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    const first = keccak256('0x1234');
    keccak256(new Uint8Array(500));
    expect(keccak256('0x1234')).toBe(first);
  });
});
