import type { Logger } from 'pino';
import { type Hex, getAddress, keccak256 } from 'viem';
import type { Clock } from '../../clock/index.js';
import { compactClaimSignatures } from '../../contracts/encoders.js';
import { outputHash } from '../../contracts/fill.js';
import { bytes32ToAddress } from '../../contracts/order.js';
import type { ChainInfo } from '../../contracts/deployment.js';
import type { SolverOrderMessage } from '../auction/types.js';
import type { ComplianceModule } from '../compliance/module.js';
import type { CheckType } from '../compliance/screening.js';
import type { OutboxRepository } from '../events/outbox.js';
import type { LedgerEntry } from '../../contracts/ledger/chain.js';
import type { LedgerRepository } from '../ledger/repository.js';
import type { ChainFact } from '../settlement/chain-facts.js';
import { nextBlockTime } from '../settlement/chains.js';
import type { SettlementEngine, SettlementListener } from '../settlement/engine.js';
import { Keeper } from '../settlement/keeper.js';
import type { RelayRecord } from '../settlement/relay-repository.js';
import type { AfterCommit, RelayOutcome } from '../settlement/relayer.js';
import { fillPayload, oracleReceiveCalldata, oracleSubmitCalldata, refundCalldata } from '../settlement/transactions.js';
import { OrderEventPayloads } from './order-events.js';
import { standardOrderToWire } from '../../contracts/standard-order-wire.js';
import { type OrderRecord, type OrderRepository, type OrderStatus, type Stage, type StageRecord, TERMINAL } from './order-repository.js';
import type { SolverDispatch } from './solver-dispatch.js';
import { inputSettlerFor } from './standard-order.js';

/**
 * Domain events of the order lifecycle, delivered inside the transaction that makes the change: Reference A
 * events are written here; Reference B (`quote.accepted`, `settlement.*`) projects these through `onDomainEvent`.
 */
export type OrderDomainEvent =
  | { type: 'order.created'; order: OrderRecord; entry: LedgerEntry; at: number }
  | {
      type: 'order.transitioned';
      order: OrderRecord;
      from: OrderStatus;
      to: OrderStatus;
      stage: StageRecord;
      entry: LedgerEntry;
      at: number;
    }
  | { type: 'order.rejected'; order: OrderRecord; reason: string; entry: LedgerEntry; at: number };

export type OrderDomainListener = (event: OrderDomainEvent) => void;

export interface LifecycleDeps {
  orders: OrderRepository;
  ledger: LedgerRepository;
  outbox: OutboxRepository;
  compliance: ComplianceModule;
  engine: SettlementEngine;
  chains: readonly ChainInfo[];
  clock: Clock;
  logger: Logger;
  dispatch: SolverDispatch;
}

interface FillView {
  index: number;
  fill: Extract<ChainFact, { kind: 'filled' }>;
  payloadHash: Hex;
  payload: Hex;
  proven: boolean;
  attested: Extract<ChainFact, { kind: 'attested' }> | undefined;
}

/** An oracle leg that reverts is sent again, at most this many times in all. */
const ORACLE_ATTEMPTS = 3;

const STAGE_OF: Record<OrderStatus, Stage> = {
  Deposited: 'deposited',
  Filled: 'filled',
  Attested: 'attested',
  Claimed: 'claimed',
  Refunded: 'refunded',
};

/**
 * The order state machine. Every status after Deposited is derived from chain facts (fills, oracle records,
 * Finalised, Refunded) recorded by the watchers; every change writes the order, its timeline stage, a ledger entry
 * and its outbox events in the caller's transaction, and returns what to do after the commit (relay, notify,
 * schedule). Reconciling twice changes nothing: each step checks the state it moves from.
 */
export class OrderLifecycle implements SettlementListener {
  readonly keeper: Keeper;
  private readonly payloads: OrderEventPayloads;
  private readonly listeners = new Set<OrderDomainListener>();

  constructor(private readonly deps: LifecycleDeps) {
    this.payloads = new OrderEventPayloads(deps.chains);
    this.keeper = new Keeper(deps.clock, deps.logger, (orderId) => this.onExpiry(orderId));
  }

  onDomainEvent(listener: OrderDomainListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ---- creation -------------------------------------------------------------------------------------------

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
      data: this.payloads.created(created),
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
    this.emit({ type: 'order.created', order: created, entry, at });
    // Facts may already be known (a restart finished this order after its fill was seen).
    const effects = this.reconcile(created, at);
    return [() => this.keeper.schedule(order.id, Keeper.dueAt(order.expires)), () => this.assign(created), ...effects];
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
    this.emit({ type: 'order.rejected', order: { ...order, status: 'Rejected', rejectReason: reason }, reason, entry, at });
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
      if (order === undefined) continue;
      if (order.status === 'Opening') {
        const opened = facts.find((f) => f.kind === 'opened' && f.onchainOrderId.toLowerCase() === id && f.chainId === order.originChainId);
        if (opened !== undefined) effects.push(...this.recordCreation(order.id, opened.txHash, at));
        continue;
      }
      effects.push(...this.reconcile(order, at));
    }
    return effects;
  }

  onRelayOutcome(relay: RelayRecord, outcome: RelayOutcome): AfterCommit[] {
    const at = this.deps.clock.now();
    if (relay.orderId === undefined) return [];
    if (relay.kind === 'open') {
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

  /** Moves an order as far as the recorded chain facts justify, and asks for the relays its fills still need. */
  reconcile(order: OrderRecord, at: number): AfterCommit[] {
    if (TERMINAL.has(order.status) || order.status === 'Opening') return [];
    const facts = this.deps.engine.facts.forOrder(order.onchainOrderId);
    const fills = this.fillViews(order, facts);
    const effects: AfterCommit[] = [];
    let current = order;
    const outputs = order.standardOrder.outputs;

    const allFilled = fills.length === outputs.length;
    if (current.status === 'Deposited' && allFilled) {
      const first = fills[0]!.fill;
      current = this.transition(
        current,
        'Filled',
        { txHash: first.txHash, chainId: first.chainId, oracleHash: null },
        { destinationTxHash: first.txHash },
        at,
      );
    }
    const allAttested = allFilled && fills.every((f) => f.attested !== undefined);
    if (current.status === 'Filled' && allAttested) {
      const record = fills[fills.length - 1]!.attested!;
      current = this.transition(
        current,
        'Attested',
        { txHash: record.txHash, chainId: record.chainId, oracleHash: fills[0]!.payloadHash },
        { oracleAttestationHash: record.txHash },
        at,
      );
      const attested = current;
      effects.push(() => this.notifyAttested(attested, fills));
    }

    const settler = getAddress(inputSettlerFor(this.originChain(order), order.lockType));
    const finalised = facts.find((f) => f.kind === 'finalised' && f.chainId === order.originChainId && getAddress(f.address) === settler);
    const refunded = facts.find(
      (f) =>
        f.kind === 'refunded' &&
        f.chainId === order.originChainId &&
        getAddress(f.address) === settler &&
        order.lockType !== 'ResourceLock',
    );
    if (finalised !== undefined) {
      current = this.transition(
        current,
        'Claimed',
        { txHash: finalised.txHash, chainId: finalised.chainId, oracleHash: null },
        { claimTxHash: finalised.txHash, settledAt: at },
        at,
      );
      effects.push(() => this.keeper.cancel(order.id));
      return effects;
    }
    if (refunded !== undefined) {
      effects.push(...this.refund(current, refunded.txHash, at));
      return effects;
    }

    const relays = this.deps.engine.relays.forOrder(order.id);
    for (const view of fills) {
      const output = outputs[view.index]!;
      const kind = !view.proven ? 'oracle.submit' : view.attested === undefined ? 'oracle.receive' : undefined;
      if (kind === undefined) continue;
      // One relay per leg and output; a reverted one is tried again, a few times.
      const earlier = relays.filter(
        (r) => r.kind === kind && (r.key === `${order.id}:${view.index}` || r.key.startsWith(`${order.id}:${view.index}#`)),
      );
      if (earlier.some((r) => r.status !== 'reverted') || earlier.length >= ORACLE_ATTEMPTS) continue;
      const key = earlier.length === 0 ? `${order.id}:${view.index}` : `${order.id}:${view.index}#${earlier.length}`;
      const call =
        kind === 'oracle.submit'
          ? oracleSubmitCalldata(output, view.payload)
          : oracleReceiveCalldata(order.standardOrder.inputOracle, output, view.payload);
      const chainId = kind === 'oracle.submit' ? Number(output.chainId) : order.originChainId;
      const gas = kind === 'oracle.submit' ? this.deps.engine.gas.oracleSubmit : this.deps.engine.gas.oracleReceive;
      effects.push(this.deps.engine.enqueue({ kind, key, orderId: order.id, chainId, ...call, gas }, 'oracle').send);
    }
    return effects;
  }

  /** Valid fills per output (in output order): the exact output, on its chain and settler, at or before the deadline. */
  private fillViews(order: OrderRecord, facts: ChainFact[]): FillView[] {
    const views: FillView[] = [];
    order.standardOrder.outputs.forEach((output, index) => {
      const expected = outputHash(output);
      const fill = facts.find(
        (f): f is Extract<ChainFact, { kind: 'filled' }> =>
          f.kind === 'filled' &&
          f.chainId === Number(output.chainId) &&
          getAddress(f.address) === bytes32ToAddress(output.settler) &&
          outputHash(f.output) === expected &&
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

  // ---- expiry ---------------------------------------------------------------------------------------------

  /**
   * The keeper's question at `expires + 1 s`. Escrow: while the chain still holds the deposit, relay `refund`
   * (the `Refunded` log then finishes the order). Resource lock: a compact is claimable only before `expires`; if
   * its nonce is still unspent by then the order is Refunded without a transaction (the taker withdraws).
   */
  private async onExpiry(orderId: string): Promise<{ done: true } | { done: false; retryAt: number }> {
    const order = this.deps.orders.get(orderId);
    if (order === undefined || TERMINAL.has(order.status) || order.status === 'Opening') return { done: true };
    const chain = this.deps.engine.chain(order.originChainId);
    if (chain === undefined) return { done: true };
    const retry = { done: false as const, retryAt: this.deps.clock.now() + 1_000 };
    // Read the chain's time before its state: a refund needs block.timestamp > expires, and once the next block is
    // past expires no compact claim (block.timestamp < expires) can land after the state read below.
    if ((await nextBlockTime(chain)) <= order.expires) return retry;
    if (order.lockType === 'ResourceLock') {
      const consumed = await chain.client.readContract({
        address: chain.contracts.resourceLock,
        abi: HAS_CONSUMED_ABI,
        functionName: 'hasConsumedAllocatorNonce',
        args: [order.nonce, chain.contracts.allocator],
      });
      if (consumed) return { done: true };
      const effects = this.deps.outbox.commit(() => {
        const fresh = this.deps.orders.get(orderId);
        return fresh === undefined || TERMINAL.has(fresh.status) ? [] : this.refund(fresh, null, this.deps.clock.now());
      });
      for (const effect of effects) await effect();
      return { done: true };
    }
    const status = await chain.client.readContract({
      address: chain.contracts.inputSettlerEscrow,
      abi: ORDER_STATUS_ABI,
      functionName: 'orderStatus',
      args: [order.onchainOrderId],
    });
    if (status !== 1) return { done: true };
    const effects = this.deps.outbox.commit(() => {
      const attempt = this.deps.engine.relays.countForOrder(order.id, 'refund');
      const { send } = this.deps.engine.enqueue(
        {
          kind: 'refund',
          key: `${order.id}:${attempt}`,
          orderId: order.id,
          chainId: order.originChainId,
          to: chain.contracts.inputSettlerEscrow,
          data: refundCalldata(order.standardOrder),
          gas: this.deps.engine.gas.refund,
        },
        'service',
      );
      return [send];
    });
    for (const effect of effects) await effect();
    return { done: true };
  }

  // ---- transitions ----------------------------------------------------------------------------------------

  private refund(order: OrderRecord, txHash: Hex | null, at: number): AfterCommit[] {
    this.transition(
      order,
      'Refunded',
      { txHash, chainId: order.originChainId, oracleHash: null },
      { refundTxHash: txHash ?? undefined },
      at,
    );
    return [
      () => this.keeper.cancel(order.id),
      () => this.deps.dispatch.send(order.solverId, { type: 'order.refunded', orderId: order.id, onchainOrderId: order.onchainOrderId }),
    ];
  }

  private transition(
    order: OrderRecord,
    to: OrderStatus,
    stage: { txHash: Hex | null; chainId: number; oracleHash: Hex | null },
    update: Parameters<OrderRepository['update']>[1],
    at: number,
  ): OrderRecord {
    const from = order.status as OrderStatus;
    this.deps.orders.update(order.id, { ...update, status: to }, at);
    const next: OrderRecord = { ...order, ...stripUndefined(update), status: to };
    const entry = this.deps.ledger.append({
      type: 'order.transition',
      tradeId: order.id,
      recordedAt: iso(at),
      payload: { orderId: order.id, from, to, txHash: stage.txHash, chainId: stage.chainId, oracleHash: stage.oracleHash },
    });
    const record: StageRecord = {
      stage: STAGE_OF[to],
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

  // ---- solvers --------------------------------------------------------------------------------------------

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
    this.notifyAttested(order, this.fillViews(order, facts));
  }

  private notifyAttested(order: OrderRecord, fills: FillView[]): void {
    const message: SolverOrderMessage = {
      type: 'order.attested',
      orderId: order.id,
      onchainOrderId: order.onchainOrderId,
      lockType: order.lockType,
      originChainId: order.originChainId,
      standardOrder: standardOrderToWire(order.standardOrder),
      solveParams: fills.map((f) => ({ timestamp: f.fill.timestamp, solver: f.fill.solver })),
      ...(order.lockType === 'ResourceLock' ? { compactSignatures: compactClaimSignatures(order.signature) } : {}),
    };
    this.deps.dispatch.send(order.solverId, message);
  }

  private emit(event: OrderDomainEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  private originChain(order: OrderRecord): ChainInfo {
    const chain = this.deps.chains.find((c) => c.chainId === order.originChainId);
    if (chain === undefined) throw new Error(`order ${order.id}: origin chain ${order.originChainId} is not configured`);
    return chain;
  }
}

const ORDER_STATUS_ABI = [
  {
    type: 'function',
    name: 'orderStatus',
    stateMutability: 'view',
    inputs: [{ name: 'orderId', type: 'bytes32' }],
    outputs: [{ name: '', type: 'uint8' }],
  },
] as const;

const HAS_CONSUMED_ABI = [
  {
    type: 'function',
    name: 'hasConsumedAllocatorNonce',
    stateMutability: 'view',
    inputs: [
      { name: 'nonce', type: 'uint256' },
      { name: 'allocator', type: 'address' },
    ],
    outputs: [{ name: '', type: 'bool' }],
  },
] as const;

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function iso(at: number): string {
  return new Date(at).toISOString();
}
