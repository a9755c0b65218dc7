import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express, type RequestHandler } from 'express';
import { openLogFile } from './log-file.js';
import pino, { type Logger } from 'pino';
import type { Clock, ScheduledJob } from '../clock/index.js';
import type { AccessService } from './auth/access.js';
import type { Authenticator } from './auth/authenticator.js';
import { AuthModule } from './auth-module.js';
import { authenticate } from './http/auth-middleware.js';
import type { CorridorCatalogue } from './corridors/catalogue.js';
import { CorridorsModule } from './corridors-module.js';
import { resolveServiceConfig, type ResolvedServiceConfig, type ServiceConfig } from './config.js';
import { ApiRouter } from './http/api-router.js';
import { errorDocsPage } from './http/docs-page.js';
import {
  answerClientError,
  ErrorFormatRoutes,
  errorHandler,
  notFoundHandler,
  unroutedRequestHandler,
  type ErrorFormat,
} from './http/error-handler.js';
import { HealthProbe } from './http/health.js';
import { idempotency } from './http/idempotency.js';
import { OpenApiRegistry } from './api/openapi.js';
import { mountPlatformRoutes } from './http/platform-routes.js';
import { CredentialRateLimiter, RateLimitBuckets, rateLimit } from './http/rate-limit.js';
import { requestContext } from './http/request-context.js';
import type { RequestGate, RunningContext, ServiceContext, ServiceModule } from './module.js';
import type {} from './http/express-context.js';
import './http/types.js';
import { UpgradeRouter } from './http/upgrade.js';
import { AuctionModule, type AuctionConfig } from './auction/module.js';
import { ComplianceModule } from './compliance/module.js';
import { EvidenceModule } from './evidence/module.js';
import { DashboardModule } from './dashboard/module.js';
import { FaucetModule } from './faucet/module.js';
import { FaultsModule } from './faults/module.js';
import { PriceFeed } from './events/price-feed.js';
import type { RealtimeConfig } from './realtime-config.js';
import { OrdersModule } from './orders/module.js';
import { ReferenceBModule } from './reference-b/module.js';
import { SettlementModule } from './settlement/module.js';
import { platformMigrations } from './store/platform-migrations.js';
import { webauthnMigrations } from './store/webauthn.js';
import { memberMigrations } from './store/members.js';
import { MembersModule } from './members/module.js';
import { DeferredModule } from './deferred/module.js';
import { createRepositories, type PlatformRepositories } from './store/repositories.js';
import { Store } from './store/store.js';
import { WebhooksModule } from './webhooks/module.js';
import { joinInstances } from './cluster/service-instance.js';
import type { ServiceInstance } from './cluster/service-instance.js';
import { clockMigrations } from './cluster/shared-clock.js';
import { SandboxClockModule, type ServiceClockOptions } from './sandbox-clock.js';
import { openSolverStream } from './ws/solver-stream.js';
import { TakerStreamModule } from './ws/taker-stream.js';

/** This process's membership among the instances sharing the store. */
type JoinedInstance = Awaited<ReturnType<typeof joinInstances>>;

export const API_BASE = '/api/v1';
/** Housekeeping (expired idempotency records and sign-in challenges) runs once per clock hour. */
const SWEEP_INTERVAL_MS = 3_600_000;

/**
 * The service's own modules, fresh per service instance (modules hold state), in dependency order. Each brings
 * its migrations, routes, WebSocket endpoints and jobs; modules that need another get it here, explicitly.
 */
function createBuiltinModules(
  realtime: RealtimeConfig,
  auctionConfig?: AuctionConfig,
  settlementConfig: Pick<ServiceConfig, 'settlement' | 'compliance' | 'faucet' | 'deferred' | 'devnet'> = {},
): ServiceModule[] {
  const evidence = new EvidenceModule();
  // Live solver quotes go in (the auction publishes), `prices:` topics of the taker stream come out.
  const prices = new PriceFeed();
  const webhooks = new WebhooksModule({ evidence, profile: realtime.webhookProfile, deliveryTimeoutMs: realtime.webhookTimeoutMs });
  const takerStream = new TakerStreamModule({ evidence, prices, settings: realtime.takerStream });
  // RFQs, quotes, solvers and the solver stream; orders read `auction.quoteBook`, settlement uses `auction.notifier`.
  const auction = new AuctionModule({ evidence, prices, config: auctionConfig, openSolverStream });
  const compliance = new ComplianceModule({ evidence, settings: settlementConfig.compliance });
  // Watchers and relayers; orders attach to it and it drives them from the chains' facts.
  const settlement = new SettlementModule({ evidence, settings: settlementConfig.settlement });
  const orders = new OrdersModule({ evidence, compliance, settlement, quoteBook: () => auction.quoteBook, notifier: auction.notifier });
  auction.useNonceSource(orders.nonces);
  // Reference B adapts the modules above; it is set up before the auction so that its route for rfq_ ids on the
  // shared path GET /quotes/{id} is mounted ahead of Reference A's quote detail.
  const referenceB = new ReferenceBModule({ evidence, auction, orders, settlement, compliance });
  return [
    evidence,
    webhooks,
    takerStream,
    referenceB,
    auction,
    compliance,
    settlement,
    orders,
    new MembersModule({ evidence }),
    new DeferredModule({ evidence, settlement, orders, auction, settings: settlementConfig.deferred }),
    new FaucetModule(settlementConfig.faucet),
    new FaultsModule({ evidence, settlement, orders, auction, devnet: settlementConfig.devnet }),
    new DashboardModule(),
  ];
}

export interface Service {
  app: Express;
  server: Server;
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** `ws://127.0.0.1:<port>/api/v1/ws` */
  wsUrl: string;
  clock: Clock;
  store: Store;
  config: ResolvedServiceConfig;
  repos: PlatformRepositories;
  access: AccessService;
  corridors: CorridorCatalogue;
  openapi: OpenApiRegistry;
  logger: Logger;
  /** This process among the instances sharing the store. */
  instance: ServiceInstance;
  /** Every module, built-in first; `module(name)` finds one (tests and the sandbox reach domain services so). */
  modules: readonly ServiceModule[];
  module<T extends ServiceModule>(name: string): T;
  /** Creates a workspace and its first API key (what `sandbox up` does). */
  bootstrapWorkspace(name: string): { workspaceId: string; apiKey: string };
  /** Stops modules, closes connections and the store. Safe to call twice. */
  stop(): Promise<void>;
}

/** How long a stopping service waits for its log file to take the lines still buffered for it. */
const LOG_CLOSE_WAIT_MS = 5_000;

async function untilOrAfter(work: Promise<void> | undefined, ms: number): Promise<void> {
  if (work === undefined) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** The service's logger, and how to release the log file it opened (a logger passed in is not ours to close). */
function createLogger(option: ServiceConfig['logger']): { logger: Logger; close(): Promise<void> | undefined } {
  if (option !== undefined && 'child' in option && typeof option.child === 'function') {
    return { logger: option as Logger, close: () => undefined };
  }
  const settings = (option ?? {}) as { level?: string; file?: string; maxBytes?: number };
  const level = settings.level ?? 'info';
  const options = { level, base: { service: 'settlement' } };
  if (settings.file === undefined) return { logger: pino(options), close: () => undefined };
  // A line logged after stop is dropped. Work of a stopped service can still end later (a chain read in flight, an
  // idle connection's error) and log it, and writing to the ended file throws "SonicBoom destroyed" from wherever
  // that line was logged: from a promise's catch it took the whole detached sandbox down (a soak run, while a
  // fault switch restarted the service).
  const file = openLogFile(settings.file, settings.maxBytes === undefined ? {} : { maxBytes: settings.maxBytes });
  return { logger: pino(options, { write: (line: string) => file.write(line) }), close: () => file.close() };
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * The composition root: opens the store, builds the platform modules (corridors, auth, the sandbox clock) and the
 * domain modules, mounts them in order, and listens (127.0.0.1, port 0 unless configured).
 */
export async function createService(input: ServiceConfig): Promise<Service> {
  const config = resolveServiceConfig(input);
  const { logger, close: closeLog } = createLogger(input.logger);
  const clocks = new SandboxClockModule({ ...clockOptions(input), environment: config.environment, logger });
  const clock = clocks.clock;
  const domain = domainModules(input);
  const store = openStore(config, domain);
  const repos = createRepositories(store);
  let stopService: (() => Promise<void>) | undefined;
  const instance = await joinStore(store, input, logger, () => stopService);
  const auth = new AuthModule({ store, repos, clock, config });
  const corridors = new CorridorsModule(config);
  // The platform's modules first: their routes come before the domains' (the OpenAPI document keeps that order).
  const modules: ServiceModule[] = [corridors, auth, clocks, ...domain];
  const openapi = new OpenApiRegistry();
  const formats = new ErrorFormatRoutes();
  const upgrades = new UpgradeRouter();
  const gate = new RequestGateSlot();
  const rateLimits = await openRateLimits(store, instance, logger);
  const app = createHttpApp({ config, logger, formats, gate, authenticator: auth.authenticator, rateLimits });
  const routes = routeFactory(
    app,
    openapi,
    formats,
    idempotency({ repository: repos.idempotency, clock, ttlMs: config.idempotencyTtlMs, instanceId: instance.id }),
  );

  let url = '';
  let wsUrl = '';
  mountPlatform(routes(), openapi, store, config, () => url);
  const context: ServiceContext = {
    config,
    clock,
    store,
    repos,
    logger,
    corridors: corridors.catalogue,
    access: auth.access,
    authenticator: auth.authenticator,
    openapi,
    routes,
    upgrades,
    app,
    useRequestGate: (handler) => gate.use(handler),
    instance,
  };
  try {
    for (const module of modules) await module.setup?.(context);
  } catch (error) {
    await instance.close();
    await rateLimits.close();
    store.close();
    throw error;
  }
  app.use(notFoundHandler(formats));
  app.use(errorHandler());

  const { server, port } = await listen(app, upgrades, config);
  url = `http://${hostForUrl(config.host)}:${port}`;
  wsUrl = `ws://${hostForUrl(config.host)}:${port}${API_BASE}/ws`;
  app.locals.publicUrl = config.publicUrl ?? url;

  const lifecycle = new ModuleLifecycle(modules, { ...context, url, wsUrl }, instance, logger, () => new Sweep(clock, repos, logger));
  const stop = async (): Promise<void> => {
    if (!lifecycle.stopping()) return;
    await lifecycle.stopSingletons();
    await clocks.stopAdvances();
    await lifecycle.stopModules();
    clocks.release();
    upgrades.closeAll();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await instance.close();
    await rateLimits.close();
    store.close();
    // The lines logged until now are in the file when stop resolves, unless the disk keeps them more than a few
    // seconds: a stop must not hang on its log.
    await untilOrAfter(closeLog(), LOG_CLOSE_WAIT_MS);
  };
  stopService = stop;
  try {
    await lifecycle.start(stop);
  } catch (error) {
    await stop();
    throw error;
  }
  logger.info({ url, environment: config.environment, chains: config.chains.map((c) => c.name) }, 'service listening');

  return {
    app,
    server,
    url,
    wsUrl,
    clock,
    store,
    config,
    repos,
    access: auth.access,
    corridors: corridors.catalogue,
    openapi,
    logger,
    instance,
    modules,
    module: <T extends ServiceModule>(name: string) => findModule<T>(modules, name),
    bootstrapWorkspace: (name) =>
      store.transaction(() => {
        const workspace = auth.access.createWorkspace(name);
        return { workspaceId: workspace.id, apiKey: auth.access.createApiKey(workspace.id).key };
      }),
    stop,
  };
}

/** Joins the instances sharing the store (alone on SQLite); closes the store when that fails. */
async function joinStore(
  store: Store,
  input: ServiceConfig,
  logger: Logger,
  stopService: () => (() => Promise<void>) | undefined,
): Promise<JoinedInstance> {
  return joinInstances(store, {
    logger,
    leasePollMs: input.leasePollMs,
    // Losing the singleton lease means another instance may be running the singleton work by now: stop ours.
    onLost: (reason) => {
      logger.error({ reason }, 'this instance lost the singleton lease');
      if (input.onSingletonLost !== undefined) input.onSingletonLost(reason);
      else void stopService()?.();
    },
  }).catch((error: unknown) => {
    store.close();
    throw error;
  });
}

/** On Postgres every instance counts in one table of the store's schema, created before the service answers. */
async function openRateLimits(store: Store, instance: JoinedInstance, logger: Logger): Promise<RateLimitBuckets> {
  return RateLimitBuckets.open(store.postgres, logger).catch(async (error: unknown) => {
    await instance.close();
    store.close();
    throw error;
  });
}

/** Health and the OpenAPI document: the platform's own routes, ahead of every module's. */
function mountPlatform(api: ApiRouter, openapi: OpenApiRegistry, store: Store, config: ResolvedServiceConfig, url: () => string): void {
  mountPlatformRoutes(api, openapi, {
    health: new HealthProbe(store, config.chains, { environment: config.environment, version: config.version }),
    document: () =>
      openapi.document(
        {
          title: 'Settlement service',
          version: config.version,
          description: `Cross-chain RFQ stablecoin settlement service (${config.environment}).`,
        },
        // Every path in the document already starts with /api/v1: the server is the origin alone.
        config.publicUrl ?? url(),
      ),
  });
}

function clockOptions(input: ServiceConfig): Pick<ServiceClockOptions, 'clock' | 'chainTime' | 'answerWithinMs'> {
  return { clock: input.clock, chainTime: input.chainTime, answerWithinMs: input.clockAdvanceAnswerMs };
}

function findModule<T extends ServiceModule>(modules: readonly ServiceModule[], name: string): T {
  const found = modules.find((m) => m.name === name);
  if (!found) throw new Error(`the service has no module named ${name}`);
  return found as T;
}

/** The domain modules: the built-in ones, a module passed in replacing the built-in one of its name (tests serve a fixture dashboard so). */
function domainModules(input: ServiceConfig): ServiceModule[] {
  const extra = input.modules ?? [];
  const overridden = new Set(extra.map((module) => module.name));
  return [...createBuiltinModules(input, input.auction, input).filter((module) => !overridden.has(module.name)), ...extra];
}

function openStore(config: ResolvedServiceConfig, modules: readonly ServiceModule[]): Store {
  return Store.open({
    path: config.storePath,
    databaseUrl: config.databaseUrl,
    databaseSchema: config.databaseSchema,
    migrations: [
      platformMigrations,
      webauthnMigrations,
      memberMigrations,
      clockMigrations,
      ...modules.flatMap((module) => (module.migrations === undefined ? [] : [module.migrations])),
    ],
  });
}

/** The sandbox's service faults (faults module) stand in front of authentication and every route, once set. */
class RequestGateSlot {
  private handler: RequestGate | undefined;
  readonly middleware: RequestHandler = (req, res, next) => (this.handler === undefined ? next() : this.handler(req, res, next));
  use(handler: RequestGate): void {
    this.handler = handler;
  }
}

/** The express app and the middleware every request passes, in order, before the routes. */
function createHttpApp(parts: {
  config: ResolvedServiceConfig;
  logger: Logger;
  formats: ErrorFormatRoutes;
  gate: RequestGateSlot;
  authenticator: Authenticator;
  rateLimits: RateLimitBuckets;
}): Express {
  const { config, formats, rateLimits } = parts;
  const app = express();
  app.disable('x-powered-by');
  // Replays must be byte-identical and fresh; conditional GETs would answer 304 instead.
  app.set('etag', false);
  app.locals.publicUrl = config.publicUrl;
  app.use(formats.middleware());
  app.use(requestContext(parts.logger));
  app.use(parts.gate.middleware);
  app.use(authenticate(parts.authenticator));
  app.use(
    rateLimit({
      credential: new CredentialRateLimiter(config.rateLimit.credential, 'credential', rateLimits),
      anonymous: new CredentialRateLimiter(config.rateLimit.anonymous, 'anonymous', rateLimits),
    }),
  );
  app.use(
    express.json({
      limit: config.bodyLimitBytes,
      type: ['application/json', 'application/*+json'],
      verify: (req, _res, buffer) => {
        (req as express.Request).rawBody = buffer;
      },
    }),
  );
  app.get('/docs/errors', errorDocsPage);
  return app;
}

/** `routes()` of the module context: a documented router mounted on the app, in the order of the calls. */
function routeFactory(
  app: Express,
  openapi: OpenApiRegistry,
  formats: ErrorFormatRoutes,
  idempotent: RequestHandler,
): (options?: { base?: string; errorFormat?: ErrorFormat }) => ApiRouter {
  return (options = {}) => {
    const router = new ApiRouter({
      base: options.base ?? API_BASE,
      openapi,
      idempotency: idempotent,
      formats,
      ...(options.errorFormat === undefined ? {} : { errorFormat: options.errorFormat }),
    });
    app.use(router.base, router.router);
    return router;
  };
}

async function listen(app: Express, upgrades: UpgradeRouter, config: ResolvedServiceConfig): Promise<{ server: Server; port: number }> {
  // Express answers with its own HTML page when it cannot route at all (an unparsable target); ours answers Format A.
  const handle = app as unknown as (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;
  const server = createServer((req, res) => handle(req, res, unroutedRequestHandler(req, res)));
  server.on('clientError', answerClientError);
  upgrades.attach(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return { server, port: (server.address() as AddressInfo).port };
}

/** Housekeeping (expired idempotency records and sign-in challenges), once per clock hour. */
class Sweep {
  private job: ScheduledJob | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly repos: PlatformRepositories,
    private readonly logger: Logger,
  ) {}

  schedule(): void {
    this.job = this.clock.schedule(this.clock.now() + SWEEP_INTERVAL_MS, () => this.run(), { name: 'platform.sweep', coalesce: true });
  }

  cancel(): void {
    if (this.job !== undefined) this.clock.cancel(this.job);
  }

  private run(): void {
    const now = this.clock.now();
    const idempotent = this.repos.idempotency.deleteExpired(now);
    const challenges = this.repos.challenges.deleteExpired(now);
    if (idempotent + challenges > 0) this.logger.debug({ idempotent, challenges }, 'expired records removed');
    this.schedule();
  }
}

/**
 * Starts the modules on every instance, then their singleton work once this instance holds the lease (at once when
 * it is alone), and stops what started in reverse order.
 */
class ModuleLifecycle {
  private readonly started: ServiceModule[] = [];
  private stopped = false;
  private singletons: Promise<void> | undefined;
  private sweep: Sweep | undefined;

  constructor(
    private readonly modules: readonly ServiceModule[],
    private readonly running: RunningContext,
    private readonly instance: ServiceInstance,
    private readonly logger: Logger,
    private readonly newSweep: () => Sweep,
  ) {}

  async start(stop: () => Promise<void>): Promise<void> {
    for (const module of this.modules) {
      this.started.push(module);
      await module.start?.(this.running);
    }
    if (this.instance.singleton) {
      this.singletons = this.startSingletons();
      await this.singletons;
    } else {
      this.instance.onSingleton(() => {
        this.singletons = this.startSingletons().catch((error: unknown) => {
          this.logger.error({ err: error }, 'the singleton work failed to start');
          void stop();
        });
      });
    }
  }

  /** False when stopping began already (stop is safe to call twice). */
  stopping(): boolean {
    if (this.stopped) return false;
    this.stopped = true;
    return true;
  }

  async stopSingletons(): Promise<void> {
    await this.singletons?.catch(() => undefined);
  }

  async stopModules(): Promise<void> {
    for (const module of [...this.started].reverse()) {
      try {
        await module.stop?.();
      } catch (error) {
        this.logger.error({ err: error, module: module.name }, 'module failed to stop');
      }
    }
    this.sweep?.cancel();
  }

  private async startSingletons(): Promise<void> {
    for (const module of this.modules) {
      if (this.stopped) return;
      await module.startSingleton?.(this.running);
    }
    if (this.stopped) return;
    this.sweep = this.newSweep();
    this.sweep.schedule();
  }
}
