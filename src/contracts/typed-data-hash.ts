/**
 * EIP-712 hashing with the type hashes remembered. viem's `hashTypedData` recomputes `keccak256(encodeType(T))` for
 * every struct it encodes (the order's message, each of its outputs and permissions, the domain), and keccak in
 * JavaScript showed in the service's profile of a settled order. This is the same algorithm, step for step (viem's
 * validation, field encoding and ABI encoding), except that a type hash is looked up by its type string.
 */
import { concat, encodeAbiParameters, getTypesForEIP712Domain, type Hex, toHex, validateTypedData } from 'viem';
import { keccak256 } from './keccak.js';

type Field = { name: string; type: string };
type Types = Record<string, readonly Field[]>;

export interface HashableTypedData {
  domain?: object;
  types: Types;
  primaryType: string;
  message: Record<string, unknown>;
}

/** Type hashes by type string: the service signs and checks a handful of order types. Bounded all the same. */
const typeHashes = new Map<string, Hex>();
const TYPE_HASHES_MAX = 256;

/** `hashTypedData(parameters)` of viem, for the same inputs the same digest (and the same refusals). */
export function hashTypedDataCached(parameters: HashableTypedData): Hex {
  const { domain = {}, message, primaryType } = parameters;
  const types: Types = {
    EIP712Domain: getTypesForEIP712Domain({ domain: domain as Parameters<typeof getTypesForEIP712Domain>[0]['domain'] }),
    ...parameters.types,
  };
  validateTypedData({ domain, message, primaryType, types } as unknown as Parameters<typeof validateTypedData>[0]);
  const parts: Hex[] = ['0x1901'];
  if (domain) parts.push(hashStruct(domain as Record<string, unknown>, 'EIP712Domain', types));
  if (primaryType !== 'EIP712Domain') parts.push(hashStruct(message, primaryType, types));
  return keccak256(concat(parts));
}

function hashStruct(data: Record<string, unknown>, primaryType: string, types: Types): Hex {
  return keccak256(encodeData(data, primaryType, types));
}

function encodeData(data: Record<string, unknown>, primaryType: string, types: Types): Hex {
  const encodedTypes: { type: string }[] = [{ type: 'bytes32' }];
  const encodedValues: unknown[] = [typeHash(primaryType, types)];
  for (const field of types[primaryType]!) {
    const [type, value] = encodeField(types, field.type, data[field.name]);
    encodedTypes.push(type);
    encodedValues.push(value);
  }
  return encodeAbiParameters(encodedTypes, encodedValues);
}

function typeHash(primaryType: string, types: Types): Hex {
  const encoded = encodeType(primaryType, types);
  let hash = typeHashes.get(encoded);
  if (hash === undefined) {
    hash = keccak256(toHex(encoded));
    if (typeHashes.size >= TYPE_HASHES_MAX) typeHashes.clear();
    typeHashes.set(encoded, hash);
  }
  return hash;
}

function encodeType(primaryType: string, types: Types): string {
  const unsorted = typeDependencies(primaryType, types);
  unsorted.delete(primaryType);
  let result = '';
  for (const type of [primaryType, ...Array.from(unsorted).sort()]) {
    result += `${type}(${types[type]!.map(({ name, type: t }) => `${t} ${name}`).join(',')})`;
  }
  return result;
}

function typeDependencies(type: string, types: Types, results = new Set<string>()): Set<string> {
  const primaryType = type.match(/^\w*/u)?.[0];
  if (primaryType === undefined || results.has(primaryType) || types[primaryType] === undefined) return results;
  results.add(primaryType);
  for (const field of types[primaryType]!) typeDependencies(field.type, types, results);
  return results;
}

function encodeField(types: Types, type: string, value: unknown): [{ type: string }, unknown] {
  if (types[type] !== undefined) return [{ type: 'bytes32' }, keccak256(encodeData(value as Record<string, unknown>, type, types))];
  if (type === 'bytes') return [{ type: 'bytes32' }, keccak256(value as Hex)];
  if (type === 'string') return [{ type: 'bytes32' }, keccak256(toHex(value as string))];
  if (type.lastIndexOf(']') === type.length - 1) {
    const itemType = type.slice(0, type.lastIndexOf('['));
    const pairs = (value as unknown[]).map((item) => encodeField(types, itemType, item));
    return [
      { type: 'bytes32' },
      keccak256(
        encodeAbiParameters(
          pairs.map(([t]) => t),
          pairs.map(([, v]) => v),
        ),
      ),
    ];
  }
  return [{ type }, value];
}
