import type { Corridor } from '../corridors/schemas.js';
/**
 * The auction as a service module: its tables, the quote and solver routes, the solver stream, and the two seams
 * other modules use — `quoteBook` (orders read and accept quotes) and `notifier` (settlement tells the winning
 * solver about its order).
 */
import type { PriceUpdate } from '../events/price-feed.js';
import type { RunningContext, ServiceContext, ServiceModule } from '../module.js';
import { Auctioneer } from './auctioneer.js';
import { SolverStatistics } from './leaderboard.js';
import { auctionMigrations } from './migrations.js';
import { PAR } from './pricing.js';
import { QuoteRequestResolver } from './quote-request.js';
import { type AuctionSettings, type Evidence, QuoteService } from './quote-service.js';
import { RfqRepository } from './rfq-repository.js';
import { mountAuctionRoutes } from './routes.js';
import { SolverNetwork } from './solver-network.js';
import { SolverPerformance } from './solver-performance.js';
import { SolverPresenceRepository } from './solver-presence.js';
import { SolverRegistry } from './solver-registry.js';
import { SolverRepository } from './solver-repository.js';
import type { SolverStreamOpener, SolverStreamPort, SolverStreamSettings } from './solver-stream-port.js';
import type { NonceSource, QuoteBook, SolverKeyResolver, SolverNotifier, SolverOrderMessage } from './types.js';

/** Tunables of the auction (`ServiceConfig.auction`). */
export interface AuctionConfig extends Partial<AuctionSettings> {
  stream?: Partial<SolverStreamSettings>;
}

declare module '../config.js' {
  interface ServiceConfig {
    /** Auction window, quote lifetime, fill window, refund grace, fee ceiling, solver stream limits. */
    auction?: AuctionConfig;
  }
}

export const DEFAULT_AUCTION_SETTINGS: AuctionSettings = {
  windowMs: 300,
  quoteTtlMs: 30_000,
  fillWindowMs: 10 * 60_000,
  refundGraceMs: 5 * 60_000,
  maxFeeBps: 200,
  exclusivityMs: 60_000,
  midPrice: () => PAR,
};

export interface AuctionModuleOptions {
  /** The one ledger and outbox of the service (the evidence module). */
  evidence: Evidence;
  config?: AuctionConfig | undefined;
  /** Highest nonce each user already spent; the orders module supplies it (also later via `useNonceSource`). */
  nonceSource?: NonceSource | undefined;
  /** Reference B solver keys (`sk_…`) on the solver stream; issue 8 supplies it (also via `useSolverKeys`). */
  solverKeys?: SolverKeyResolver | undefined;
  /** The taker stream's price feed; each RFQ's best-priced quote is published to it. */
  prices?: { publish(update: PriceUpdate): void } | undefined;
  /** Opens the solver stream: the ws adapter's `openSolverStream` (the auction itself knows no sockets). */
  openSolverStream: SolverStreamOpener;
}

function checkSettings(settings: AuctionSettings): void {
  for (const name of ['windowMs', 'quoteTtlMs', 'fillWindowMs', 'refundGraceMs'] as const) {
    if (!(Number.isFinite(settings[name]) && settings[name] > 0)) throw new RangeError(`auction.${name} must be a positive number of ms`);
  }
  if (settings.exclusivityMs !== undefined && !(Number.isFinite(settings.exclusivityMs) && settings.exclusivityMs >= 0)) {
    throw new RangeError('auction.exclusivityMs must be a non-negative number of ms (0 disables exclusivity)');
  }
  if (!(Number.isInteger(settings.maxFeeBps) && settings.maxFeeBps >= 0 && settings.maxFeeBps < 10_000)) {
    throw new RangeError('auction.maxFeeBps must be an integer from 0 to 9999');
  }
}

export class AuctionModule implements ServiceModule {
  readonly name = 'auction';
  readonly migrations = auctionMigrations;
  readonly settings: AuctionSettings;
  private parts:
    | {
        quotes: QuoteService;
        registry: SolverRegistry;
        stream: SolverStreamPort;
        /** The solvers of every instance on a shared store, or this process's stream alone. */
        solvers: SolverStreamPort | SolverNetwork;
        network: SolverNetwork | undefined;
        performance: SolverPerformance;
      }
    | undefined;
  private _solverStreamUrl = '';
  private nonceSource: NonceSource | undefined;
  private solverFilter: ((solverId: string, settlementPath: string) => boolean) | undefined;
  private solverKeys: SolverKeyResolver | undefined;

  constructor(private readonly options: AuctionModuleOptions) {
    this.settings = { ...DEFAULT_AUCTION_SETTINGS, ...stripUndefined(options.config ?? {}) };
    checkSettings(this.settings);
    this.nonceSource = options.nonceSource;
    this.solverKeys = options.solverKeys;
  }

  /** For the orders module: read and accept quotes. */
  get quoteBook(): QuoteBook {
    return this.ready().quotes;
  }

  /** The auction service itself (Reference B's `POST /rfq` runs the same auction). */
  get quotes(): QuoteService {
    return this.ready().quotes;
  }

  /**
   * For the settlement engine: sends `order.assigned` / `order.attested` / `order.refunded` to the solver. The
   * attested and refunded messages also record the order's outcome in the solver's fill rate.
   */
  readonly notifier: SolverNotifier = {
    notify: (solverId: string, message: SolverOrderMessage): number => {
      const { quotes, solvers } = this.ready();
      if (message.type === 'order.attested') quotes.recordOutcome(message.orderId, 'filled');
      else if (message.type === 'order.refunded') quotes.recordOutcome(message.orderId, 'failed');
      return solvers.notify(solverId, message);
    },
    offer: (message) => this.ready().solvers.offer(message),
    onConnected: (listener) => {
      this.connectedListeners.add(listener);
    },
  };
  private readonly connectedListeners = new Set<(solverId: string) => void>();

  useNonceSource(source: NonceSource): void {
    this.nonceSource = source;
    this.parts?.quotes.useNonceSource(source);
  }

  /** See QuoteService.useSolverFilter; kept until setup when called earlier. */
  useSolverFilter(filter: (solverId: string, settlementPath: string) => boolean): void {
    this.solverFilter = filter;
    this.parts?.quotes.useSolverFilter(filter);
  }

  useSolverKeys(resolver: SolverKeyResolver): void {
    this.solverKeys = resolver;
    this.parts?.registry.useSolverKeys(resolver);
  }

  /** The solver registry (Reference B's `POST /solver/register` registers through it, so corridor counts stay right). */
  get registry(): SolverRegistry {
    return this.ready().registry;
  }

  /** A solver's fill rate over finished orders; null before its first (Reference B's RFQ view reports it). */
  fillRate(solverId: string): number | null {
    return this.ready().performance.fillRate(solverId);
  }

  /** Live solver stream connections of a solver, on every instance of the store. */
  connectionCount(solverId: string): number {
    return this.ready().solvers.connectionCount(solverId);
  }

  setup(context: ServiceContext): void {
    const { store, clock, config } = context;
    const solvers = new SolverRepository(store);
    const rfqs = new RfqRepository(store);
    const performance = new SolverPerformance(rfqs);
    const registry = new SolverRegistry(solvers, clock, {
      environment: config.environment,
      corridors: context.corridors,
      authenticator: context.authenticator,
      solverKeys: this.solverKeys,
      // Several instances: solvers registered through another one count here within a quarter second.
      recountAfterMs: context.instance.bus.shared ? 250 : undefined,
    });
    const auctioneer = new Auctioneer(clock, (rfqId) => rfqs.getRfq(rfqId) !== undefined);
    const quotes = new QuoteService({
      store,
      clock,
      chains: config.chains,
      resolver: new QuoteRequestResolver(config.chains, context.corridors),
      rfqs,
      solvers,
      performance,
      auctioneer,
      evidence: this.options.evidence,
      settings: this.settings,
      prices: this.options.prices,
    });
    quotes.useNonceSource(this.nonceSource);
    if (this.solverFilter !== undefined) quotes.useSolverFilter(this.solverFilter);
    // Several instances on one store: RFQs, answers and solver messages cross instances over the bus.
    const network = context.instance.bus.shared
      ? new SolverNetwork({
          bus: context.instance.bus,
          presence: new SolverPresenceRepository(store),
          auctioneer,
          clock,
          logger: context.logger.child({ component: 'solver-network' }),
          windowMs: this.settings.windowMs,
        })
      : undefined;
    const stream = this.options.openSolverStream(
      {
        clock,
        logger: context.logger.child({ component: 'solver-stream' }),
        environment: config.environment,
        authenticate: (token, solverId) => registry.authenticateStream(token, solverId),
        intake: network ?? {
          submitQuote: (solverId, input, receivedAt) => auctioneer.submitQuote(solverId, input, receivedAt),
          decline: (solverId, rfqId, reason, receivedAt) => auctioneer.decline(solverId, rfqId, reason, receivedAt),
          malformedQuote: (solverId, rfqId, reason) => auctioneer.recordMalformed(solverId, rfqId, reason),
          solverGone: (solverId) => auctioneer.solverGone(solverId),
        },
        presence: network?.presence,
        ...(this.options.config?.stream === undefined ? {} : { settings: this.options.config.stream }),
      },
      context,
    );
    network?.attach(stream);
    stream.onSolverReady((solverId) => {
      for (const listener of this.connectedListeners) listener(solverId);
    });
    const reach = network ?? stream;
    quotes.useChannel(reach);
    context.corridors.setSolverCount((corridorId) => registry.corridorCount(corridorId));
    this.parts = { quotes, registry, stream, solvers: reach, network, performance };

    mountAuctionRoutes(context.routes(), context.openapi, {
      quotes,
      registry,
      solvers,
      statistics: new SolverStatistics(rfqs, performance),
      connections: (solverId) => reach.connectionCount(solverId),
      solverStreamUrl: () => this._solverStreamUrl,
      fillRate: (solverId) => performance.fillRate(solverId),
      now: () => clock.now(),
      corridorIds: context.corridors.list().map((corridor) => corridor.id),
      ...quoteExampleOf(context.corridors.list()[0]),
    });
  }

  start(context: RunningContext): void {
    this.ready().network?.start();
    const base = (context.config.publicUrl ?? context.url).replace(/^http/, 'ws');
    this._solverStreamUrl = `${base}/ws/v1/solver/stream`;
  }

  /** Expiry jobs and abandoned auctions of a previous run: singleton work. */
  startSingleton(_context: RunningContext): void {
    this.ready().quotes.restore();
  }

  async stop(): Promise<void> {
    const parts = this.parts;
    if (parts === undefined) return;
    await parts.quotes.stop();
    parts.stream.close();
    parts.network?.stop();
  }

  /** The solver stream's address, once the service listens. */
  get solverStreamUrl(): string {
    return this._solverStreamUrl;
  }

  private ready() {
    if (this.parts === undefined) throw new Error('the auction module is used before setup');
    return this.parts;
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([key, v]) => v !== undefined && key !== 'stream')) as Partial<T>;
}

/** A quote request for the deployment's first corridor at twice its minimum (within its maximum). */
function quoteExampleOf(corridor: Corridor | undefined): { quoteExample?: Record<string, unknown> } {
  if (corridor === undefined) return {};
  const twice = BigInt(corridor.minNotional) * 2n;
  const amount = twice > BigInt(corridor.maxNotional) ? corridor.minNotional : twice.toString();
  return {
    quoteExample: {
      inputToken: corridor.inputToken.address,
      outputToken: corridor.outputToken.address,
      inputAmount: amount,
      originChainId: corridor.originChainId,
      destinationChainId: corridor.destinationChainId,
      preference: 'price',
    },
  };
}
