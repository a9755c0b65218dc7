import type { AuctionModule } from '../auction/module.js';
import type { EvidenceModule } from '../evidence/module.js';
import type { RunningContext, ServiceContext, ServiceModule } from '../module.js';
import type { OrdersModule } from '../orders/module.js';
import type { SettlementModule } from '../settlement/module.js';
import { DeferredCredit } from './credit.js';
import { DeferredOrders } from './deferred-orders.js';
import { mountDeferredOrderRoutes } from './order-routes.js';
import { deferredMigrations } from './migrations.js';
import { mountDeferredRoutes } from './routes.js';
import type { DeferredSettings } from './settings.js';

export const DEFAULT_APPROVAL_THRESHOLD = 10_000_000_000n;

/**
 * The deferred rail: the workspace's credit in `DeferredVault` (deposits, withdrawals, the mirror and
 * `credit.updated`), the admin approvals queue, and deferred orders after their hold (confirmation, netted
 * payouts, releases, paused liquidity providers). The hold itself is the orders module's intake.
 */
export class DeferredModule implements ServiceModule {
  readonly name = 'deferred';
  readonly migrations = deferredMigrations;
  private _credit: DeferredCredit | undefined;

  constructor(
    private readonly options: {
      evidence: EvidenceModule;
      settlement: SettlementModule;
      orders: OrdersModule;
      auction: AuctionModule;
      settings?: DeferredSettings | undefined;
    },
  ) {}

  setup(context: ServiceContext): void {
    const { evidence, settlement, settings } = this.options;
    const credit = new DeferredCredit({
      store: context.store,
      clock: context.clock,
      outbox: evidence.outbox,
      ledger: evidence.ledger,
      engine: () => settlement.engine,
      approvalThreshold:
        settings?.withdrawalApprovalThreshold === undefined ? DEFAULT_APPROVAL_THRESHOLD : BigInt(settings.withdrawalApprovalThreshold),
    });
    this._credit = credit;
    const { orders, auction } = this.options;
    const deferredOrders = new DeferredOrders({
      store: context.store,
      clock: context.clock,
      outbox: evidence.outbox,
      ledger: evidence.ledger,
      engine: () => settlement.engine,
      orders: () => ({ repository: orders.orders, lifecycle: orders.lifecycle }),
      credit,
    });
    credit.onConfirmation((auth, approval, decision) => deferredOrders.onConfirmation(auth, approval, decision));
    settlement.engine?.onRelayOutcome((relay, outcome) => [
      ...credit.onRelayOutcome(relay, outcome),
      ...deferredOrders.onRelayOutcome(relay, outcome),
    ]);
    orders.onDomainEvent((event) => deferredOrders.onDomainEvent(event));
    // A paused liquidity provider is not invited to deferred RFQs.
    auction.useSolverFilter((solverId, settlementPath) => settlementPath !== 'deferred' || !deferredOrders.isPaused(solverId));
    mountDeferredRoutes(
      context.routes(),
      context.openapi,
      credit,
      context.repos,
      context.store,
      context.config.chains.filter((chain) => chain.contracts.DeferredVault !== undefined),
    );
    mountDeferredOrderRoutes(context.routes(), context.openapi, {
      deferredOrders,
      repos: context.repos,
      store: context.store,
      orders: () => orders.orders,
      knownSolver: (id) => auction.registry.get(id) !== undefined,
      views: () => orders.views,
    });
  }

  start(_context: RunningContext): void {}

  get credit(): DeferredCredit {
    if (this._credit === undefined) throw new Error('deferred module used before setup');
    return this._credit;
  }
}
