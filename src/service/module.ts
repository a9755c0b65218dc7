import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { Clock } from '../clock/index.js';
import type { AccessService } from './auth/access.js';
import type { Authenticator } from './auth/authenticator.js';
import type { ResolvedServiceConfig } from './resolved-config.js';
import type { CorridorCatalogue } from './corridors/catalogue.js';
import type { MigrationSet } from './store/migrations.js';
import type { PlatformRepositories } from './store/repositories.js';
import type { Store } from './store/store.js';
import type { RouteTable } from './api/route.js';
import type { ErrorFormat } from './errors/error-format.js';
import type { OpenApiRegistry } from './api/openapi.js';
import type { ServiceInstance } from './cluster/service-instance.js';

/** What the composition root hands each module while the service is assembled. */
export interface ServiceContext {
  config: ResolvedServiceConfig;
  clock: Clock;
  store: Store;
  repos: PlatformRepositories;
  logger: Logger;
  corridors: CorridorCatalogue;
  access: AccessService;
  /** Resolves API keys and session tokens; WebSocket handshakes use it too. */
  authenticator: Authenticator;
  openapi: OpenApiRegistry;
  /** A documented router mounted at `base` (default `/api/v1`); `errorFormat: 'B'` for Reference B routes. */
  routes(options?: { base?: string; errorFormat?: ErrorFormat }): RouteTable;
  /** WebSocket endpoints on the same HTTP server (the http adapter's UpgradeRouter). */
  upgrades: UpgradePaths;
  /** Runs `gate` on every request before authentication and every route (the sandbox's service faults). */
  useRequestGate(gate: RequestGate): void;
  /** This process among the instances sharing the store: its id, the bus to the others, whether it runs singletons. */
  instance: ServiceInstance;
}

// The kernel names the HTTP seams with node's own types so that it stays express-free: the http adapter
// (http/upgrade.ts, http/express-context.ts) implements them, and adds the raw express app to this context.

/** Takes over one upgraded connection (typically a `ws` WebSocketServer in `noServer` mode). */
export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** Where a module registers a WebSocket path on the service's one HTTP server. */
export interface UpgradePaths {
  add(path: string, handler: UpgradeHandler): void;
}

/** What a request gate reads of a request (express's request has both). */
export interface GatedRequest {
  method: string;
  path: string;
}

/** Runs before every route: `next()` lets the request through, `next(error)` answers with that error. */
export type RequestGate = (req: GatedRequest, res: unknown, next: (error?: unknown) => void) => void;

/** Known once the server listens. */
export interface RunningContext extends ServiceContext {
  url: string;
  wsUrl: string;
}

/**
 * A slice of the service (orders, webhooks, solvers…): its tables, routes, WebSocket endpoints and
 * background jobs. Domain code stays express-free; the module's `setup` adapts it to HTTP.
 */
export interface ServiceModule {
  name: string;
  /** This module's migrations, `module` = a short lowercase name; append only. */
  migrations?: MigrationSet;
  /** Mount routes and upgrade handlers; runs before the server listens. */
  setup?(context: ServiceContext): void | Promise<void>;
  /** Runs after listen on every instance: what serving requests needs. */
  start?(context: RunningContext): void | Promise<void>;
  /**
   * Runs on the one instance that holds the singleton work, when it gets it (at once for a lone instance, later for
   * one that takes over from a dead holder): re-schedule durable jobs from the store, connect to chains, start
   * watchers and relayers, dispatch webhooks. Runs after every module's `start`, in module order.
   */
  startSingleton?(context: RunningContext): void | Promise<void>;
  /** Runs on stop, in reverse module order, before the store closes. */
  stop?(): void | Promise<void>;
}
