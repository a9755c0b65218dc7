import type { Hex } from 'viem';
import type { StandardOrder } from '../../contracts/order.js';
import type { ChainFact } from '../settlement/chain-facts.js';
import type { SettlementListener } from '../settlement/engine.js';
import { Keeper } from '../settlement/keeper.js';
import type { RelayRecord } from '../settlement/relay-repository.js';
import type { AfterCommit, RelayOutcome } from '../settlement/relayer.js';
import { standardOrderToWire } from '../../contracts/standard-order-wire.js';
import type { LifecycleDeps } from './lifecycle-deps.js';
import { adoptedOrder, ONCHAIN_SOLVER } from './order-adoption.js';
import { OrderCreation } from './order-creation.js';
import type { OrderDomainEvent, OrderDomainListener } from './order-domain-events.js';
import { OrderEventPayloads } from './order-events.js';
import { OrderExpiry } from './order-expiry.js';
import { attestedMessage, fillViews } from './order-fills.js';
import { OrderReconciliation } from './order-reconciliation.js';
import { type OrderRecord, TERMINAL } from './order-repository.js';
import { OrderTransitions } from './order-transitions.js';

export type { LifecycleDeps } from './lifecycle-deps.js';
export type { OrderDomainEvent, OrderDomainListener } from './order-domain-events.js';

/**
 * The order state machine, composed of its parts: creation (Opening → Deposited or Rejected), reconciliation
 * (Deposited → Filled → Attested → Claimed, from chain facts), expiry (refunds) and the one transition writer.
 * Every status after Deposited is derived from chain facts recorded by the watchers; every change writes the
 * order, its timeline stage, a ledger entry and its outbox events in the caller's transaction, and returns what to
 * do after the commit (relay, notify, schedule).
 */
export class OrderLifecycle implements SettlementListener {
  readonly keeper: Keeper;
  private readonly listeners = new Set<OrderDomainListener>();
  private readonly creation: OrderCreation;
  private readonly reconciliation: OrderReconciliation;
  private readonly transitions: OrderTransitions;

  constructor(private readonly deps: LifecycleDeps) {
    const payloads = new OrderEventPayloads(deps.chains);
    const keeper = () => this.keeper;
    const emit = (event: OrderDomainEvent) => this.emit(event);
    const transitions = new OrderTransitions(deps, payloads, keeper, emit);
    this.transitions = transitions;
    const expiry = new OrderExpiry(deps, transitions);
    this.keeper = new Keeper(deps.clock, deps.logger, (orderId) => expiry.onExpiry(orderId));
    this.reconciliation = new OrderReconciliation(deps, transitions, keeper);
    this.creation = new OrderCreation(deps, {
      payloads,
      keeper,
      emit,
      reconcile: (order, at) => this.reconcile(order, at),
      tellSolvers: (order) => (order.solverId === ONCHAIN_SOLVER ? this.offer(order) : this.assign(order)),
    });
  }

  onDomainEvent(listener: OrderDomainListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  recordCreation(orderId: string, originTxHash: Hex, at: number): AfterCommit[] {
    return this.creation.recordCreation(orderId, originTxHash, at);
  }

  /** The deposit failed on chain: the order never existed for the API; the evidence keeps the attempt. */
  reject(orderId: string, reason: string, at: number): void {
    this.creation.reject(orderId, reason, at);
  }

  reconcile(order: OrderRecord, at: number): AfterCommit[] {
    return this.reconciliation.reconcile(order, at);
  }

  // ---- chain facts ----------------------------------------------------------------------------------------

  onFacts(facts: ChainFact[]): AfterCommit[] {
    const at = this.deps.clock.now();
    const effects: AfterCommit[] = [];
    const seen = new Set<string>();
    for (const fact of facts) {
      const id = fact.onchainOrderId.toLowerCase();
      if (seen.has(id)) continue;
      seen.add(id);
      const order = this.deps.orders.byOnchainId(fact.onchainOrderId);
      if (order === undefined) {
        // OIF-native intake: an order a taker opened on chain by itself (no POST /orders).
        const opened = facts.find((f) => f.kind === 'opened' && f.onchainOrderId.toLowerCase() === id);
        if (opened?.kind === 'opened' && opened.order !== undefined) effects.push(...this.adopt(opened, opened.order, at));
        continue;
      }
      if (order.status === 'Opening') {
        const opened = facts.find((f) => f.kind === 'opened' && f.onchainOrderId.toLowerCase() === id && f.chainId === order.originChainId);
        if (opened !== undefined) effects.push(...this.recordCreation(order.id, opened.txHash, at));
        continue;
      }
      effects.push(...this.reconcile(order, at));
    }
    return effects;
  }

  /** Facts a reorg took away: each order they were about goes back as far as its remaining facts justify. */
  onFactsRemoved(facts: ChainFact[]): AfterCommit[] {
    const at = this.deps.clock.now();
    const effects: AfterCommit[] = [];
    for (const id of new Set(facts.map((fact) => fact.onchainOrderId.toLowerCase()))) {
      const order = this.deps.orders.byOnchainId(id as ChainFact['onchainOrderId']);
      if (order === undefined) continue;
      const removed = facts.filter((fact) => fact.onchainOrderId.toLowerCase() === id);
      // An oracle leg whose transaction the reorg took away did not happen: it counts as not landed, so the order
      // asks for it again while its fill is there (the legs are idempotent on chain).
      // A leg mined again by the reorg is recorded anew (same transaction): it did happen.
      const present = new Set(this.deps.engine.facts.forOrder(order.onchainOrderId).map((f) => `${f.kind}:${f.txHash.toLowerCase()}`));
      const vanished = new Set(
        removed
          .filter(
            (fact) => (fact.kind === 'proven' || fact.kind === 'attested') && !present.has(`${fact.kind}:${fact.txHash.toLowerCase()}`),
          )
          .map((fact) => fact.txHash),
      );
      for (const relay of this.deps.engine.relays.forOrder(order.id)) {
        if (relay.status === 'mined' && relay.txHash !== null && vanished.has(relay.txHash) && relay.kind.startsWith('oracle.')) {
          this.deps.engine.relays.markOutcome(relay.id, 'reverted', at, { error: 'its block was reorganised away' });
        }
      }
      effects.push(...this.reconciliation.rewind(order, removed, at));
      const current = this.deps.orders.get(order.id);
      if (current === undefined || TERMINAL.has(current.status)) continue;
      this.reconciliation.refreshQueuedLegs(current, at);
      // The order asks again for what the facts it has now still need (a leg that vanished, a fill mined again).
      effects.push(...this.reconcile(current, at));
    }
    return effects;
  }

  onRelayOutcome(relay: RelayRecord, outcome: RelayOutcome): AfterCommit[] {
    const at = this.deps.clock.now();
    // Deposits, withdrawals and payouts of the deferred rail belong to the deferred module.
    if (relay.orderId === undefined || relay.kind === 'vault.deposit' || relay.kind === 'vault.withdraw' || relay.kind === 'vault.payout')
      return [];
    if (relay.kind === 'vault.release') {
      const order = this.deps.orders.get(relay.orderId);
      if (order === undefined || TERMINAL.has(order.status)) return [];
      if (outcome.status === 'mined') return this.transitions.refund(order, relay.txHash, at);
      return [() => this.keeper.schedule(order.id, this.deps.clock.now() + 1_000)];
    }
    if (relay.kind === 'open' || relay.kind === 'vault.hold') {
      if (outcome.status === 'mined') return this.recordCreation(relay.orderId, relay.txHash!, at);
      this.reject(relay.orderId, outcome.status === 'reverted' ? 'deposit reverted on chain' : 'deposit transaction dropped', at);
      return [];
    }
    if (outcome.status !== 'mined') {
      this.deps.logger.warn({ orderId: relay.orderId, kind: relay.kind, status: outcome.status }, 'settlement relay did not land');
      const order = this.deps.orders.get(relay.orderId);
      if (order === undefined || TERMINAL.has(order.status)) return [];
      // A refund can lose to a late claim, or land a second early; the keeper looks at the chain again.
      if (relay.kind === 'refund') return [() => this.keeper.schedule(order.id, this.deps.clock.now() + 1_000)];
      // An oracle leg that reverted is asked for again (up to ORACLE_ATTEMPTS).
      return this.reconcile(order, at);
    }
    return [];
  }

  /**
   * A deferred order paid to its solver from the vault (the payout's transaction): Claimed. Call inside the
   * transaction that records the payout; a no-op for an order that is not a Filled deferred order.
   */
  settleDeferred(orderId: string, txHash: Hex, at: number): AfterCommit[] {
    const order = this.deps.orders.get(orderId);
    if (order === undefined || order.settlementPath !== 'deferred' || order.status !== 'Filled') return [];
    this.transitions.transition(
      order,
      'Claimed',
      { txHash, chainId: order.originChainId, oracleHash: null },
      { claimTxHash: txHash, settledAt: at },
      at,
    );
    return [() => this.keeper.cancel(order.id)];
  }

  /** OIF-native intake: see order-adoption.ts. */
  private adopt(fact: Extract<ChainFact, { kind: 'opened' }>, order: StandardOrder, at: number): AfterCommit[] {
    const record = adoptedOrder(this.deps.chains, this.deps.logger, fact, order, at);
    if (record === undefined) return [];
    this.deps.orders.insert(record);
    return this.recordCreation(record.id, fact.txHash, at);
  }

  // ---- solvers --------------------------------------------------------------------------------------------

  /** An adopted on-chain order has no winner: it is offered to every connected solver (`order.available`). */
  offer(order: OrderRecord): void {
    this.deps.dispatch.offer({
      type: 'order.available',
      orderId: order.id,
      onchainOrderId: order.onchainOrderId,
      lockType: order.lockType,
      originChainId: order.originChainId,
      destinationChainId: order.destinationChainId,
      standardOrder: standardOrderToWire(order.standardOrder),
      fillDeadline: order.fillDeadline,
    });
  }

  assign(order: OrderRecord): void {
    this.deps.dispatch.send(order.solverId, {
      type: 'order.assigned',
      orderId: order.id,
      quoteId: order.quoteId,
      onchainOrderId: order.onchainOrderId,
      lockType: order.lockType,
      originChainId: order.originChainId,
      destinationChainId: order.destinationChainId,
      standardOrder: standardOrderToWire(order.standardOrder),
      fillDeadline: order.fillDeadline,
    });
  }

  /** Re-sends what a solver needs after a restart (messages are best effort; solvers de-duplicate). */
  resendAttested(order: OrderRecord): void {
    const facts = this.deps.engine.facts.forOrder(order.onchainOrderId);
    this.deps.dispatch.send(order.solverId, attestedMessage(order, fillViews(order, facts)));
  }

  private emit(event: OrderDomainEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}
