import type { Environment } from '../contracts/deployment.js';
import type { AttachedChainSpec, ChainSpec } from '../devnet/chain-config.js';
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
  /**
   * Which parts this process runs (a sandbox split over hosts or containers): `all` (default, `sandbox up`), `chains`
   * (`sandbox chains`: the anvils only, state saved), `service` (`sandbox serve`: the service on attached chains and a
   * given Postgres), `solvers` (`sandbox solvers`: the reference solvers against a service elsewhere).
   */
  role?: SandboxRole;
  /**
   * A file several service replicas share (a volume): the first to start writes its workspace and API key there, the
   * others reuse them, so one key works on every replica (`--access-file`). The solvers role reads its key from it.
   */
  accessFile?: string;
  /** The solvers role: the service's URL (the load balancer in front of the replicas). */
  serviceUrl?: string;
}

export type SandboxRole = 'all' | 'chains' | 'service' | 'solvers';

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
  /** Chains started elsewhere (`--chain alpha=URL`, or a config file with rpcUrls): attached instead of started. */
  attach?: AttachedChainSpec[];
  /** Address the anvils listen on (`--chain-host`, default 127.0.0.1). */
  chainHost?: string;
  /** The chains role: save the chains' state this often too (seconds), not only on stop, so a killed chain loses little. */
  saveEverySeconds?: number;
}
