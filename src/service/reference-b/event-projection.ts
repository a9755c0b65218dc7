import type { ChainInfo } from '../../contracts/deployment.js';
import { priceString, toDecimalString } from '../auction/pricing.js';
import type { OutboxRepository } from '../events/outbox.js';
import type { LedgerRepository } from '../ledger/repository.js';
import { tokenFacts } from '../orders/order-events.js';
import type { OrderDomainEvent } from '../orders/order-lifecycle.js';
import type { OrderRecord } from '../orders/order-repository.js';
import { settlementIdOf } from './settlement-ids.js';
import type { OutboxEventType } from '../../contracts/event-types.js';

/** Why a settlement failed, in `settlement.failed.error`: the only failure the lifecycle knows is an unfilled order. */
export const FILL_DEADLINE_EXPIRED = 'fill_deadline_expired';

export interface ProjectionDeps {
  outbox: OutboxRepository;
  ledger: LedgerRepository;
  chains: readonly ChainInfo[];
}

/**
 * Reference B's events as a projection of the order lifecycle's domain events, written into the outbox inside the
 * transaction of the change they report (so they commit, or vanish, with it):
 *
 * - deposit on chain (`order.created`) → `quote.accepted`, then `settlement.pending`;
 * - `Claimed` → `settlement.complete`, then `audit.recorded`;
 * - `Refunded` → `settlement.failed`, then `audit.recorded`.
 *
 * `audit.recorded` reports the trade's closing WORM entry (the settlement audit the lifecycle writes when an order
 * ends), so each trade's sequence ends with it, as the spec's sequences do. Filled and Attested have no B event.
 * Every payload names its `corridor` (the taker stream's corridor filter) and the settlement, order and RFQ ids.
 * B events carry no outbox `order_id`: order topics and per-order event lists stay Reference A's.
 */
export class SettlementEventProjection {
  constructor(private readonly deps: ProjectionDeps) {}

  readonly handle = (event: OrderDomainEvent): void => {
    if (event.type === 'order.created') {
      this.append(event.order, 'quote.accepted', this.quoteAccepted(event.order), event.at);
      this.append(event.order, 'settlement.pending', this.settlementPending(event.order), event.at);
      return;
    }
    if (event.type !== 'order.transitioned') return;
    if (event.to === 'Claimed') {
      this.append(event.order, 'settlement.complete', this.settlementComplete(event.order, event.order.settledAt ?? event.at), event.at);
      this.auditRecorded(event.order, event.at);
    } else if (event.to === 'Refunded') {
      this.append(event.order, 'settlement.failed', this.settlementFailed(event.order, event.stage.txHash, event.at), event.at);
      this.auditRecorded(event.order, event.at);
    }
  };

  private append(order: OrderRecord, type: OutboxEventType, data: Record<string, unknown>, at: number): void {
    this.deps.outbox.append({ workspaceId: order.workspaceId, type, generation: 'B', rfqId: order.rfqId, data, at });
  }

  private quoteAccepted(order: OrderRecord): Record<string, unknown> {
    return {
      quote: {
        id: order.quoteId,
        rfqId: order.rfqId,
        solverId: order.solverId,
        price: this.price(order),
        inputAmount: order.inputAmount,
        outputAmount: order.outputAmount,
      },
      settlement: { id: settlementIdOf(order.id), orderId: order.id, status: 'pending', corridor: order.corridor },
    };
  }

  private settlementPending(order: OrderRecord): Record<string, unknown> {
    return {
      settlement: {
        id: settlementIdOf(order.id),
        orderId: order.id,
        rfqId: order.rfqId,
        quoteId: order.quoteId,
        status: 'pending',
        escrowTxHash: order.originTxHash,
        lockType: order.lockType,
        onchainOrderId: order.onchainOrderId,
        originChainId: order.originChainId,
        destinationChainId: order.destinationChainId,
        amount: this.inputAmount(order),
        fillDeadline: order.fillDeadline,
        expires: order.expires,
        corridor: order.corridor,
      },
    };
  }

  private settlementComplete(order: OrderRecord, settledAt: number): Record<string, unknown> {
    return {
      settlement: {
        id: settlementIdOf(order.id),
        orderId: order.id,
        status: 'complete',
        originTxHash: order.originTxHash,
        destinationTxHash: order.destinationTxHash,
        claimTxHash: order.claimTxHash,
        amount: this.outputAmount(order),
        settledAt: new Date(settledAt).toISOString(),
        corridor: order.corridor,
      },
    };
  }

  private settlementFailed(order: OrderRecord, refundTxHash: string | null, refundedAt: number): Record<string, unknown> {
    return {
      settlement: {
        id: settlementIdOf(order.id),
        orderId: order.id,
        status: 'failed',
        error: FILL_DEADLINE_EXPIRED,
        refundTxHash,
        refundedAt: new Date(refundedAt).toISOString(),
        amount: this.inputAmount(order),
        corridor: order.corridor,
      },
    };
  }

  /** The trade's latest entry at this point of the transaction: the settlement audit that closes its record. */
  private auditRecorded(order: OrderRecord, at: number): void {
    const entry = this.deps.ledger.latestForTrade(order.id);
    if (entry === undefined) return;
    const checkType = typeof entry.payload.checkType === 'string' ? entry.payload.checkType : undefined;
    this.append(
      order,
      'audit.recorded',
      {
        audit: {
          tradeId: entry.tradeId,
          type: entry.type,
          ...(checkType === undefined ? {} : { checkType }),
          timestamp: entry.recordedAt,
          sequence: entry.sequence,
          hash: entry.hash,
          prevHash: entry.prevHash,
          settlementId: settlementIdOf(order.id),
          rfqId: order.rfqId,
          corridor: order.corridor,
        },
      },
      at,
    );
  }

  /** Output per input in whole tokens, as the auction prices quotes (`quote.received.price`). */
  private price(order: OrderRecord): string {
    return priceString({
      inputAmount: BigInt(order.inputAmount),
      inputDecimals: tokenFacts(this.deps.chains, order.originChainId, order.inputToken).decimals,
      outputAmount: BigInt(order.outputAmount),
      outputDecimals: tokenFacts(this.deps.chains, order.destinationChainId, order.outputToken).decimals,
    });
  }

  /** Decimal strings of whole tokens, as events carry amounts: what the taker locked, and what it receives. */
  private inputAmount(order: OrderRecord): string {
    return toDecimalString(BigInt(order.inputAmount), tokenFacts(this.deps.chains, order.originChainId, order.inputToken).decimals);
  }

  private outputAmount(order: OrderRecord): string {
    return toDecimalString(BigInt(order.outputAmount), tokenFacts(this.deps.chains, order.destinationChainId, order.outputToken).decimals);
  }
}
