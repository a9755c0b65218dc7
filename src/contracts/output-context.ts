/**
 * The `context` of a MandateOutput: which order type the output settler fills it as (OIF's layouts, see
 * contracts/src/output/OutputSettler.sol). The service writes the exclusive limit order for an auction's winner; a
 * solver reads any of them to know whether it may fill now.
 */
import { type Address, encodePacked, type Hex } from 'viem';
import { addressToBytes32 } from './order.js';

export type OutputContext =
  /** Empty or `0x00`: a limit order, fillable by anyone. */
  | { kind: 'limit' }
  /** `0xe0 ‖ bytes32 exclusiveFor ‖ uint32 until` or `0xe1 ‖ bytes32 exclusiveFor ‖ uint32 startTime ‖ …`: only `exclusiveFor` fills before `until`. */
  | { kind: 'exclusive'; type: '0xe0' | '0xe1'; exclusiveFor: Hex; until: number }
  /** `0x01 ‖ uint32 startTime ‖ uint32 stopTime ‖ uint256 slope`: a Dutch auction, fillable by anyone. */
  | { kind: 'dutch' }
  /** Anything else (the settler refuses it, or a type this code does not know). */
  | { kind: 'unknown'; type: string };

/** OIF's exclusive limit order `0xe0 ‖ bytes32(solver) ‖ uint32(until)`, or the empty limit-order context. */
export function exclusiveLimitContext(exclusive: { solver: Address; until: number } | null | undefined): Hex {
  if (exclusive == null) return '0x';
  return encodePacked(['bytes1', 'bytes32', 'uint32'], ['0xe0', addressToBytes32(exclusive.solver), exclusive.until]);
}

/** Reads a context's order type; lengths are not checked here (the settler does, with `InvalidContextLength`). */
export function readOutputContext(context: Hex): OutputContext {
  const hex = context.toLowerCase();
  if (hex === '0x' || hex === '0x00') return { kind: 'limit' };
  const type = hex.slice(0, 4);
  if ((type === '0xe0' || type === '0xe1') && hex.length >= 4 + 64 + 8) {
    return { kind: 'exclusive', type, exclusiveFor: `0x${hex.slice(4, 68)}`, until: Number.parseInt(hex.slice(68, 76), 16) };
  }
  if (type === '0x01') return { kind: 'dutch' };
  return { kind: 'unknown', type };
}
