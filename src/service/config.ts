import type { Logger } from 'pino';
import { z } from 'zod';
import type { ChainTime, Clock } from '../clock/index.js';
import type { ChainInfo, Environment } from '../contracts/deployment.js';
import type { ServiceModule } from './module.js';
import { ConfigError } from '../contracts/errors/config-error.js';
import type { RateLimitSettings, ResolvedServiceConfig } from './resolved-config.js';
import { isPostgresUrl } from './store/sql.js';

export type { ChainTime } from '../clock/index.js';
export { ConfigError } from '../contracts/errors/config-error.js';
export type { ResolvedServiceConfig } from './resolved-config.js';

const HOUR = 3_600_000;

/** What `createService` needs. Everything but `environment` and `chains` has a default. */
export interface ServiceConfig {
  environment: Environment;
  /** The chains the service settles on (from the devnet's sandbox.json, or a production list). */
  chains: ChainInfo[];
  /** SQLite file path, or `:memory:` (default; tests). */
  storePath?: string;
  /** `postgres://…`: keep the store in this Postgres database instead of the SQLite file (shared sandboxes). */
  databaseUrl?: string;
  /**
   * With `databaseUrl`: keep the tables in this schema (created when missing) instead of the connection's default.
   * Several sandboxes can share one database so; instances of one sandbox share a schema.
   */
  databaseSchema?: string;
  /**
   * Several instances on one Postgres store: how often an instance without the singleton work tries to take it
   * (default 1,000 ms).
   */
  leasePollMs?: number;
  /**
   * Called when this instance loses the singleton lease it held (its Postgres session ended). Default: the service
   * stops. A cluster worker exits instead, and its primary starts a new one.
   */
  onSingletonLost?: (reason: string) => void;
  /** Loopback by default. */
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Base URL clients use, when it differs from the listening address (a proxy); also the SIWE domain. */
  publicUrl?: string;
  /** Default: a ticking TestClock in the sandbox, the RealClock in production. */
  clock?: Clock;
  /** Moves every chain's time when the test clock advances (the devnet provides it). */
  chainTime?: ChainTime;
  /**
   * The devnet's own controls, when the service runs next to the sandbox's chains: kill one chain's node and bring
   * it back from its saved state (the `chain.restart` fault). Absent elsewhere, and the fault is refused.
   */
  devnet?: {
    restartChain?(chainId: number, options?: { downMs?: number }): Promise<void>;
    /**
     * Stop this service as a crash would and start it again on the same store, port and keys `downMs` later (the
     * `service.restart` fault): only the sandbox that runs the service itself offers it.
     */
    restartService?(options: { downMs: number }): void;
  };
  /** How long `POST /sandbox/clock/advance` waits for the advance before it answers 202 with its id (default 10 s). */
  clockAdvanceAnswerMs?: number;
  rateLimit?: Partial<RateLimitSettings> & { anonymous?: Partial<RateLimitSettings> };
  /** Largest JSON body accepted, in bytes (default 100 KiB); larger → 413. */
  bodyLimitBytes?: number;
  /** Idempotent responses are replayed this long (default 24 h, by the service clock). */
  idempotencyTtlMs?: number;
  /** A rotated API key keeps working this long (default 24 h, by the service clock). */
  keyRotationGraceMs?: number;
  corridors?: {
    /** Default 10,000 (USD; 1 stable token = 1 USD). */
    minNotionalUsd?: number;
    /** Default 1,000,000. */
    maxNotionalUsd?: number;
    /** Contract name in `ChainInfo.contracts` whose address is the corridor's oracle; default `InputOracle`. */
    oracleContract?: string;
    /** Live count of solvers registered for a corridor; the auction supplies it (default 0). */
    solverCount?: (corridorId: string) => number;
  };
  auth?: {
    /** Dashboard session lifetime (default 8 h). */
    sessionTtlMs?: number;
    /** How long a sign-in message can be signed (default 5 min). */
    challengeTtlMs?: number;
    /** JWT signing secret (≥ 32 bytes); default: generated once and kept in the store. */
    jwtSecret?: string;
    /**
     * FIDO2 / WebAuthn relying party. `rpId` (a domain, never an IP; default: the public URL's host, or `localhost`
     * when that is an IP) and the page `origins` allowed to run ceremonies (default: the public URL when its host is a
     * domain, and `http://localhost:<port>`).
     */
    webauthn?: { rpId?: string; origins?: string[] };
  };
  /** A pino logger, or options for the default one (level `info`, stdout or `file`). */
  /** A logger, or where to log: `file` is rotated at `maxBytes` (default 64 MiB, `SANDBOX_LOG_MAX_MB`; see log-file.ts). */
  logger?: Logger | { level?: string; file?: string; maxBytes?: number };
  /** Extra modules (routes, migrations, jobs) after the built-in ones; tests use it too. */
  modules?: ServiceModule[];
}

const positive = z.number().int().positive();
const rate = z.object({ perSecond: positive, burst: positive }).refine((r) => r.burst >= r.perSecond, {
  message: 'burst must be at least perSecond',
});

/** Applies defaults and rejects impossible settings with a message naming the field. */
export function resolveServiceConfig(config: ServiceConfig): ResolvedServiceConfig {
  if (config.environment !== 'sandbox' && config.environment !== 'production') {
    throw new ConfigError(`environment must be "sandbox" or "production", got ${JSON.stringify(config.environment)}`);
  }
  const chainIds = new Set<number>();
  const names = new Set<string>();
  for (const chain of config.chains) {
    if (chainIds.has(chain.chainId)) throw new ConfigError(`chains: chain id ${chain.chainId} appears twice`);
    if (names.has(chain.name)) throw new ConfigError(`chains: chain name ${chain.name} appears twice`);
    if (!/^[a-z0-9-]+$/.test(chain.name)) throw new ConfigError(`chains: name "${chain.name}" must be lowercase letters, digits, -`);
    chainIds.add(chain.chainId);
    names.add(chain.name);
  }
  const credential = { perSecond: 100, burst: 1_000, ...pick(config.rateLimit) };
  const anonymous = { ...credential, ...pick(config.rateLimit?.anonymous) };
  for (const [name, settings] of [
    ['rateLimit', credential],
    ['rateLimit.anonymous', anonymous],
  ] as const) {
    const checked = rate.safeParse(settings);
    if (!checked.success) throw new ConfigError(`${name}: ${checked.error.issues[0]?.message}`);
  }
  if (config.databaseUrl !== undefined && !isPostgresUrl(config.databaseUrl)) {
    throw new ConfigError('databaseUrl must be a postgres:// or postgresql:// URL');
  }
  if (config.databaseSchema !== undefined) {
    if (config.databaseUrl === undefined) throw new ConfigError('databaseSchema needs databaseUrl');
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(config.databaseSchema)) {
      throw new ConfigError(`databaseSchema must be a lowercase SQL identifier (a-z, 0-9, _), got ${config.databaseSchema}`);
    }
  }
  const port = config.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new ConfigError(`port must be 0..65535, got ${port}`);
  const numbers = {
    bodyLimitBytes: config.bodyLimitBytes ?? 100 * 1024,
    idempotencyTtlMs: config.idempotencyTtlMs ?? 24 * HOUR,
    keyRotationGraceMs: config.keyRotationGraceMs ?? 24 * HOUR,
    sessionTtlMs: config.auth?.sessionTtlMs ?? 8 * HOUR,
    challengeTtlMs: config.auth?.challengeTtlMs ?? 5 * 60_000,
    minNotionalUsd: config.corridors?.minNotionalUsd ?? 10_000,
    maxNotionalUsd: config.corridors?.maxNotionalUsd ?? 1_000_000,
  };
  for (const [name, value] of Object.entries(numbers)) {
    if (!positive.safeParse(value).success) throw new ConfigError(`${name} must be a positive integer, got ${value}`);
  }
  if (numbers.maxNotionalUsd < numbers.minNotionalUsd) throw new ConfigError('corridors: maxNotionalUsd < minNotionalUsd');
  if (config.auth?.jwtSecret !== undefined && Buffer.byteLength(config.auth.jwtSecret) < 32) {
    throw new ConfigError('auth.jwtSecret must be at least 32 bytes');
  }
  return {
    environment: config.environment,
    chains: config.chains,
    storePath: config.storePath ?? ':memory:',
    databaseUrl: config.databaseUrl,
    databaseSchema: config.databaseSchema,
    host: config.host ?? '127.0.0.1',
    port,
    publicUrl: config.publicUrl?.replace(/\/+$/, ''),
    rateLimit: { credential, anonymous },
    bodyLimitBytes: numbers.bodyLimitBytes,
    idempotencyTtlMs: numbers.idempotencyTtlMs,
    keyRotationGraceMs: numbers.keyRotationGraceMs,
    corridors: {
      minNotionalUsd: numbers.minNotionalUsd,
      maxNotionalUsd: numbers.maxNotionalUsd,
      oracleContract: config.corridors?.oracleContract ?? 'InputOracle',
      solverCount: config.corridors?.solverCount ?? (() => 0),
    },
    auth: {
      sessionTtlMs: numbers.sessionTtlMs,
      challengeTtlMs: numbers.challengeTtlMs,
      jwtSecret: config.auth?.jwtSecret,
      webauthn: config.auth?.webauthn ?? {},
    },
    version: 'v1',
  };
}

function pick(settings: Partial<RateLimitSettings> | undefined): Partial<RateLimitSettings> {
  const out: Partial<RateLimitSettings> = {};
  if (settings?.perSecond !== undefined) out.perSecond = settings.perSecond;
  if (settings?.burst !== undefined) out.burst = settings.burst;
  return out;
}
