import {
  type Abi,
  type AbiFunction,
  type Hex,
  concatHex,
  decodeAbiParameters,
  encodeAbiParameters,
  encodeFunctionData,
  toFunctionSelector,
} from 'viem';

/**
 * One contract function's calldata, encoded and decoded with its selector worked out once. viem's
 * `encodeFunctionData` and `decodeFunctionData` format the function's signature and hash it again on every call
 * (`decodeFunctionData` hashes every function of the ABI until one matches), which cost the service's thread about
 * 0.4 ms per settled order in keccak alone. The bytes are viem's: the selector, then `encodeAbiParameters` of the
 * function's inputs, as `encodeFunctionData` builds them (`function-call.test.ts` holds it to that).
 */
export interface FunctionCall {
  readonly name: string;
  readonly selector: Hex;
  encode(args: readonly unknown[]): Hex;
  /** The arguments of calldata for this function; undefined for calldata of another function (or too short). */
  decode(data: Hex): readonly unknown[] | undefined;
}

export function functionCall(abi: Abi, name: string): FunctionCall {
  const items = abi.filter((item): item is AbiFunction => item.type === 'function' && item.name === name);
  // An overloaded name needs its arguments to choose; none of the functions sent this way is overloaded.
  if (items.length !== 1) throw new Error(`the ABI has ${items.length} functions named ${name}; a FunctionCall needs exactly one`);
  const item = items[0]!;
  const selector = toFunctionSelector(item);
  return {
    name,
    selector,
    encode: (args) => concatHex([selector, encodeAbiParameters(item.inputs, args as never)]),
    decode: (data) => {
      if (data.length < 10 || data.slice(0, 10).toLowerCase() !== selector) return undefined;
      return decodeAbiParameters(item.inputs, `0x${data.slice(10)}`) as readonly unknown[];
    },
  };
}

/** FunctionCalls by ABI and name; null for a name the ABI overloads or lacks (viem chooses, or refuses). */
const calls = new WeakMap<Abi, Map<string, FunctionCall | null>>();

/**
 * `encodeFunctionData` with the selector worked out once per ABI and function (the same bytes); an overloaded or
 * unknown name goes to viem as it is.
 */
export function encodeCall(request: { abi: Abi; functionName: string; args: readonly unknown[] }): Hex {
  let byName = calls.get(request.abi);
  if (byName === undefined) {
    byName = new Map();
    calls.set(request.abi, byName);
  }
  let call = byName.get(request.functionName);
  if (call === undefined) {
    const functions = request.abi.filter((item) => item.type === 'function' && item.name === request.functionName);
    call = functions.length === 1 ? functionCall(request.abi, request.functionName) : null;
    byName.set(request.functionName, call);
  }
  return call === null ? encodeFunctionData(request as Parameters<typeof encodeFunctionData>[0]) : call.encode(request.args);
}
