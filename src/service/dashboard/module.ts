import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AccessService } from '../auth/access.js';
import type { ServiceContext, ServiceModule } from '../module.js';
// The dashboard mounts on the raw express app, which the http adapter adds to the module context.
import type {} from '../http/express-context.js';
import { defaultAssetsDir } from './assets.js';
import { serveAsset, serveIndex } from './page.js';
import { mountSandboxInfoRoute } from './sandbox-info.js';

export interface DashboardOptions {
  /** Folder with the built page (index.html, app.js, app.css). Default `<package>/dist/dashboard`. */
  assetsDir?: string;
  /**
   * Keys the page may be given for loopback visitors, best first. Default: the keys `sandbox up` wrote to
   * `access.json` beside the store file (`<state>/service/access.json`).
   */
  sandboxKeys?: () => readonly string[];
}

/** `access.json` lives beside `service.sqlite` in the sandbox's service folder (see sandbox-component.ts). */
function keysBesideStore(storePath: string): () => readonly string[] {
  if (storePath === ':memory:' || storePath === '') return () => [];
  const file = join(dirname(storePath), 'access.json');
  return () => {
    try {
      const saved = JSON.parse(readFileSync(file, 'utf8')) as { apiKeys?: unknown };
      return Array.isArray(saved.apiKeys) ? saved.apiKeys.filter((key): key is string => typeof key === 'string') : [];
    } catch {
      return [];
    }
  };
}

/** The first candidate the service still accepts (a rotated key past its grace is skipped). */
function firstValidKey(access: AccessService, candidates: readonly string[]): { apiKey: string; workspaceId: string } | undefined {
  for (const apiKey of candidates) {
    try {
      return { apiKey, workspaceId: access.verifyApiKey(apiKey).workspaceId };
    } catch {
      // expired, revoked or of the other environment: try the next one
    }
  }
  return undefined;
}

/**
 * The live dashboard, sandbox only: serves the built page at `/` of the API port and `GET
 * /api/v1/sandbox/info` (chains and clock). The page itself is a client like any other: it reads the public
 * API and WebSocket with the sandbox key. In production the module adds nothing.
 */
export class DashboardModule implements ServiceModule {
  readonly name = 'dashboard';

  constructor(private readonly options: DashboardOptions = {}) {}

  setup(context: ServiceContext): void {
    if (context.config.environment !== 'sandbox') return;
    // Tolerate being listed twice (built in and passed by a caller): the first one serves.
    if (context.app.locals.dashboardMounted === true) return;
    context.app.locals.dashboardMounted = true;

    const { config, access } = context;
    mountSandboxInfoRoute(context.routes(), context.openapi, {
      environment: config.environment,
      version: config.version,
      clock: context.clock,
      chains: config.chains,
    });

    const candidates = this.options.sandboxKeys ?? keysBesideStore(config.storePath);
    const deps = {
      assetsDir: this.options.assetsDir ?? defaultAssetsDir(),
      chains: config.chains,
      sandboxKey: () => firstValidKey(access, candidates()),
    };
    context.app.get('/', serveIndex(deps));
    context.app.get('/dashboard/:file', serveAsset(deps));
  }
}
