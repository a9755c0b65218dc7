import { type Hex, getAddress } from 'viem';
import { keccak256 } from '../../contracts/keccak.js';
import { compactClaimSignatures } from '../../contracts/encoders.js';
import { outputHash } from '../../contracts/fill.js';
import { type MandateOutput, bytes32ToAddress } from '../../contracts/order.js';
import { standardOrderToWire } from '../../contracts/standard-order-wire.js';
import type { SolverOrderMessage } from '../auction/types.js';
import type { ChainFact } from '../settlement/chain-facts.js';
import { fillPayload } from '../settlement/transactions.js';
import type { OrderRecord } from './order-repository.js';

/** One output's fill as the chain facts show it: the fill, its oracle payload, and how far its proof got. */
export interface FillView {
  index: number;
  fill: Extract<ChainFact, { kind: 'filled' }>;
  payloadHash: Hex;
  payload: Hex;
  proven: boolean;
  attested: Extract<ChainFact, { kind: 'attested' }> | undefined;
}

/**
 * Output hashes by the output's fields. Reconciling an order recomputes its fills at every chain fact (about five
 * per settled order), each time hashing the order's output and the fill's; the keccak in JavaScript showed in
 * profiles. Bounded: reconciliation needs the orders in flight, so it is cleared when it grows past a few hundred
 * orders' worth (each entry holds a key of about 480 characters: 10,000 of them, the bound before, were about 6 MB
 * of heap that a long-lived sandbox filled over a hundred catalogue runs).
 */
const outputHashes = new Map<string, Hex>();
const OUTPUT_HASHES_MAX = 1_000;

function cachedOutputHash(output: MandateOutput): Hex {
  const key = `${output.oracle}|${output.settler}|${output.chainId}|${output.token}|${output.amount}|${output.recipient}|${output.callbackData}|${output.context}`;
  let hash = outputHashes.get(key);
  if (hash === undefined) {
    hash = outputHash(output);
    if (outputHashes.size >= OUTPUT_HASHES_MAX) outputHashes.clear();
    outputHashes.set(key, hash);
  }
  return hash;
}

/** Valid fills per output (in output order): the exact output, on its chain and settler, at or before the deadline. */
export function fillViews(order: OrderRecord, facts: ChainFact[]): FillView[] {
  const views: FillView[] = [];
  order.standardOrder.outputs.forEach((output, index) => {
    const expected = cachedOutputHash(output);
    const fill = facts.find(
      (f): f is Extract<ChainFact, { kind: 'filled' }> =>
        f.kind === 'filled' &&
        f.chainId === Number(output.chainId) &&
        getAddress(f.address) === bytes32ToAddress(output.settler) &&
        cachedOutputHash(f.output) === expected &&
        f.timestamp <= order.fillDeadline,
    );
    if (fill === undefined) return;
    const payload = fillPayload(fill, order.onchainOrderId, output);
    const payloadHash = keccak256(payload);
    const proven = facts.some(
      (f) =>
        f.kind === 'proven' &&
        f.chainId === Number(output.chainId) &&
        getAddress(f.address) === bytes32ToAddress(output.oracle) &&
        f.application.toLowerCase() === output.settler.toLowerCase() &&
        f.dataHash === payloadHash,
    );
    const attested = facts.find(
      (f): f is Extract<ChainFact, { kind: 'attested' }> =>
        f.kind === 'attested' &&
        f.chainId === order.originChainId &&
        getAddress(f.address) === getAddress(order.standardOrder.inputOracle) &&
        f.remoteChainId === Number(output.chainId) &&
        f.remoteOracle.toLowerCase() === output.oracle.toLowerCase() &&
        f.application.toLowerCase() === output.settler.toLowerCase() &&
        f.dataHash === payloadHash,
    );
    views.push({ index, fill, payload, payloadHash, proven, attested });
  });
  return views;
}

/** The message that lets the order's solver claim: every output attested, with the solve parameters. */
export function attestedMessage(order: OrderRecord, fills: FillView[]): SolverOrderMessage {
  return claimMessage(
    order,
    fills.map((f) => ({ timestamp: f.fill.timestamp, solver: f.fill.solver })),
  );
}

/** `order.attested` for these solve parameters (a lying oracle's sandbox fault sends one for a fill that never was). */
export function claimMessage(order: OrderRecord, solveParams: { timestamp: number; solver: Hex }[]): SolverOrderMessage {
  return {
    type: 'order.attested',
    orderId: order.id,
    onchainOrderId: order.onchainOrderId,
    lockType: order.lockType,
    originChainId: order.originChainId,
    standardOrder: standardOrderToWire(order.standardOrder),
    solveParams,
    ...(order.lockType === 'ResourceLock' ? { compactSignatures: compactClaimSignatures(order.signature) } : {}),
  };
}
