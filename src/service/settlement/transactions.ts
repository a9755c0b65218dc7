/**
 * Calldata of every transaction the engine sends: the taker's deposit, the two legs of the oracle relay and the
 * keeper's refund. Pure functions: which account sends them and when is the engine's business.
 */
import { type Address, type Hex, encodeFunctionData } from 'viem';
import { InputOracleArtifact } from '../../contracts/artifacts/InputOracle.js';
import { InputSettlerEscrowArtifact } from '../../contracts/artifacts/InputSettlerEscrow.js';
import { OutputOracleArtifact } from '../../contracts/artifacts/OutputOracle.js';
import { eip3009OpenSignature, permit2OpenSignature } from '../../contracts/encoders.js';
import { encodeFillDescription } from '../../contracts/fill.js';
import { type LockType, type MandateOutput, type StandardOrder, bytes32ToAddress, toAbiOrder } from '../../contracts/order.js';

/** `openFor(order, sponsor = user, signature)` with the lock type's signature prefix. */
export function openForCalldata(lockType: Exclude<LockType, 'ResourceLock'>, order: StandardOrder, signature: Hex): Hex {
  const prefixed = lockType === 'Permit2Escrow' ? permit2OpenSignature(signature) : eip3009OpenSignature([signature]);
  return encodeFunctionData({
    abi: InputSettlerEscrowArtifact.abi,
    functionName: 'openFor',
    args: [toAbiOrder(order), order.user, prefixed],
  });
}

export function refundCalldata(order: StandardOrder): Hex {
  return encodeFunctionData({ abi: InputSettlerEscrowArtifact.abi, functionName: 'refund', args: [toAbiOrder(order)] });
}

/** The fill description the oracle pair carries: exactly what the output settler recorded. */
export function fillPayload(fill: { solver: Hex; timestamp: number }, onchainOrderId: Hex, output: MandateOutput): Hex {
  return encodeFillDescription(fill.solver, onchainOrderId, fill.timestamp, output);
}

/** Destination leg: `OutputOracle.submit(settler, [payload])` asks the settler whether it recorded the fill. */
export function oracleSubmitCalldata(output: MandateOutput, payload: Hex): { to: Address; data: Hex } {
  return {
    to: bytes32ToAddress(output.oracle),
    data: encodeFunctionData({
      abi: OutputOracleArtifact.abi,
      functionName: 'submit',
      args: [bytes32ToAddress(output.settler), [payload]],
    }),
  };
}

/** Origin leg: `InputOracle.receiveAttestation(destination chain, destination oracle, settler, [payload])`. */
export function oracleReceiveCalldata(inputOracle: Address, output: MandateOutput, payload: Hex): { to: Address; data: Hex } {
  return {
    to: inputOracle,
    data: encodeFunctionData({
      abi: InputOracleArtifact.abi,
      functionName: 'receiveAttestation',
      args: [output.chainId, output.oracle, output.settler, [payload]],
    }),
  };
}
