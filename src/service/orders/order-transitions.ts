import type { Hex } from 'viem';
import type { Keeper } from '../settlement/keeper.js';
import type { AfterCommit } from '../settlement/relayer.js';
import type { LifecycleDeps } from './lifecycle-deps.js';
import type { OrderDomainEvent } from './order-domain-events.js';
import type { OrderEventPayloads } from './order-events.js';
import type { OrderRecord, OrderRepository, OrderStatus, Stage, StageRecord } from './order-repository.js';

const STAGE_OF: Record<OrderStatus, Stage> = {
  Deposited: 'deposited',
  Filled: 'filled',
  Attested: 'attested',
  Claimed: 'claimed',
  Refunded: 'refunded',
};

/**
 * The one writer of order status changes after creation: every change writes the order, its timeline stage, a
 * ledger entry and its outbox events in the caller's transaction, and tells the lifecycle's listeners.
 */
export class OrderTransitions {
  constructor(
    private readonly deps: LifecycleDeps,
    private readonly payloads: OrderEventPayloads,
    private readonly keeper: () => Keeper,
    private readonly emit: (event: OrderDomainEvent) => void,
  ) {}

  /** The order ends Refunded: the keeper stops watching it and its solver hears of it. */
  refund(order: OrderRecord, txHash: Hex | null, at: number): AfterCommit[] {
    this.transition(
      order,
      'Refunded',
      { txHash, chainId: order.originChainId, oracleHash: null },
      { refundTxHash: txHash ?? undefined },
      at,
    );
    return [
      () => this.keeper().cancel(order.id),
      () => this.deps.dispatch.send(order.solverId, { type: 'order.refunded', orderId: order.id, onchainOrderId: order.onchainOrderId }),
    ];
  }

  /** Writes one status change: the order, its timeline stage, a ledger entry and its outbox events. */
  transition(
    order: OrderRecord,
    to: OrderStatus,
    stage: { txHash: Hex | null; chainId: number; oracleHash: Hex | null },
    update: Parameters<OrderRepository['update']>[1],
    at: number,
    /** The timeline stage, when not the status's own (`reorged`: a reorg took the chain facts of a later status). */
    stageName?: Stage,
  ): OrderRecord {
    const from = order.status as OrderStatus;
    this.deps.orders.update(order.id, { ...update, status: to }, at);
    const next: OrderRecord = { ...order, ...stripUndefined(update), status: to };
    const entry = this.deps.ledger.append({
      type: 'order.transition',
      tradeId: order.id,
      recordedAt: iso(at),
      payload: {
        orderId: order.id,
        from,
        to,
        txHash: stage.txHash,
        chainId: stage.chainId,
        oracleHash: stage.oracleHash,
        ...(stageName === undefined ? {} : { reason: stageName }),
      },
    });
    const record: StageRecord = {
      stage: stageName ?? STAGE_OF[to],
      at,
      txHash: stage.txHash,
      oracleHash: stage.oracleHash,
      chainId: stage.chainId,
      ledgerSequence: entry.sequence,
    };
    this.deps.orders.addStage(order.id, record);
    if (to === 'Claimed' || to === 'Refunded') {
      const workspaceId = order.workspaceId;
      const data = to === 'Claimed' ? this.payloads.settled(next, at) : this.payloads.failed(next, at, stage.txHash);
      this.deps.outbox.append({
        workspaceId,
        type: to === 'Claimed' ? 'order.settled' : 'order.failed',
        generation: 'A',
        orderId: order.id,
        data,
        at,
      });
      // The spec's sequences end with a compliance.event: the settlement audit of the order's outcome.
      this.deps.compliance.record(
        {
          tradeId: order.id,
          orderId: order.id,
          workspaceId,
          subject: 'order',
          checkType: 'settlement_audit',
          result: to === 'Claimed' ? 'settled' : 'refunded',
          details: { rail: order.settlementPath, txHash: stage.txHash, lockType: order.lockType },
        },
        at,
      );
    }
    this.emit({ type: 'order.transitioned', order: next, from, to, stage: record, entry, at });
    return next;
  }
}

export function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export function iso(at: number): string {
  return new Date(at).toISOString();
}
