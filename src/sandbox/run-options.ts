import type { Environment } from '../contracts/deployment.js';
import type { ChainSpec } from '../devnet/chain-config.js';
import type { ServiceSettings } from './service-config.js';

/**
 * What runs on top of the chains: the service (its settings are the ServiceSettings every assembly path shares:
 * `--port`, `--webhook-profile`…), its store, the reference solvers. JSON-serialisable.
 */
export interface SandboxPartsOptions extends ServiceSettings {
  /** Reference solvers to connect (`--solvers`, default 3; 0 leaves the field to yours). */
  solvers?: number;
  /** Seed of the reference solvers' pricing strategies (`--solver-seed`). */
  solverSeed?: number;
  /** How the reference solvers find orders (`--solver-mode stream|chain`, default stream). */
  solverMode?: 'stream' | 'chain';
  /** `--database postgres` without a URL: a Postgres server of the sandbox's own, in `<state>/postgres`. */
  database?: 'sqlite' | 'postgres';
  /** `--database-url` (or DATABASE_URL): the service's store in this Postgres database. */
  databaseUrl?: string;
  /** `--instances N`: service processes behind the one port (default 1; 2 or more need Postgres). */
  instances?: number;
}

/**
 * What `sandbox up` runs, in the foreground or in the detached supervisor: the chains and the parts on top. The
 * CLI hands it to the supervisor on its command line as JSON.
 */
export interface SandboxRunOptions extends SandboxPartsOptions {
  stateDir: string;
  chains: ChainSpec[];
  fresh: boolean;
  mnemonic?: string;
  environment?: Environment;
  allowPublicChainIds?: boolean;
  cacheDir?: string;
}
