/**
 * FunctionCall gives viem's calldata: random arguments for each function the engine sends (openFor with a whole
 * StandardOrder, refund, the oracle's submit and receiveAttestation) encode to `encodeFunctionData`'s bytes and
 * decode back to `decodeFunctionData`'s arguments; calldata of another function decodes to undefined; a name the ABI
 * lacks or overloads is refused when the FunctionCall is made.
 */
import fc from 'fast-check';
import { type Abi, bytesToHex, decodeFunctionData, encodeFunctionData, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { InputOracleArtifact } from './artifacts/InputOracle.js';
import { InputSettlerEscrowArtifact } from './artifacts/InputSettlerEscrow.js';
import { OutputOracleArtifact } from './artifacts/OutputOracle.js';
import { encodeCall, functionCall } from './function-call.js';

const hexOf = (length: number) => fc.uint8Array({ minLength: length, maxLength: length }).map((bytes) => bytesToHex(bytes));
const address = hexOf(20);
const word = hexOf(32);
const bytes = fc.uint8Array({ maxLength: 300 }).map((b) => bytesToHex(b));
const uint = (bits: number) => fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n });
const uint32 = fc.integer({ min: 0, max: 2 ** 32 - 1 });

const output = fc.record({
  oracle: word,
  settler: word,
  chainId: uint(256),
  token: word,
  amount: uint(256),
  recipient: word,
  callbackData: bytes,
  context: bytes,
});
const order = fc.record({
  user: address,
  nonce: uint(256),
  originChainId: uint(256),
  expires: uint32,
  fillDeadline: uint32,
  inputOracle: address,
  inputs: fc.array(fc.tuple(uint(256), uint(256)), { maxLength: 3 }),
  outputs: fc.array(output, { maxLength: 3 }),
});

const cases: Array<{ abi: Abi; name: string; args: fc.Arbitrary<readonly unknown[]> }> = [
  { abi: InputSettlerEscrowArtifact.abi as Abi, name: 'openFor', args: fc.tuple(order, address, bytes) },
  { abi: InputSettlerEscrowArtifact.abi as Abi, name: 'refund', args: fc.tuple(order) },
  { abi: OutputOracleArtifact.abi as Abi, name: 'submit', args: fc.tuple(address, fc.array(bytes, { maxLength: 4 })) },
  {
    abi: InputOracleArtifact.abi as Abi,
    name: 'receiveAttestation',
    args: fc.tuple(uint(256), word, word, fc.array(bytes, { maxLength: 4 })),
  },
];

/** Addresses come back checksummed from both decoders; compare them as text. */
const normal = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : typeof v === 'string' ? v.toLowerCase() : v)));

describe('functionCall', () => {
  for (const { abi, name, args } of cases) {
    it(`encodes and decodes ${name} as viem does`, () => {
      const call = functionCall(abi, name);
      fc.assert(
        fc.property(args, (values) => {
          const ours = call.encode(values);
          const viems = encodeFunctionData({ abi, functionName: name, args: values } as never) as Hex;
          expect(ours).toBe(viems);
          const decoded = decodeFunctionData({ abi, data: viems });
          expect(decoded.functionName).toBe(name);
          expect(normal(call.decode(viems))).toEqual(normal(decoded.args));
          // Upper-case hex is the same calldata.
          expect(normal(call.decode(`0x${viems.slice(2).toUpperCase()}`))).toEqual(normal(decoded.args));
        }),
        { numRuns: 60 },
      );
    });
  }

  it('decodes calldata of another function, or too short for a selector, to undefined', () => {
    const submit = functionCall(OutputOracleArtifact.abi as Abi, 'submit');
    const receive = functionCall(InputOracleArtifact.abi as Abi, 'receiveAttestation');
    const data = receive.encode([1n, `0x${'11'.repeat(32)}`, `0x${'22'.repeat(32)}`, ['0x1234']]);
    expect(submit.decode(data)).toBeUndefined();
    expect(submit.decode('0x')).toBeUndefined();
    expect(submit.decode(submit.selector.slice(0, 8) as Hex)).toBeUndefined();
  });

  it('throws on calldata of its own function whose arguments do not decode', () => {
    const submit = functionCall(OutputOracleArtifact.abi as Abi, 'submit');
    expect(() => submit.decode(`${submit.selector}00`)).toThrow();
  });

  it('refuses a name the ABI lacks, and one it overloads', () => {
    expect(() => functionCall(OutputOracleArtifact.abi as Abi, 'noSuchFunction')).toThrow(/0 functions named noSuchFunction/);
    const overloaded = [
      { type: 'function', name: 'f', inputs: [{ name: 'a', type: 'uint256' }], outputs: [], stateMutability: 'nonpayable' },
      { type: 'function', name: 'f', inputs: [{ name: 'a', type: 'bytes' }], outputs: [], stateMutability: 'nonpayable' },
    ] as const satisfies Abi;
    expect(() => functionCall(overloaded, 'f')).toThrow(/2 functions named f/);
  });

  it("encodeCall gives viem's bytes, and leaves an overloaded name to viem", () => {
    const args = [`0x${'ab'.repeat(20)}`, ['0x01', '0x']] as const;
    const abi = OutputOracleArtifact.abi as Abi;
    expect(encodeCall({ abi, functionName: 'submit', args })).toBe(encodeFunctionData({ abi, functionName: 'submit', args } as never));
    // Twice: the second comes from the cache.
    expect(encodeCall({ abi, functionName: 'submit', args })).toBe(encodeFunctionData({ abi, functionName: 'submit', args } as never));
    const overloaded = [
      { type: 'function', name: 'f', inputs: [{ name: 'a', type: 'uint256' }], outputs: [], stateMutability: 'nonpayable' },
      { type: 'function', name: 'f', inputs: [{ name: 'a', type: 'bytes' }], outputs: [], stateMutability: 'nonpayable' },
    ] as const satisfies Abi;
    expect(encodeCall({ abi: overloaded, functionName: 'f', args: [7n] })).toBe(
      encodeFunctionData({ abi: overloaded, functionName: 'f', args: [7n] }),
    );
    expect(encodeCall({ abi: overloaded, functionName: 'f', args: ['0x1234'] })).toBe(
      encodeFunctionData({ abi: overloaded, functionName: 'f', args: ['0x1234'] }),
    );
    expect(() => encodeCall({ abi, functionName: 'noSuchFunction', args: [] })).toThrow();
  });
});
