import type { Environment, ChainInfo } from '../contracts/deployment.js';

/** The request budget of one credential (or of anonymous callers): the HTTP adapter's limiter applies it. */
export interface RateLimitSettings {
  /** Sustained requests per second per credential (spec: 100). */
  perSecond: number;
  /** Requests allowed at once before the per-second rate applies (spec: 1,000). */
  burst: number;
}

/** The checked, defaulted configuration every module sees. */
export interface ResolvedServiceConfig {
  environment: Environment;
  chains: ChainInfo[];
  storePath: string;
  /** Set: the store is this Postgres database (`storePath` then only locates files kept beside the store). */
  databaseUrl: string | undefined;
  databaseSchema: string | undefined;
  host: string;
  port: number;
  publicUrl: string | undefined;
  rateLimit: { credential: RateLimitSettings; anonymous: RateLimitSettings };
  bodyLimitBytes: number;
  idempotencyTtlMs: number;
  keyRotationGraceMs: number;
  corridors: { minNotionalUsd: number; maxNotionalUsd: number; oracleContract: string; solverCount: (corridorId: string) => number };
  auth: {
    sessionTtlMs: number;
    challengeTtlMs: number;
    jwtSecret: string | undefined;
    webauthn: { rpId?: string | undefined; origins?: string[] | undefined };
  };
  version: string;
}
