import type { Hex } from 'viem';
import { keccak256 } from '../../contracts/keccak.js';
import type { CheckType } from '../compliance/screening.js';
import { Keeper } from '../settlement/keeper.js';
import type { AfterCommit } from '../settlement/relayer.js';
import type { LifecycleDeps } from './lifecycle-deps.js';
import type { OrderDomainEvent } from './order-domain-events.js';
import type { OrderEventPayloads } from './order-events.js';
import type { OrderRecord } from './order-repository.js';
import { iso } from './order-transitions.js';

/** What creation needs from the rest of the lifecycle. */
export interface CreationParts {
  payloads: OrderEventPayloads;
  keeper: () => Keeper;
  emit: (event: OrderDomainEvent) => void;
  reconcile: (order: OrderRecord, at: number) => AfterCommit[];
  /** Tells solvers about a new order: its auction winner (`order.assigned`), or everyone for an adopted one. */
  tellSolvers: (order: OrderRecord) => void;
}

/** An order's first recorded step: Opening becomes Deposited (the deposit is on chain), or Rejected. */
export class OrderCreation {
  constructor(
    private readonly deps: LifecycleDeps,
    private readonly parts: CreationParts,
  ) {}

  /**
   * The deposit is on chain (or, for a resource lock, verified): the order becomes visible as Deposited. Writes the
   * `order.created` entry and event, then the compliance checks made at intake (with their `compliance.event`s).
   */
  recordCreation(orderId: string, originTxHash: Hex, at: number): AfterCommit[] {
    const order = this.deps.orders.get(orderId);
    if (order === undefined || order.status !== 'Opening') return [];
    this.deps.orders.update(order.id, { status: 'Deposited', originTxHash }, at);
    const created: OrderRecord = { ...order, status: 'Deposited', originTxHash };
    const entry = this.deps.ledger.append({
      type: 'order.created',
      tradeId: order.id,
      recordedAt: iso(at),
      payload: {
        orderId: order.id,
        quoteId: order.quoteId,
        rfqId: order.rfqId,
        solverId: order.solverId,
        user: order.user,
        nonce: order.nonce.toString(),
        lockType: order.lockType,
        settlementPath: order.settlementPath,
        corridor: order.corridor,
        onchainOrderId: order.onchainOrderId,
        originChainId: order.originChainId,
        destinationChainId: order.destinationChainId,
        inputAmount: order.inputAmount,
        outputAmount: order.outputAmount,
        fillDeadline: order.fillDeadline,
        expires: order.expires,
        originTxHash,
        signatureHash: keccak256(order.signature),
      },
    });
    this.deps.orders.addStage(order.id, {
      stage: 'deposited',
      at,
      txHash: originTxHash,
      oracleHash: null,
      chainId: order.originChainId,
      ledgerSequence: entry.sequence,
    });
    this.deps.outbox.append({
      workspaceId: order.workspaceId,
      type: 'order.created',
      generation: 'A',
      orderId: order.id,
      data: this.parts.payloads.created(created),
      at,
    });
    for (const check of order.screening.checks) {
      this.deps.compliance.record(
        {
          tradeId: order.id,
          orderId: order.id,
          workspaceId: order.workspaceId,
          subject: order.user,
          checkType: check.checkType as CheckType,
          result: check.result as 'approved' | 'rejected',
          details: {
            reason: check.reason,
            rail: order.settlementPath,
            ...(check.checkType === 'attestation' ? { attestation: order.screening.attestation } : {}),
          },
        },
        at,
      );
    }
    this.parts.emit({ type: 'order.created', order: created, entry, at });
    // Facts may already be known (a restart finished this order after its fill was seen).
    const effects = this.parts.reconcile(created, at);
    return [() => this.parts.keeper().schedule(order.id, Keeper.dueAt(order.expires)), () => this.parts.tellSolvers(created), ...effects];
  }

  /** The deposit failed on chain: the order never existed for the API; the evidence keeps the attempt. */
  reject(orderId: string, reason: string, at: number): void {
    const order = this.deps.orders.get(orderId);
    if (order === undefined || order.status !== 'Opening') return;
    this.deps.orders.update(order.id, { status: 'Rejected', rejectReason: reason }, at);
    const entry = this.deps.ledger.append({
      type: 'order.rejected',
      tradeId: order.id,
      recordedAt: iso(at),
      payload: { orderId: order.id, quoteId: order.quoteId, onchainOrderId: order.onchainOrderId, reason },
    });
    this.parts.emit({ type: 'order.rejected', order: { ...order, status: 'Rejected', rejectReason: reason }, reason, entry, at });
  }
}
