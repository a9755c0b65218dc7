import { type Address, type Hex, getAddress } from 'viem';
import { bytes32ToAddress } from '../../contracts/order.js';
import type { Clock } from '../../clock/index.js';
import type { AuthContext } from '../api/auth-context.js';
import { ConflictError, NotFoundError } from '../errors/api-errors.js';
import type { OutboxRepository } from '../events/outbox.js';
import type { LedgerRepository } from '../ledger/repository.js';
import type { OrderDomainEvent } from '../orders/order-domain-events.js';
import type { OrderLifecycle } from '../orders/order-lifecycle.js';
import type { OrderRecord, OrderRepository } from '../orders/order-repository.js';
import type { SettlementEngine } from '../settlement/engine.js';
import type { RelayRecord } from '../settlement/relay-repository.js';
import type { AfterCommit, RelayOutcome } from '../settlement/relayer.js';
import { newId } from '../store/ids.js';
import type { Store } from '../store/store.js';
import type { ApprovalRecord, DeferredCredit } from './credit.js';
import { payoutCalldata } from '../../contracts/deferred-vault.js';

const PAYOUT_GAS = 600_000n;

export interface DeferredOrdersDeps {
  store: Store;
  clock: Clock;
  outbox: OutboxRepository;
  ledger: LedgerRepository;
  engine: () => SettlementEngine | undefined;
  orders: () => { repository: OrderRepository; lifecycle: OrderLifecycle | undefined };
  credit: DeferredCredit;
}

function actorOf(auth: AuthContext): string {
  return auth.kind === 'jwt' ? auth.userId : auth.keyId;
}

/**
 * Deferred orders after their hold: an admin confirms a filled one (the approvals queue holds it), confirmed
 * orders are paid to their solvers from the vault in one netted `payout` batch, and the vault books move with
 * every hold, release and payout. Liquidity providers can be paused: a paused solver is neither offered deferred
 * RFQs nor paid.
 */
export class DeferredOrders {
  constructor(private readonly deps: DeferredOrdersDeps) {}

  // ---- liquidity providers ------------------------------------------------------------------------------

  isPaused(solverId: string): boolean {
    return this.deps.store.db.prepare('SELECT 1 FROM deferred_paused_lps WHERE solver_id = ?').get(solverId) !== undefined;
  }

  setPaused(
    auth: AuthContext,
    solverId: string,
    paused: boolean,
    known: (solverId: string) => boolean,
  ): { solverId: string; paused: boolean } {
    if (!known(solverId)) throw new NotFoundError({ code: 'resource_not_found', param: 'lp_id', message: `No solver ${solverId}.` });
    const now = this.deps.clock.now();
    this.deps.outbox.commit(() => {
      if (paused) {
        this.deps.store.db
          .prepare('INSERT OR IGNORE INTO deferred_paused_lps (solver_id, paused_at, paused_by) VALUES (?, ?, ?)')
          .run(solverId, now, actorOf(auth));
      } else this.deps.store.db.prepare('DELETE FROM deferred_paused_lps WHERE solver_id = ?').run(solverId);
      this.deps.ledger.append({
        type: paused ? 'admin.lp_paused' : 'admin.lp_resumed',
        tradeId: solverId,
        recordedAt: new Date(now).toISOString(),
        payload: { workspaceId: auth.workspaceId, solverId, actor: actorOf(auth) },
      });
    });
    return { solverId, paused };
  }

  // ---- confirmations and payouts ------------------------------------------------------------------------

  /** Order domain events: a deferred order that became Filled waits for an admin (inside the transition's transaction). */
  onDomainEvent(event: OrderDomainEvent): void {
    if (event.type !== 'order.transitioned' || event.to !== 'Filled' || event.order.settlementPath !== 'deferred') return;
    const order = event.order;
    if (order.workspaceId === null) return;
    this.deps.store.db
      .prepare(
        `INSERT INTO admin_approvals (id, workspace_id, kind, subject_id, status, summary, created_at)
         VALUES (?, ?, 'deferred_confirmation', ?, 'pending', ?, ?)`,
      )
      .run(
        newId('apr'),
        order.workspaceId,
        order.id,
        `pay ${order.inputAmount} of ${order.inputToken} to solver ${order.solverId} for deferred order ${order.id} (filled)`,
        event.at,
      );
  }

  /** `POST /admin/deferred/{order_id}/confirm`: approves the order's pending confirmation and pays the batch. */
  async confirm(auth: AuthContext, orderId: string): Promise<OrderRecord> {
    const pending = this.deps.store.db
      .prepare(
        `SELECT id FROM admin_approvals WHERE workspace_id = ? AND kind = 'deferred_confirmation' AND subject_id = ? AND status = 'pending'`,
      )
      .get(auth.workspaceId, orderId) as { id: string } | undefined;
    const order = this.deps.orders().repository.get(orderId);
    if (order === undefined || order.workspaceId !== auth.workspaceId || order.settlementPath !== 'deferred') {
      throw new NotFoundError({ code: 'resource_not_found', param: 'order_id', message: `No deferred order ${orderId}.` });
    }
    if (pending === undefined || order.status !== 'Filled') {
      throw new ConflictError({
        code: 'order_not_confirmable',
        param: 'order_id',
        message: `Order ${orderId} is ${order.status}${pending === undefined ? ' and has no pending confirmation' : ''}; only a filled deferred order waiting for confirmation can be confirmed.`,
      });
    }
    await this.deps.credit.decide(auth, pending.id, 'approved');
    return this.deps.orders().repository.get(orderId)!;
  }

  /**
   * The approvals queue decided a confirmation (inside its transaction): an approved one joins the payout batch of
   * every approved, unpaid, filled deferred order of the workspace; the batch is one `payout` relay.
   */
  onConfirmation(auth: AuthContext, approval: ApprovalRecord, decision: 'approved' | 'rejected'): AfterCommit | undefined {
    if (decision !== 'approved') return undefined;
    const order = this.deps.orders().repository.get(approval.subjectId);
    if (order !== undefined && this.isPaused(order.solverId)) {
      throw new ConflictError({
        code: 'lp_paused',
        param: 'order_id',
        message: `Solver ${order.solverId} is paused on the deferred rail; resume it before paying it.`,
      });
    }
    return this.payBatch(auth.workspaceId, order?.originChainId);
  }

  private payBatch(workspaceId: string, chainId: number | undefined): AfterCommit | undefined {
    const engine = this.deps.engine();
    if (engine === undefined || chainId === undefined) return undefined;
    const repository = this.deps.orders().repository;
    const candidates = this.deps.store.db
      .prepare(
        `SELECT a.subject_id AS order_id FROM admin_approvals a
         WHERE a.workspace_id = ? AND a.kind = 'deferred_confirmation' AND a.status = 'approved'
           AND NOT EXISTS (SELECT 1 FROM deferred_payouts p WHERE p.order_id = a.subject_id)`,
      )
      .all(workspaceId) as Array<{ order_id: string }>;
    const batch: Array<{ order: OrderRecord; recipient: Address }> = [];
    for (const { order_id } of candidates) {
      const order = repository.get(order_id);
      if (order === undefined || order.status !== 'Filled' || order.originChainId !== chainId || this.isPaused(order.solverId)) continue;
      const recipient = this.fillerOf(engine, order);
      if (recipient !== undefined) batch.push({ order, recipient });
    }
    if (batch.length === 0) return undefined;
    const vault = engine.chain(chainId)?.info.contracts.DeferredVault;
    if (vault === undefined) return undefined;
    const batchId = newId('pay');
    const insert = this.deps.store.db.prepare(
      'INSERT INTO deferred_payouts (order_id, batch_id, recipient, created_at) VALUES (?, ?, ?, ?)',
    );
    for (const { order, recipient } of batch) insert.run(order.id, batchId, recipient, this.deps.clock.now());
    const data = payoutCalldata(batch.map(({ order, recipient }) => ({ orderId: order.onchainOrderId, recipient })));
    return engine.enqueue({ kind: 'vault.payout', key: batchId, chainId, to: getAddress(vault), data, gas: PAYOUT_GAS }, 'service').send;
  }

  /** Who filled the order on the destination (the fill record's solver): the one the vault pays. */
  private fillerOf(engine: SettlementEngine, order: OrderRecord): Address | undefined {
    const fill = engine.facts.forOrder(order.onchainOrderId).find((f) => f.kind === 'filled');
    return fill?.kind === 'filled' ? bytes32ToAddress(fill.solver) : undefined;
  }

  // ---- the vault's books --------------------------------------------------------------------------------

  onRelayOutcome(relay: RelayRecord, outcome: RelayOutcome): AfterCommit[] {
    if (outcome.status !== 'mined') {
      if (relay.kind === 'vault.payout') this.deps.store.db.prepare('DELETE FROM deferred_payouts WHERE batch_id = ?').run(relay.key);
      return [];
    }
    const repository = this.deps.orders().repository;
    if ((relay.kind === 'vault.hold' || relay.kind === 'vault.release') && relay.orderId !== undefined) {
      const order = repository.get(relay.orderId);
      if (order === undefined || order.workspaceId === null) return [];
      const amount = BigInt(order.inputAmount);
      const sign = relay.kind === 'vault.hold' ? 1n : -1n;
      this.deps.credit.move(
        order.workspaceId,
        order.originChainId,
        getAddress(order.inputToken),
        { available: -sign * amount, held: sign * amount },
        relay.kind === 'vault.hold' ? 'hold' : 'release',
        order.id,
        relay.txHash,
      );
      return [];
    }
    if (relay.kind !== 'vault.payout') return [];
    const paid = this.deps.store.db.prepare('SELECT order_id FROM deferred_payouts WHERE batch_id = ?').all(relay.key) as Array<{
      order_id: string;
    }>;
    const effects: AfterCommit[] = [];
    const at = this.deps.clock.now();
    for (const { order_id } of paid) {
      const order = repository.get(order_id);
      if (order === undefined || order.workspaceId === null) continue;
      this.deps.credit.move(
        order.workspaceId,
        order.originChainId,
        getAddress(order.inputToken),
        { available: 0n, held: -BigInt(order.inputAmount) },
        'payout',
        order.id,
        relay.txHash,
      );
      effects.push(...(this.deps.orders().lifecycle?.settleDeferred(order.id, relay.txHash as Hex, at) ?? []));
    }
    return effects;
  }
}
