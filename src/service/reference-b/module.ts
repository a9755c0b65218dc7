/**
 * Reference B, the earlier generation of the interface, served beside Reference A as another face of the same
 * domain: its routes adapt the auction, the order intake, the settlement lifecycle and the evidence ledger, and its
 * events are a projection of the order lifecycle's domain events (see event-projection.ts).
 */
import type { AuctionModule } from '../auction/module.js';
import type { ComplianceModule } from '../compliance/module.js';
import type { EvidenceModule } from '../evidence/module.js';
import type { ServiceContext, ServiceModule } from '../module.js';
import { OrderIntake } from '../orders/order-intake.js';
import type { OrdersModule } from '../orders/module.js';
import type { SettlementModule } from '../settlement/module.js';
import type { MigrationSet } from '../store/migrations.js';
import { AuditTrails } from './audit-trail.js';
import { SettlementEventProjection } from './event-projection.js';
import { referenceBMigrations } from './migrations.js';
import { QuoteAcceptance } from './quote-acceptance.js';
import { RfqDesk } from './rfq-desk.js';
import { mountReferenceBRoutes } from './routes.js';
import { SettlementViews } from './settlement-view.js';
import { SolverOnboarding } from './solver-onboarding.js';
import { SolverRegistrations } from './solver-registrations.js';
import { TradeLookup } from './trades.js';

export interface ReferenceBModuleOptions {
  evidence: EvidenceModule;
  auction: AuctionModule;
  orders: OrdersModule;
  settlement: SettlementModule;
  compliance: ComplianceModule;
}

/**
 * Must be set up before the auction module: `GET /api/v1/quotes/{id}` is shared, and Reference B's route for
 * `rfq_…` ids has to be mounted ahead of Reference A's quote detail so that rfq_ ids get Reference B's errors.
 * Everything it uses from other modules it reaches lazily, once those are set up.
 */
export class ReferenceBModule implements ServiceModule {
  readonly name = 'reference-b';
  readonly migrations: MigrationSet = referenceBMigrations;
  private _registrations: SolverRegistrations | undefined;
  private intake: OrderIntake | undefined;

  constructor(private readonly options: ReferenceBModuleOptions) {
    // Solver keys issued by `POST /solver/register` authenticate on the auction's solver stream.
    options.auction.useSolverKeys({ resolve: (key) => this._registrations?.resolver.resolve(key) });
  }

  get registrations(): SolverRegistrations {
    if (this._registrations === undefined) throw new Error('the reference-b module is used before setup');
    return this._registrations;
  }

  setup(context: ServiceContext): void {
    const { evidence, auction, orders, settlement, compliance } = this.options;
    const { clock, config } = context;
    const logger = context.logger.child({ module: 'reference-b' });
    this._registrations = new SolverRegistrations(context.store);
    orders.onDomainEvent(new SettlementEventProjection({ outbox: evidence.outbox, ledger: evidence.ledger, chains: config.chains }).handle);

    // Reference A's intake itself, built over the orders module's parts once they exist.
    const intake = (): OrderIntake => {
      this.intake ??= new OrderIntake({
        orders: orders.orders,
        lifecycle: orders.lifecycle!,
        compliance,
        outbox: evidence.outbox,
        chains: config.chains,
        clock,
        logger,
        quoteBook: () => auction.quoteBook,
        engine: () => settlement.engine,
      });
      return this.intake;
    };

    mountReferenceBRoutes(context.routes({ errorFormat: 'B' }), context.openapi, {
      corridorIds: context.corridors.list().map((corridor) => corridor.id),
      desk: new RfqDesk({
        quotes: () => auction.quotes,
        fillRate: (solverId) => auction.fillRate(solverId),
        corridors: context.corridors,
        quoteTtlMs: auction.settings.quoteTtlMs,
      }),
      acceptance: new QuoteAcceptance({
        intake,
        quoteBook: () => auction.quoteBook,
        acceptedQuoteOf: (rfqId) =>
          auction.quotes.rfqView(rfqId, () => null).responses.find((r) => r.quoteStatus === 'accepted')?.quoteId ?? undefined,
        chains: config.chains,
      }),
      trades: new TradeLookup({ ledger: evidence.ledger, orders: () => orders.orders, quoteBook: () => auction.quoteBook }),
      settlements: new SettlementViews({ orders: () => orders.orders, ledger: evidence.ledger, chains: config.chains }),
      audits: new AuditTrails(evidence.ledger),
      onboarding: new SolverOnboarding({
        clock,
        environment: config.environment,
        corridors: context.corridors,
        compliance,
        outbox: evidence.outbox,
        registry: () => auction.registry,
        registrations: this._registrations,
      }),
      solverStreamUrl: () => auction.solverStreamUrl,
    });
  }
}
