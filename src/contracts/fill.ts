/**
 * Byte encodings of outputs and fills (contracts/src/libraries/FillDescriptionLib.sol): the output hash that
 * keys fill records on the destination chain, and the fill description an oracle carries to the origin chain.
 */
import { type Hex, concatHex, encodePacked, numberToHex, size } from 'viem';
import { keccak256 } from './keccak.js';
import type { MandateOutput, SolveParams, StandardOrder } from './order.js';

function lengthPrefixed(data: Hex): Hex {
  const length = size(data);
  if (length > 0xffff) throw new Error('callbackData and context are limited to 65,535 bytes');
  return concatHex([numberToHex(length, { size: 2 }), data]);
}

function commonPayload(output: MandateOutput): Hex {
  return concatHex([
    encodePacked(['bytes32', 'uint256', 'bytes32'], [output.token, output.amount, output.recipient]),
    lengthPrefixed(output.callbackData),
    lengthPrefixed(output.context),
  ]);
}

/** Collision-free encoding of a whole output. */
export function encodeMandateOutput(output: MandateOutput): Hex {
  return concatHex([
    encodePacked(['bytes32', 'bytes32', 'uint256'], [output.oracle, output.settler, output.chainId]),
    commonPayload(output),
  ]);
}

/** Hash that identifies an output on its destination chain. */
export function outputHash(output: MandateOutput): Hex {
  return keccak256(encodeMandateOutput(output));
}

/** solver ‖ orderId ‖ uint32 timestamp ‖ common payload: what the oracle pair proves. */
export function encodeFillDescription(solver: Hex, orderId: Hex, timestamp: number, output: MandateOutput): Hex {
  return concatHex([encodePacked(['bytes32', 'bytes32', 'uint32'], [solver, orderId, timestamp]), commonPayload(output)]);
}

/**
 * The proof series an input settler hands to `efficientRequireProven`: per output
 * chainId ‖ oracle ‖ settler ‖ keccak256(fill description).
 */
export function proofSeries(order: StandardOrder, orderId: Hex, solveParams: readonly SolveParams[]): Hex {
  return concatHex(
    order.outputs.map((output, i) => {
      const params = solveParams[i];
      if (!params) throw new Error(`missing solve params for output ${i}`);
      return encodePacked(
        ['uint256', 'bytes32', 'bytes32', 'bytes32'],
        [output.chainId, output.oracle, output.settler, keccak256(encodeFillDescription(params.solver, orderId, params.timestamp, output))],
      );
    }),
  );
}
