import type { Logger } from 'pino';
import type { Address } from 'viem';
import type { NonceSource, QuoteBook, SolverNotifier } from '../auction/types.js';
import type { ComplianceModule } from '../compliance/module.js';
import type { EvidenceModule } from '../evidence/module.js';
import type { RunningContext, ServiceContext, ServiceModule } from '../module.js';
import type { SettlementModule } from '../settlement/module.js';
import type { MigrationSet } from '../store/migrations.js';
import { ordersMigrations } from './migrations.js';
import { OrderIntake } from './order-intake.js';
import { type OrderDomainListener, OrderLifecycle } from './order-lifecycle.js';
import { OrderRepository } from './order-repository.js';
import { OrderViews } from './order-views.js';
import { mountOrderRoutes } from './routes.js';
import type { SolverOrderMessage } from '../auction/types.js';
import { SolverDispatch } from './solver-dispatch.js';
import { Keeper } from '../settlement/keeper.js';

export interface OrdersModuleOptions {
  evidence: EvidenceModule;
  compliance: ComplianceModule;
  settlement: SettlementModule;
  /** The auction's quote book (orders read and accept quotes), or how to get it once the auction is set up. */
  quoteBook?: QuoteBook | (() => QuoteBook | undefined) | undefined;
  /** The solver stream (the auction's notifier); may also be attached later. */
  notifier?: SolverNotifier | undefined;
}

/**
 * Orders: intake (`POST /api/v1/orders`), reads, workspace settlements, and the lifecycle that the settlement
 * engine's chain facts drive from Deposited to Claimed or Refunded.
 */
export class OrdersModule implements ServiceModule {
  readonly name = 'orders';
  readonly migrations: MigrationSet = ordersMigrations;
  private quoteBook: QuoteBook | (() => QuoteBook | undefined) | undefined;
  private notifier: SolverNotifier | undefined;
  private repository: OrderRepository | undefined;
  private _views: OrderViews | undefined;
  private lifecycleInstance: OrderLifecycle | undefined;
  private dispatch: SolverDispatch | undefined;
  private readonly pendingListeners: OrderDomainListener[] = [];
  private logger: Logger | undefined;

  constructor(private readonly options: OrdersModuleOptions) {
    this.quoteBook = options.quoteBook;
    this.notifier = options.notifier;
  }

  /** Connects the auction after construction (tests, or a composition that builds the auction later). */
  attach(parts: { quoteBook?: QuoteBook; notifier?: SolverNotifier }): void {
    if (parts.quoteBook !== undefined) this.quoteBook = parts.quoteBook;
    if (parts.notifier !== undefined) {
      this.notifier = parts.notifier;
      this.dispatch?.use(parts.notifier);
      if (this.dispatch !== undefined) this.listenForSolvers(parts.notifier);
    }
  }

  /** For the auction: the highest nonce each user spent, so quote details hand out the next one. */
  readonly nonces: NonceSource = {
    highestUsedNonce: (user: Address) => this.orders.lastNonce(user)?.nonce,
  };

  /** The wire shapes of orders (the deferred rail lists its orders with them). */
  get views(): OrderViews {
    if (this._views === undefined) throw new Error('orders module used before setup');
    return this._views;
  }

  private get orderViews(): OrderViews {
    this._views ??= new OrderViews(this.repository!, this.options.evidence.ledger);
    return this._views;
  }

  get orders(): OrderRepository {
    if (this.repository === undefined) throw new Error('orders module used before setup');
    return this.repository;
  }

  /** Undefined when the service runs without a settlement engine. */
  get lifecycle(): OrderLifecycle | undefined {
    return this.lifecycleInstance;
  }

  /** Sends a solver-stream message to an order's solver (retried while no connection takes it). */
  notifySolver(solverId: string, message: SolverOrderMessage): void {
    this.dispatch?.send(solverId, message);
  }

  /**
   * A solver that (re)connects gets `order.assigned` again for each of its orders still waiting for its fill. The
   * stream is best effort: an assignment sent while the solver was between two connections, or published to the
   * replica that held its connection as that replica died, is otherwise lost until a take-over re-sends it, and the
   * order waits for its refund. Solvers de-duplicate by order.
   */
  private listenForSolvers(notifier: SolverNotifier): void {
    notifier.onConnected?.((solverId) => {
      const lifecycle = this.lifecycleInstance;
      if (lifecycle === undefined || this.repository === undefined) return;
      try {
        for (const order of this.repository.withStatus('Deposited')) if (order.solverId === solverId) lifecycle.assign(order);
      } catch (error) {
        this.logger?.warn({ err: error, solverId }, 'open assignments not re-sent to a reconnected solver');
      }
    });
  }

  /** Hook for projections (Reference B events): called inside the transaction of every order change. */
  onDomainEvent(listener: OrderDomainListener): void {
    if (this.lifecycleInstance !== undefined) this.lifecycleInstance.onDomainEvent(listener);
    else this.pendingListeners.push(listener);
  }

  setup(context: ServiceContext): void {
    const { evidence, compliance, settlement } = this.options;
    this.logger = context.logger.child({ module: 'orders' });
    this.repository = new OrderRepository(context.store);
    this.dispatch = new SolverDispatch(this.logger);
    this.dispatch.use(this.notifier);
    if (this.notifier !== undefined) this.listenForSolvers(this.notifier);
    const engine = settlement.engine;
    if (engine !== undefined) {
      this.lifecycleInstance = new OrderLifecycle({
        orders: this.repository,
        ledger: evidence.ledger,
        outbox: evidence.outbox,
        compliance,
        engine,
        chains: context.config.chains,
        clock: context.clock,
        logger: this.logger,
        dispatch: this.dispatch,
      });
      engine.attach(this.lifecycleInstance);
      for (const listener of this.pendingListeners.splice(0)) this.lifecycleInstance.onDomainEvent(listener);
    }
    const intake = new OrderIntake({
      orders: this.repository,
      lifecycle: this.lifecycleInstance!,
      compliance,
      outbox: evidence.outbox,
      chains: context.config.chains,
      clock: context.clock,
      logger: this.logger,
      quoteBook: () => (typeof this.quoteBook === 'function' ? this.quoteBook() : this.quoteBook),
      engine: () => settlement.engine,
    });
    mountOrderRoutes(context.routes(), context.openapi, {
      intake,
      orders: this.repository,
      views: this.orderViews,
    });
  }

  /**
   * Runs after the settlement engine started (its relayers settled what a previous run left, its watchers caught up):
   * re-schedules every open order's expiry and re-sends solvers what they may have missed.
   */
  async startSingleton(context: RunningContext): Promise<void> {
    const lifecycle = this.lifecycleInstance;
    if (lifecycle === undefined) return;
    for (const order of this.orders.withStatus('Deposited', 'Filled', 'Attested')) {
      // Idempotent: asks again for any relay the order's facts still call for.
      const effects = this.options.evidence.outbox.commit(() => {
        const fresh = this.orders.get(order.id)!;
        return lifecycle.reconcile(fresh, context.clock.now());
      });
      for (const effect of effects) await effect();
      const current = this.orders.get(order.id)!;
      if (current.status === 'Claimed' || current.status === 'Refunded') continue;
      lifecycle.keeper.schedule(order.id, Keeper.dueAt(order.expires));
      if (current.status === 'Deposited') lifecycle.assign(current);
      if (current.status === 'Attested') lifecycle.resendAttested(current);
    }
  }

  stop(): void {
    this.lifecycleInstance?.keeper.stop();
    this.dispatch?.stop();
  }
}
