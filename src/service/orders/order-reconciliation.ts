import { getAddress } from 'viem';
import type { ChainInfo } from '../../contracts/deployment.js';
import type { Keeper } from '../settlement/keeper.js';
import type { AfterCommit } from '../settlement/relayer.js';
import { fillPayload, oracleReceiveCalldata, oracleSubmitCalldata } from '../settlement/transactions.js';
import type { LifecycleDeps } from './lifecycle-deps.js';
import { attestedMessage, type FillView, fillViews } from './order-fills.js';
import type { ChainFact } from '../settlement/chain-facts.js';
import { type OrderRecord, type OrderStatus, TERMINAL } from './order-repository.js';
import type { OrderTransitions } from './order-transitions.js';
import { inputSettlerFor } from '../../contracts/standard-order.js';

/** How far along a live order is: a reorg moves it back, never forward. */
const RANK: Record<OrderStatus, number> = { Deposited: 0, Filled: 1, Attested: 2, Claimed: 3, Refunded: 3 };

/** An oracle leg that reverts is sent again, at most this many times in all. */
const ORACLE_ATTEMPTS = 3;

/**
 * Moves an order along what the chain facts show: Filled when every output is filled in time, Attested when every
 * fill is recorded by the input oracle, Claimed on Finalised, Refunded on Refunded; asks for the oracle relays its
 * fills still need. Reconciling twice changes nothing: each step checks the state it moves from.
 */
export class OrderReconciliation {
  constructor(
    private readonly deps: LifecycleDeps,
    private readonly transitions: OrderTransitions,
    private readonly keeper: () => Keeper,
  ) {}

  /** Moves an order as far as the recorded chain facts justify, and asks for the relays its fills still need. */
  reconcile(order: OrderRecord, at: number): AfterCommit[] {
    if (TERMINAL.has(order.status) || order.status === 'Opening') return [];
    const facts = this.deps.engine.facts.forOrder(order.onchainOrderId);
    const fills = fillViews(order, facts);
    const effects: AfterCommit[] = [];
    let current = order;
    const outputs = order.standardOrder.outputs;

    const allFilled = fills.length === outputs.length;
    if (current.status === 'Deposited' && allFilled) {
      const first = fills[0]!.fill;
      current = this.transitions.transition(
        current,
        'Filled',
        { txHash: first.txHash, chainId: first.chainId, oracleHash: null },
        { destinationTxHash: first.txHash },
        at,
      );
    }
    // A deferred order is paid from the vault once an admin confirms it (the deferred module): no oracle legs.
    if (order.settlementPath === 'deferred') return effects;
    const allAttested = allFilled && fills.every((f) => f.attested !== undefined);
    if (current.status === 'Filled' && allAttested) {
      const record = fills[fills.length - 1]!.attested!;
      current = this.transitions.transition(
        current,
        'Attested',
        { txHash: record.txHash, chainId: record.chainId, oracleHash: fills[0]!.payloadHash },
        { oracleAttestationHash: record.txHash },
        at,
      );
      const attested = current;
      effects.push(() => this.deps.dispatch.send(attested.solverId, attestedMessage(attested, fills)));
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
      current = this.transitions.transition(
        current,
        'Claimed',
        { txHash: finalised.txHash, chainId: finalised.chainId, oracleHash: null },
        { claimTxHash: finalised.txHash, settledAt: at },
        at,
      );
      effects.push(() => this.keeper().cancel(order.id));
      return effects;
    }
    if (refunded !== undefined) {
      effects.push(...this.transitions.refund(current, refunded.txHash, at));
      return effects;
    }

    const relays = this.deps.engine.relays.forOrder(order.id);
    for (const view of fills) {
      const kind = !view.proven ? 'oracle.submit' : view.attested === undefined ? 'oracle.receive' : undefined;
      if (kind === undefined) continue;
      // One relay per leg and output; one that reverted or never landed (dropped) is tried again, a few times.
      const earlier = relays.filter(
        (r) => r.kind === kind && (r.key === `${order.id}:${view.index}` || r.key.startsWith(`${order.id}:${view.index}#`)),
      );
      if (earlier.some((r) => r.status !== 'reverted' && r.status !== 'dropped') || earlier.length >= ORACLE_ATTEMPTS) continue;
      const key = earlier.length === 0 ? `${order.id}:${view.index}` : `${order.id}:${view.index}#${earlier.length}`;
      const call = this.legCall(order, view, kind);
      const output = outputs[view.index]!;
      const chainId = kind === 'oracle.submit' ? Number(output.chainId) : order.originChainId;
      const gas = kind === 'oracle.submit' ? this.deps.engine.gas.oracleSubmit : this.deps.engine.gas.oracleReceive;
      effects.push(this.deps.engine.enqueue({ kind, key, orderId: order.id, chainId, ...call, gas }, 'oracle').send);
    }
    return effects;
  }

  /** The transaction of one oracle leg for one output's fill: the proof names that fill exactly (its block time too). */
  private legCall(order: OrderRecord, view: FillView, kind: 'oracle.submit' | 'oracle.receive') {
    const output = order.standardOrder.outputs[view.index]!;
    return kind === 'oracle.submit'
      ? oracleSubmitCalldata(output, view.payload)
      : oracleReceiveCalldata(
          order.standardOrder.inputOracle,
          output,
          // The sandbox's oracle.wrong-amount fault: the same fill, 1 % short (a record no escrow can pay against).
          this.deps.engine.oraclePayload(order, view.payload, () =>
            fillPayload(view.fill, order.onchainOrderId, { ...output, amount: (output.amount * 99n) / 100n }),
          ),
        );
  }

  /**
   * Oracle legs still queued (held by a fault switch, or waiting for their turn) carry a proof of the fill as it was
   * when they were asked for. After a reorg moved that fill (mined again, in another block or at another time) the
   * proof is rebuilt from the fill the chain has now; when the fill is gone, the leg is dropped (it never landed).
   */
  refreshQueuedLegs(order: OrderRecord, at: number): void {
    const { relays, facts } = this.deps.engine;
    const fills = fillViews(order, facts.forOrder(order.onchainOrderId));
    for (const relay of relays.forOrder(order.id)) {
      if (relay.status !== 'queued' || (relay.kind !== 'oracle.submit' && relay.kind !== 'oracle.receive')) continue;
      const index = Number(relay.key.slice(order.id.length + 1).split('#')[0]);
      const view = fills.find((f) => f.index === index);
      if (view === undefined) {
        relays.markOutcome(relay.id, 'dropped', at, { error: 'the fill it proves was reorganised away' });
        continue;
      }
      const { data } = this.legCall(order, view, relay.kind);
      if (data.toLowerCase() !== relay.data.toLowerCase()) relays.replaceData(relay.id, data, at);
    }
  }

  /**
   * A reorg took chain facts of this order away (the facts table has forgotten them): the order goes back to the
   * status its remaining facts justify, with a `reorged` stage; the keeper still refunds it at expiry. A terminal order
   * stays as it is: its claim or refund is the escrow's final word, and a reorg deeper than that is logged.
   */
  rewind(order: OrderRecord, removed: readonly ChainFact[], at: number): AfterCommit[] {
    if (order.status === 'Opening') return [];
    if (TERMINAL.has(order.status)) {
      this.deps.logger.warn({ orderId: order.id, removed: removed.map((f) => f.kind) }, 'a reorg took facts of a settled order');
      return [];
    }
    const fills = fillViews(order, this.deps.engine.facts.forOrder(order.onchainOrderId));
    const allFilled = fills.length === order.standardOrder.outputs.length;
    const justified: OrderStatus =
      allFilled && fills.every((f) => f.attested !== undefined) ? 'Attested' : allFilled ? 'Filled' : 'Deposited';
    if (RANK[justified] >= RANK[order.status as OrderStatus]) return [];
    const gone = removed.find((f) => f.kind === 'filled') ?? removed[0];
    this.transitions.transition(
      order,
      justified,
      { txHash: gone?.txHash ?? null, chainId: gone?.chainId ?? order.originChainId, oracleHash: null },
      justified === 'Deposited' ? { destinationTxHash: null } : {},
      at,
      'reorged',
    );
    if (gone === undefined || justified !== 'Deposited') return [];
    const message = {
      type: 'order.reorged',
      orderId: order.id,
      onchainOrderId: order.onchainOrderId,
      chainId: gone.chainId,
      txHash: gone.txHash,
    } as const;
    return [() => this.deps.dispatch.send(order.solverId, message)];
  }

  private originChain(order: OrderRecord): ChainInfo {
    const chain = this.deps.chains.find((c) => c.chainId === order.originChainId);
    if (chain === undefined) throw new Error(`order ${order.id}: origin chain ${order.originChainId} is not configured`);
    return chain;
  }
}
