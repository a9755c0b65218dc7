/**
 * Encoders for what the service and solvers send on chain: `openFor` signatures per lock type and
 * `finalise` arguments.
 */
import { type Hex, concatHex, encodeAbiParameters } from 'viem';
import type { SolveParams } from './order.js';

/** `openFor` signature for a Permit2 order: 0x00 ‖ signature. */
export function permit2OpenSignature(signature: Hex): Hex {
  return concatHex(['0x00', signature]);
}

/** `openFor` signature for ERC-3009: 0x01 ‖ signature, or 0x01 ‖ abi.encode(bytes[]) for several inputs. */
export function eip3009OpenSignature(signatures: readonly Hex[]): Hex {
  if (signatures.length === 0) throw new Error('at least one ERC-3009 signature is needed');
  if (signatures.length === 1) return concatHex(['0x01', signatures[0]!]);
  return concatHex(['0x01', encodeAbiParameters([{ type: 'bytes[]' }], [signatures])]);
}

/** `signatures` argument of InputSettlerCompact.finalise: abi.encode(sponsorSignature, allocatorData). */
export function compactClaimSignatures(sponsorSignature: Hex, allocatorData: Hex = '0x'): Hex {
  return encodeAbiParameters([{ type: 'bytes' }, { type: 'bytes' }], [sponsorSignature, allocatorData]);
}

/** `solveParams` for finalise from the fills observed on the destination chain, in output order. */
export function solveParamsFromFills(fills: readonly { solver: Hex; timestamp: number }[]): SolveParams[] {
  return fills.map((f) => ({ timestamp: f.timestamp, solver: f.solver }));
}
