import type { Environment, ChainInfo } from '../contracts/deployment.js';
import type { RateLimitSettings } from './http/rate-limit.js';

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
