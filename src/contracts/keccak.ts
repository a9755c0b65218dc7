import { createKeccak, type IHasher } from 'hash-wasm';
import { type ByteArray, type Hex, hexToBytes, keccak256 as javascriptKeccak256 } from 'viem';

/**
 * Keccak-256 in WebAssembly (npm's `hash-wasm`): the service hashes every relayed transaction twice (its signing hash
 * and its hash), every order's EIP-712 payload, order ids and fill descriptions, and viem's JavaScript keccak was
 * 8 % of the service thread's CPU in the settlement bench (about 21 µs per 300-byte input, against 2–3 µs here).
 * The same bytes as viem's `keccak256`, with its signature; `keccak.test.ts` compares them.
 */
let hasher: IHasher | undefined;

/**
 * Resolves once the WebAssembly hasher is ready (it compiles when this module loads, a few milliseconds); until then,
 * and wherever WebAssembly cannot load, hashes come from viem's JavaScript keccak.
 */
export const keccakReady: Promise<void> = createKeccak(256).then(
  (ready) => {
    hasher = ready;
  },
  () => undefined,
);

export function keccak256(value: Hex | ByteArray): Hex;
export function keccak256(value: Hex | ByteArray, to: 'hex'): Hex;
export function keccak256(value: Hex | ByteArray, to: 'bytes'): ByteArray;
export function keccak256(value: Hex | ByteArray, to: 'hex' | 'bytes' = 'hex'): Hex | ByteArray {
  if (hasher === undefined) return javascriptKeccak256(value, to as 'hex');
  // Synchronous from init to digest: no other hash can interleave on this thread.
  hasher.init();
  hasher.update(typeof value === 'string' ? hexToBytes(value) : value);
  return to === 'bytes' ? hasher.digest('binary') : `0x${hasher.digest('hex')}`;
}
