/**
 * An order's journey across both chains: RFQ, deposit, fill, attestation, then claim or refund, each with the
 * chain it happened on, block, transaction and clock time. Built from the settlement timeline where the service
 * has one, filled in from the order detail. Pure: unit-tested in Node.
 */
import { parseTime } from './format.js';
import { list, num, str } from './read.js';
import { type OrderView, statusRank } from './orders.js';

export type Stage = 'rfq' | 'deposited' | 'filled' | 'attested' | 'claimed' | 'refunded';

export const STAGE_LABEL: Record<Stage, string> = {
  rfq: 'RFQ and quotes',
  deposited: 'Deposit',
  filled: 'Fill',
  attested: 'Attestation',
  claimed: 'Claim',
  refunded: 'Refund',
};

/** One entry of a settlement's `timeline`. */
export interface TimelineEntry {
  stage: Stage;
  at?: number;
  txHash?: string;
  oracleHash?: string;
  chainId?: number;
  blockNumber?: number;
}

export interface ChainRef {
  name: string;
  chainId: number;
}

export interface JourneyStep {
  stage: Stage;
  state: 'done' | 'pending' | 'skipped';
  at?: number;
  chain?: ChainRef;
  txHash?: string;
  blockNumber?: number;
  oracleHash?: string;
  /** What the step waits for, or why it was skipped. */
  note?: string;
}

const STAGES = new Set<Stage>(['rfq', 'deposited', 'filled', 'attested', 'claimed', 'refunded']);

export function timelineFromSettlement(settlement: unknown): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  for (const item of list(settlement, 'timeline')) {
    const stage = str(item, 'stage');
    if (stage === undefined || !STAGES.has(stage as Stage)) continue;
    const entry: TimelineEntry = { stage: stage as Stage };
    const at = parseTime((item as { at?: unknown }).at);
    if (at !== undefined) entry.at = at;
    const txHash = str(item, 'txHash', 'transactionHash');
    if (txHash !== undefined) entry.txHash = txHash;
    const oracleHash = str(item, 'oracleHash');
    if (oracleHash !== undefined) entry.oracleHash = oracleHash;
    const chainId = num(item, 'chainId');
    if (chainId !== undefined) entry.chainId = chainId;
    const blockNumber = num(item, 'blockNumber', 'block');
    if (blockNumber !== undefined) entry.blockNumber = blockNumber;
    entries.push(entry);
  }
  return entries;
}

/** Where each stage happens: the fill on the destination chain, everything else of the escrow on the origin. */
function stageChainId(stage: Stage, order: OrderView): number | undefined {
  if (stage === 'rfq') return undefined;
  return stage === 'filled' ? order.destinationChainId : order.originChainId;
}

function fromOrder(stage: Stage, order: OrderView): Omit<JourneyStep, 'stage' | 'state'> & { done: boolean } {
  const rank = statusRank(order.status);
  switch (stage) {
    case 'rfq':
      return { done: true, ...(order.createdAt === undefined ? {} : { at: order.createdAt }) };
    case 'deposited':
      return { done: order.originTxHash !== undefined || rank >= 1, ...(order.originTxHash ? { txHash: order.originTxHash } : {}) };
    case 'filled':
      return {
        done: order.destinationTxHash !== undefined || (rank >= 2 && order.status !== 'Refunded'),
        ...(order.destinationTxHash ? { txHash: order.destinationTxHash } : {}),
      };
    case 'attested':
      return {
        done: order.oracleAttestationHash !== undefined || (rank >= 3 && order.status !== 'Refunded'),
        ...(order.oracleAttestationHash ? { txHash: order.oracleAttestationHash } : {}),
      };
    case 'claimed':
      return {
        done: order.status === 'Claimed',
        ...(order.settledAt === undefined ? {} : { at: order.settledAt }),
        ...(order.claimTxHash ? { txHash: order.claimTxHash } : {}),
      };
    case 'refunded':
      return {
        done: order.status === 'Refunded',
        ...(order.refundedAt === undefined ? {} : { at: order.refundedAt }),
        ...(order.refundTxHash ? { txHash: order.refundTxHash } : {}),
      };
  }
}

/**
 * The steps to show, in order. A refunded order ends in `refunded` (claim skipped); any other order ends in
 * `claimed`, with a note on the first pending step saying what it waits for.
 */
export function buildJourney(order: OrderView, timeline: readonly TimelineEntry[], chains: readonly ChainRef[]): JourneyStep[] {
  const recorded = new Map<Stage, TimelineEntry>();
  for (const entry of timeline) if (!recorded.has(entry.stage)) recorded.set(entry.stage, entry);
  const refunded = order.status === 'Refunded' || recorded.has('refunded');
  const stages: Stage[] = refunded
    ? ['rfq', 'deposited', 'filled', 'attested', 'refunded']
    : ['rfq', 'deposited', 'filled', 'attested', 'claimed'];

  const steps: JourneyStep[] = [];
  let waiting = false;
  for (const stage of stages) {
    const entry = recorded.get(stage);
    const derived = fromOrder(stage, order);
    const done = entry !== undefined || derived.done;
    const chainId = entry?.chainId ?? stageChainId(stage, order);
    const step: JourneyStep = { stage, state: done ? 'done' : refunded ? 'skipped' : 'pending' };
    const at = entry?.at ?? derived.at;
    if (at !== undefined) step.at = at;
    if (chainId !== undefined) step.chain = chains.find((chain) => chain.chainId === chainId) ?? { name: `chain ${chainId}`, chainId };
    const txHash = entry?.txHash ?? derived.txHash;
    if (txHash !== undefined && done) step.txHash = txHash;
    if (entry?.blockNumber !== undefined) step.blockNumber = entry.blockNumber;
    if (entry?.oracleHash !== undefined) step.oracleHash = entry.oracleHash;
    if (step.state === 'skipped') step.note = 'not reached: the order was refunded';
    if (step.state === 'pending' && !waiting) {
      waiting = true;
      step.note = waitingFor(stage, order);
    }
    steps.push(step);
  }
  return steps;
}

function waitingFor(stage: Stage, order: OrderView): string {
  const deadline = order.fillDeadline === undefined ? '' : ` (fill deadline ${new Date(order.fillDeadline).toISOString()})`;
  switch (stage) {
    case 'deposited':
      return 'waiting for the deposit on the origin chain';
    case 'filled':
      return `waiting for the solver's fill${deadline}; refunded after expiry otherwise`;
    case 'attested':
      return 'waiting for the oracle to relay the fill proof';
    case 'claimed':
      return "waiting for the solver's claim";
    default:
      return 'waiting';
  }
}
