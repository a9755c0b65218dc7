import type { Environment } from '../contracts/deployment.js';
import type { ChainSpec } from '../devnet/chain-config.js';
import type { SandboxRateLimit } from '../devnet/config.js';

/**
 * What `sandbox up` runs, in the foreground or in the detached supervisor. JSON-serialisable: the CLI hands it
 * to the supervisor on its command line. Later parts add their settings (service port, solvers) here.
 */
export interface SandboxRunOptions {
  stateDir: string;
  chains: ChainSpec[];
  fresh: boolean;
  mnemonic?: string;
  environment?: Environment;
  allowPublicChainIds?: boolean;
  cacheDir?: string;
  /** REST/WebSocket port of the service (`--port`); default a free one. */
  port?: number;
  /** Reference solvers to connect (`--solvers`, default 3; 0 leaves the field to yours). */
  solvers?: number;
  /** Seed of the reference solvers' pricing strategies (`--solver-seed`). */
  solverSeed?: number;
  /** How the reference solvers find orders (`--solver-mode stream|chain`, default stream). */
  solverMode?: 'stream' | 'chain';
  /** Webhook retry profile of the service (`--webhook-profile A|B`). */
  webhookProfile?: 'A' | 'B';
  /** `--database postgres` without a URL: a Postgres server of the sandbox's own, in `<state>/postgres`. */
  database?: 'sqlite' | 'postgres';
  /** `--database-url` (or DATABASE_URL): the service's store in this Postgres database. */
  databaseUrl?: string;
  /** `--instances N`: service processes behind the one port (default 1; 2 or more need Postgres). */
  instances?: number;
  /** The config file's `rateLimit`: the service's request limits, raised for fuzzers and CI (default 100/s, burst 1,000). */
  rateLimit?: SandboxRateLimit;
}
