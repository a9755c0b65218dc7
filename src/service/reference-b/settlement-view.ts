import type { ChainInfo } from '../../contracts/deployment.js';
import { isoTime } from '../api/wire.js';
import type { LedgerRepository } from '../ledger/repository.js';
import type { OrderRecord, OrderRepository, OrderStatus, StageRecord } from '../orders/order-repository.js';
import { inputSettlerFor } from '../../contracts/standard-order.js';
import { FILL_DEADLINE_EXPIRED } from './event-projection.js';
import { settlementIdOf } from './settlement-ids.js';

export type SettlementStatus = 'pending' | 'complete' | 'failed';

/** The order's status as Reference B's settlement status (the `status` of its settlement events). */
export function settlementStatus(status: OrderStatus): SettlementStatus {
  if (status === 'Claimed') return 'complete';
  if (status === 'Refunded') return 'failed';
  return 'pending';
}

/**
 * `GET /api/v1/settlements/{id}`: escrow status (locked on the origin chain, released to the solver by its claim,
 * or refunded), cross-chain proof verification (the fill seen on the destination, the oracle's attestation recorded
 * on the origin), and the final settlement hash (the claim or refund transaction) with the trade's evidence head.
 * Everything comes from chain events the watchers recorded, as the order's status does.
 */
export class SettlementViews {
  constructor(
    private readonly deps: {
      orders(): OrderRepository;
      ledger: LedgerRepository;
      chains: readonly ChainInfo[];
    },
  ) {}

  view(order: OrderRecord & { status: OrderStatus }) {
    const stages = this.deps.orders().stages(order.id);
    const stage = (name: StageRecord['stage']) => stages.find((s) => s.stage === name);
    const deposited = stage('deposited');
    const filled = stage('filled');
    const attested = stage('attested');
    const claimed = stage('claimed');
    const refunded = stage('refunded');
    const origin = this.deps.chains.find((chain) => chain.chainId === order.originChainId);
    const status = settlementStatus(order.status);
    const head = this.deps.ledger.latestForTrade(order.id);
    const finalHash = status === 'complete' ? order.claimTxHash : status === 'failed' ? order.refundTxHash : null;
    return {
      settlementId: settlementIdOf(order.id),
      orderId: order.id,
      rfqId: order.rfqId,
      quoteId: order.quoteId,
      status,
      orderStatus: order.status,
      corridor: order.corridor,
      lockType: order.lockType,
      settlementPath: order.settlementPath,
      escrow: {
        status: status === 'complete' ? ('released' as const) : status === 'failed' ? ('refunded' as const) : ('locked' as const),
        chainId: order.originChainId,
        settler: origin === undefined ? null : inputSettlerFor(origin, order.lockType),
        onchainOrderId: order.onchainOrderId,
        token: order.inputToken,
        amount: order.inputAmount,
        depositTxHash: order.originTxHash!,
        lockedAt: isoTime(deposited?.at ?? order.createdAt),
        expires: isoTime(order.expires * 1_000),
        releaseTxHash: order.claimTxHash,
        refundTxHash: order.refundTxHash,
      },
      proof: {
        status: attested !== undefined ? ('verified' as const) : filled !== undefined ? ('filled' as const) : ('awaiting_fill' as const),
        verified: attested !== undefined,
        destinationChainId: order.destinationChainId,
        fillTxHash: filled?.txHash ?? null,
        filledAt: filled === undefined ? null : isoTime(filled.at),
        attestationChainId: attested === undefined ? null : order.originChainId,
        attestationTxHash: attested?.txHash ?? null,
        payloadHash: attested?.oracleHash ?? null,
        attestedAt: attested === undefined ? null : isoTime(attested.at),
      },
      settlementHash: finalHash,
      error: status === 'failed' ? FILL_DEADLINE_EXPIRED : null,
      evidence: head === undefined ? null : { hash: head.hash, sequence: head.sequence },
      originTxHash: order.originTxHash!,
      destinationTxHash: order.destinationTxHash,
      inputAmount: order.inputAmount,
      outputAmount: order.outputAmount,
      fillDeadline: order.fillDeadline,
      createdAt: isoTime(order.createdAt),
      settledAt: claimed === undefined ? null : isoTime(order.settledAt ?? claimed.at),
      refundedAt: refunded === undefined ? null : isoTime(refunded.at),
    };
  }
}
