import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import express, { type Express } from 'express';
import pino, { type Logger } from 'pino';
import { ChainTimeSync, RealClock, TestClock, type Clock, type ScheduledJob } from '../clock/index.js';
import { AccessService } from './auth/access.js';
import { Authenticator } from './auth/authenticator.js';
import { authenticate } from './http/auth-middleware.js';
import { MfaService } from './auth/mfa.js';
import { mountAuthRoutes, mountSandboxKeyRoutes } from './auth/routes.js';
import { defaultRelyingParty, type RelyingParty, WebAuthnService } from './auth/webauthn.js';
import { mountWebAuthnRoutes } from './auth/webauthn-routes.js';
import { SessionTokens } from './auth/session-tokens.js';
import { WalletSignIn } from './auth/wallet-sign-in.js';
import { resolveServiceConfig, type ResolvedServiceConfig, type ServiceConfig } from './config.js';
import { CorridorCatalogue } from './corridors/catalogue.js';
import { mountCorridorRoutes } from './corridors/routes.js';
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
import { mountSandboxClockRoutes } from './http/sandbox-clock-routes.js';
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
import { clockMigrations, SharedClock } from './cluster/shared-clock.js';
import { openSolverStream } from './ws/solver-stream.js';
import { TakerStreamModule } from './ws/taker-stream.js';

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

/** The service's logger, and how to release the log file it opened (a logger passed in is not ours to close). */
function createLogger(option: ServiceConfig['logger']): { logger: Logger; close(): void } {
  if (option !== undefined && 'child' in option && typeof option.child === 'function') {
    return { logger: option as Logger, close: () => undefined };
  }
  const settings = (option ?? {}) as { level?: string; file?: string };
  const level = settings.level ?? 'info';
  const options = { level, base: { service: 'settlement' } };
  if (settings.file === undefined) return { logger: pino(options), close: () => undefined };
  mkdirSync(dirname(settings.file), { recursive: true });
  const destination = pino.destination({ dest: settings.file, sync: false });
  return { logger: pino(options, destination), close: () => destination.end() };
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * The composition root: opens the store, builds the platform services, mounts every route and module,
 * and listens (127.0.0.1, port 0 unless configured).
 */
export async function createService(input: ServiceConfig): Promise<Service> {
  const config = resolveServiceConfig(input);
  const { logger, close: closeLog } = createLogger(input.logger);
  const ownClock = input.clock === undefined;
  const clock: Clock = input.clock ?? (config.environment === 'sandbox' ? new TestClock({ ticking: true }) : new RealClock());
  clock.onJobError((error, job) => logger.error({ err: error, job: job.name }, 'scheduled job failed'));
  // With several instances only the one walking an advance moves the chains: the sync sees them through the shared clock.
  const sharedClock = clock instanceof TestClock ? new SharedClock(clock, input.chainTime) : undefined;
  const chainSync = sharedClock?.chainTime !== undefined ? new ChainTimeSync(sharedClock.clock, sharedClock.chainTime) : undefined;

  // A module passed in replaces the built-in one of the same name (tests serve a fixture dashboard so).
  const extraModules = input.modules ?? [];
  const overridden = new Set(extraModules.map((module) => module.name));
  const modules = [...createBuiltinModules(input, input.auction, input).filter((module) => !overridden.has(module.name)), ...extraModules];
  const store = Store.open({
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
  const repos = createRepositories(store);
  // Losing the singleton lease means another instance may be running the singleton work by now: stop ours.
  let stopService: (() => Promise<void>) | undefined;
  const instance = await joinInstances(store, {
    logger,
    leasePollMs: input.leasePollMs,
    onLost: (reason) => {
      logger.error({ reason }, 'this instance lost the singleton lease');
      if (input.onSingletonLost !== undefined) input.onSingletonLost(reason);
      else void stopService?.();
    },
  }).catch((error: unknown) => {
    store.close();
    throw error;
  });

  const access = new AccessService(store, repos, clock, {
    environment: config.environment,
    rotationGraceMs: config.keyRotationGraceMs,
  });
  const secret =
    config.auth.jwtSecret !== undefined
      ? Buffer.from(config.auth.jwtSecret, 'utf8')
      : repos.secrets.getOrCreate('jwt-signing-key', () => randomBytes(32), clock.now());
  const tokens = new SessionTokens(secret, clock);
  const authenticator = new Authenticator(access, tokens, repos, clock);
  const mfa = new MfaService(store, repos, clock, 'Settlement Sandbox');
  const corridors = new CorridorCatalogue(config.chains, config.corridors);
  const health = new HealthProbe(store, config.chains, { environment: config.environment, version: config.version });
  const openapi = new OpenApiRegistry();
  const formats = new ErrorFormatRoutes();
  const upgrades = new UpgradeRouter();

  const app = express();
  app.disable('x-powered-by');
  // Replays must be byte-identical and fresh; conditional GETs would answer 304 instead.
  app.set('etag', false);
  app.locals.publicUrl = config.publicUrl;

  app.use(formats.middleware());
  app.use(requestContext(logger));
  // The sandbox's service faults (faults module) stand in front of authentication and every route.
  let requestGate: RequestGate | undefined;
  app.use((req, res, next) => (requestGate === undefined ? next() : requestGate(req, res, next)));
  app.use(authenticate(authenticator));
  // On Postgres every instance counts in one table of the store's schema, created before the service answers.
  const rateLimits = await RateLimitBuckets.open(store.postgres, logger).catch(async (error: unknown) => {
    await instance.close();
    store.close();
    throw error;
  });
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

  const idempotencyMiddleware = idempotency({
    repository: repos.idempotency,
    clock,
    ttlMs: config.idempotencyTtlMs,
    instanceId: instance.id,
  });
  const routes = (options: { base?: string; errorFormat?: ErrorFormat } = {}): ApiRouter => {
    const router = new ApiRouter({
      base: options.base ?? API_BASE,
      openapi,
      idempotency: idempotencyMiddleware,
      formats,
      ...(options.errorFormat === undefined ? {} : { errorFormat: options.errorFormat }),
    });
    app.use(router.base, router.router);
    return router;
  };

  let url = '';
  let wsUrl = '';
  let signInOrigin = { domain: 'localhost', uri: 'http://localhost' };
  let relyingParty: RelyingParty = defaultRelyingParty(config.auth.webauthn, 'http://localhost', 0);
  const api = routes();
  mountPlatformRoutes(api, openapi, {
    health,
    document: () =>
      openapi.document(
        {
          title: 'Settlement service',
          version: config.version,
          description: `Cross-chain RFQ stablecoin settlement service (${config.environment}).`,
        },
        // Every path in the document already starts with /api/v1: the server is the origin alone.
        config.publicUrl ?? url,
      ),
  });
  mountCorridorRoutes(api, openapi, corridors);
  mountAuthRoutes(api, openapi, {
    signIn: new WalletSignIn(store, repos, clock, tokens, {
      // Sign-in messages name the service's own origin, known once the server listens.
      origin: () => signInOrigin,
      challengeTtlMs: config.auth.challengeTtlMs,
      sessionTtlMs: config.auth.sessionTtlMs,
      statement: 'Sign in to the settlement service dashboard.',
    }),
    mfa,
    repos,
    now: () => clock.now(),
    defaultChainId: config.chains[0]?.chainId ?? 1,
  });
  mountWebAuthnRoutes(api, openapi, { webauthn: new WebAuthnService(store, repos, clock, mfa, () => relyingParty), repos });
  // One clock across the instances of the store: this one joins at the shared time before any module schedules.
  const advances =
    config.environment === 'sandbox' && sharedClock !== undefined
      ? await sharedClock.join(store, instance, logger).catch(async (error: unknown) => {
          await instance.close();
          store.close();
          throw error;
        })
      : undefined;
  if (config.environment === 'sandbox') {
    mountSandboxKeyRoutes(api, openapi, access);
    mountSandboxClockRoutes(api, openapi, {
      clock,
      chainTime: input.chainTime,
      advances,
      ...(input.clockAdvanceAnswerMs === undefined ? {} : { answerWithinMs: input.clockAdvanceAnswerMs }),
    });
  }

  const context: ServiceContext = {
    config,
    clock,
    store,
    repos,
    logger,
    corridors,
    access,
    authenticator,
    openapi,
    routes,
    upgrades,
    app,
    useRequestGate: (gate) => {
      requestGate = gate;
    },
    instance,
  };
  for (const module of modules) await module.setup?.(context);

  app.use(notFoundHandler(formats));
  app.use(errorHandler());

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
  const { port } = server.address() as AddressInfo;
  url = `http://${hostForUrl(config.host)}:${port}`;
  wsUrl = `ws://${hostForUrl(config.host)}:${port}${API_BASE}/ws`;
  const publicUrl = config.publicUrl ?? url;
  app.locals.publicUrl = publicUrl;
  signInOrigin = { domain: new URL(publicUrl).host, uri: publicUrl };
  relyingParty = defaultRelyingParty(config.auth.webauthn, publicUrl, port);

  let sweepJob: ScheduledJob | undefined;
  const sweep = () => {
    const now = clock.now();
    const idempotent = repos.idempotency.deleteExpired(now);
    const challenges = repos.challenges.deleteExpired(now);
    if (idempotent + challenges > 0) logger.debug({ idempotent, challenges }, 'expired records removed');
    sweepJob = clock.schedule(now + SWEEP_INTERVAL_MS, sweep, { name: 'platform.sweep', coalesce: true });
  };

  const running: RunningContext = { ...context, url, wsUrl };
  const started: ServiceModule[] = [];
  let stopped = false;
  // The singleton work, started once this instance holds the lease (at once when it is alone).
  let singletons: Promise<void> | undefined;
  const startSingletons = async (): Promise<void> => {
    for (const module of modules) {
      if (stopped) return;
      await module.startSingleton?.(running);
    }
    if (!stopped) sweepJob = clock.schedule(clock.now() + SWEEP_INTERVAL_MS, sweep, { name: 'platform.sweep', coalesce: true });
  };
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await singletons?.catch(() => undefined);
    // A clock advance still walking (it answered 202) stops before the modules whose jobs it runs.
    await advances?.stopAll();
    for (const module of [...started].reverse()) {
      try {
        await module.stop?.();
      } catch (error) {
        logger.error({ err: error, module: module.name }, 'module failed to stop');
      }
    }
    if (sweepJob !== undefined) clock.cancel(sweepJob);
    chainSync?.detach();
    if (ownClock) clock.stop();
    upgrades.closeAll();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await instance.close();
    await rateLimits.close();
    store.close();
    closeLog();
  };
  stopService = stop;
  try {
    for (const module of modules) {
      started.push(module);
      await module.start?.(running);
    }
    if (instance.singleton) {
      singletons = startSingletons();
      await singletons;
    } else {
      instance.onSingleton(() => {
        singletons = startSingletons().catch((error: unknown) => {
          logger.error({ err: error }, 'the singleton work failed to start');
          void stop();
        });
      });
    }
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
    access,
    corridors,
    openapi,
    logger,
    instance,
    modules,
    module<T extends ServiceModule>(name: string): T {
      const found = modules.find((m) => m.name === name);
      if (!found) throw new Error(`the service has no module named ${name}`);
      return found as T;
    },
    bootstrapWorkspace(name: string) {
      return store.transaction(() => {
        const workspace = access.createWorkspace(name);
        return { workspaceId: workspace.id, apiKey: access.createApiKey(workspace.id).key };
      });
    },
    stop,
  };
}
