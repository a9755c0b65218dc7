/**
 * Calldata of every transaction the engine sends: the taker's deposit, the two legs of the oracle relay and the
 * keeper's refund. Pure functions: which account sends them and when is the engine's business.
 */
import type { Address, Hex } from 'viem';
import { InputOracleArtifact } from '../../contracts/artifacts/InputOracle.js';
import { InputSettlerEscrowArtifact } from '../../contracts/artifacts/InputSettlerEscrow.js';
import { OutputOracleArtifact } from '../../contracts/artifacts/OutputOracle.js';
import { eip3009OpenSignature, permit2OpenSignature } from '../../contracts/encoders.js';
import { encodeFillDescription } from '../../contracts/fill.js';
import { functionCall } from '../../contracts/function-call.js';
import { type LockType, type MandateOutput, type StandardOrder, bytes32ToAddress, toAbiOrder } from '../../contracts/order.js';

/** The functions the engine calls, each with its selector worked out once (see FunctionCall). */
const OPEN_FOR = functionCall(InputSettlerEscrowArtifact.abi, 'openFor');
const REFUND = functionCall(InputSettlerEscrowArtifact.abi, 'refund');
const SUBMIT = functionCall(OutputOracleArtifact.abi, 'submit');
const RECEIVE_ATTESTATION = functionCall(InputOracleArtifact.abi, 'receiveAttestation');

/** `openFor(order, sponsor = user, signature)` with the lock type's signature prefix. */
export function openForCalldata(lockType: Exclude<LockType, 'ResourceLock'>, order: StandardOrder, signature: Hex): Hex {
  const prefixed = lockType === 'Permit2Escrow' ? permit2OpenSignature(signature) : eip3009OpenSignature([signature]);
  return OPEN_FOR.encode([toAbiOrder(order), order.user, prefixed]);
}

export function refundCalldata(order: StandardOrder): Hex {
  return REFUND.encode([toAbiOrder(order)]);
}

/** The fill description the oracle pair carries: exactly what the output settler recorded. */
export function fillPayload(fill: { solver: Hex; timestamp: number }, onchainOrderId: Hex, output: MandateOutput): Hex {
  return encodeFillDescription(fill.solver, onchainOrderId, fill.timestamp, output);
}

/** Destination leg: `OutputOracle.submit(settler, [payload])` asks the settler whether it recorded the fill. */
export function oracleSubmitCalldata(output: MandateOutput, payload: Hex): { to: Address; data: Hex } {
  return {
    to: bytes32ToAddress(output.oracle),
    data: SUBMIT.encode([bytes32ToAddress(output.settler), [payload]]),
  };
}

/** Origin leg: `InputOracle.receiveAttestation(destination chain, destination oracle, settler, [payload])`. */
export function oracleReceiveCalldata(inputOracle: Address, output: MandateOutput, payload: Hex): { to: Address; data: Hex } {
  return {
    to: inputOracle,
    data: RECEIVE_ATTESTATION.encode([output.chainId, output.oracle, output.settler, [payload]]),
  };
}

/**
 * One oracle leg as the relayer can carry it with others: the payload, and what must be equal for two legs to share
 * one transaction (the contract, and every argument but the payloads). Undefined for calldata that is not one of the
 * two legs.
 */
export interface OracleLeg {
  batchKey: string;
  payloads: readonly Hex[];
}

export function oracleLegOf(kind: 'oracle.submit' | 'oracle.receive', to: Address, data: Hex): OracleLeg | undefined {
  try {
    if (kind === 'oracle.submit') {
      const args = SUBMIT.decode(data);
      if (args === undefined) return undefined;
      const [settler, payloads] = args as readonly [Address, readonly Hex[]];
      return { batchKey: `submit:${to.toLowerCase()}:${settler.toLowerCase()}`, payloads };
    }
    const args = RECEIVE_ATTESTATION.decode(data);
    if (args === undefined) return undefined;
    const [chainId, oracle, settler, payloads] = args as readonly [bigint, Hex, Hex, readonly Hex[]];
    return { batchKey: `receive:${to.toLowerCase()}:${chainId}:${oracle.toLowerCase()}:${settler.toLowerCase()}`, payloads };
  } catch {
    return undefined;
  }
}

/**
 * The calldata of several legs with one batch key in one call: both oracle functions take a list of payloads, and
 * the first leg's calldata names the other arguments. `submit` reverts unless the settler recorded every fill;
 * `receiveAttestation` records each payload once.
 */
export function oracleBatchCalldata(kind: 'oracle.submit' | 'oracle.receive', first: Hex, legs: readonly OracleLeg[]): Hex {
  const payloads = legs.flatMap((leg) => leg.payloads);
  const call = kind === 'oracle.submit' ? SUBMIT : RECEIVE_ATTESTATION;
  const args = call.decode(first);
  if (args === undefined) throw new Error(`the first leg of a batch is not a call of ${call.name}`);
  if (kind === 'oracle.submit') return SUBMIT.encode([args[0], payloads]);
  const [chainId, oracle, settler] = args as readonly [bigint, Hex, Hex, readonly Hex[]];
  return RECEIVE_ATTESTATION.encode([chainId, oracle, settler, payloads]);
}
