import type { z } from 'zod';
import { isoTime } from '../api/wire.js';
import type { LedgerRepository } from '../ledger/repository.js';
import type { OrderRecord, OrderRepository, OrderStatus } from './order-repository.js';
import type { OrderCreated, OrderDetail, Settlement } from './schemas.js';

/** Orders whose deposit is not on chain (being relayed, or reverted) do not exist for the API. */
export function isVisible(order: OrderRecord | undefined): order is OrderRecord & { status: OrderStatus } {
  return order !== undefined && order.status !== 'Opening' && order.status !== 'Rejected';
}

/** The wire shapes of an order: created, detail and workspace settlement. */
export class OrderViews {
  constructor(
    private readonly orders: OrderRepository,
    private readonly ledger: LedgerRepository,
  ) {}

  created(order: OrderRecord & { status: OrderStatus }): z.input<typeof OrderCreated> {
    return {
      orderId: order.id,
      quoteId: order.quoteId,
      status: order.status,
      settlementPath: order.settlementPath,
      lockType: order.lockType,
      onchainOrderId: order.onchainOrderId,
      originTxHash: order.originTxHash!,
      destinationTxHash: order.destinationTxHash,
      createdAt: isoTime(order.createdAt),
      fillDeadline: isoTime(order.fillDeadline * 1_000),
    };
  }

  detail(order: OrderRecord & { status: OrderStatus }): z.input<typeof OrderDetail> {
    return {
      orderId: order.id,
      quoteId: order.quoteId,
      status: order.status,
      settlementPath: order.settlementPath,
      lockType: order.lockType,
      user: order.user,
      onchainOrderId: order.onchainOrderId,
      originChainId: order.originChainId,
      destinationChainId: order.destinationChainId,
      inputToken: order.inputToken,
      outputToken: order.outputToken,
      inputAmount: order.inputAmount,
      outputAmount: order.outputAmount,
      originTxHash: order.originTxHash!,
      destinationTxHash: order.destinationTxHash,
      oracleAttestationHash: order.oracleAttestationHash,
      claimTxHash: order.claimTxHash,
      refundTxHash: order.refundTxHash,
      fillDeadline: isoTime(order.fillDeadline * 1_000),
      expires: isoTime(order.expires * 1_000),
      createdAt: isoTime(order.createdAt),
      settledAt: order.settledAt === null ? null : isoTime(order.settledAt),
    };
  }

  settlement(order: OrderRecord & { status: OrderStatus; workspaceId: string }): z.input<typeof Settlement> {
    const head = this.ledger.latestForTrade(order.id);
    if (head === undefined) throw new Error(`order ${order.id} has no evidence entries`);
    const stages = this.orders.stages(order.id).map((stage) => ({
      stage: stage.stage,
      at: isoTime(stage.at),
      ...(stage.txHash === null ? {} : { txHash: stage.txHash }),
      ...(stage.oracleHash === null ? {} : { oracleHash: stage.oracleHash }),
      ...(stage.chainId === null ? {} : { chainId: stage.chainId }),
    }));
    return {
      orderId: order.id,
      workspaceId: order.workspaceId,
      state: order.status === 'Claimed' ? 'Settled' : order.status,
      timeline: [{ stage: 'rfq', at: isoTime(order.quoteCreatedAt) }, ...stages],
      evidenceHash: head.hash,
      wormSequence: head.sequence,
    };
  }
}
