import { BaseError } from '../../src/contracts/errors/base-error.js';
/**
 * The vocabulary of a conformance run: checks, their results and the evidence they carry. Nothing here knows
 * how a deployment is built; a check only sees the wire.
 */

/** Reference A (primary, `/api/v1`, order-centric events) or Reference B (RFQ-centric routes and events). */
export type Profile = 'A' | 'B';

export type Status = 'PASSED' | 'FAILED' | 'WARNING' | 'SKIPPED';

/** What a deployment offers beyond the spec, detected before the run; checks that need one skip without it. */
export type Capability =
  /** An API key of the target's environment was given. */
  | 'apiKey'
  /** `POST /api/v1/sandbox/clock/advance` moves service and chain time (sandbox only). */
  | 'clock'
  /** Sandbox key routes (`/api/v1/sandbox/keys`): extra keys and rotation. */
  | 'keys'
  /** A faucet route funds an address. */
  | 'faucet'
  /** Funded taker accounts with private keys (from sandbox.json). */
  | 'fundedAccounts'
  /** Chain JSON-RPC endpoints of the target (from sandbox.json). */
  | 'chains'
  /** At least one corridor has live solvers. */
  | 'solvers'
  /** The workspace id of the API key is known (sandbox.json or `--workspace`). */
  | 'workspace'
  /** `--long`: timing checks may wait in real time. */
  | 'long'
  /** The target serves an OpenAPI document at `/api/v1/openapi.json`. */
  | 'openapi'
  /** Project extension: `POST /quotes` takes `user` (the taker), so quotes carry its StandardOrder and nonce. */
  | 'namedTaker'
  /** Project extension: `POST /quotes` takes `lockType`, so a flow can ask for each lock mechanism. */
  | 'quoteLockType'
  /** Project extension: `POST /quotes` takes `settlementPath` (`direct` or `compliant`). */
  | 'quoteSettlementPath';

export interface HttpEvidence {
  kind: 'http';
  label?: string;
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  response?: { status: number; headers: Record<string, string>; body?: string };
  error?: string;
  ms: number;
}

export interface WsFrame {
  dir: 'sent' | 'received';
  /** ms since the session opened. */
  at: number;
  data: string;
}

export interface WsEvidence {
  kind: 'ws';
  label?: string;
  url: string;
  frames: WsFrame[];
  close?: { code: number; reason: string };
  error?: string;
}

export interface DeliveryEvidence {
  kind: 'deliveries';
  label?: string;
  deliveries: Array<{ at: string; path: string; headers: Record<string, string>; body: string; answered: number }>;
}

export interface RpcEvidence {
  kind: 'rpc';
  chainId?: number;
  url: string;
  method: string;
  params: unknown[];
  result?: unknown;
  error?: string;
}

export interface NoteEvidence {
  kind: 'note';
  text: string;
  data?: unknown;
}

export type Evidence = HttpEvidence | WsEvidence | DeliveryEvidence | RpcEvidence | NoteEvidence;

export interface CheckResult {
  id: string;
  title: string;
  status: Status;
  /** Why it failed, warned or skipped; for a pass, what was established. */
  message: string;
  requirements: string[];
  tags: string[];
  profile: Profile;
  durationMs: number;
  evidence: Evidence[];
  /** Set when the check is listed in the expected-failures file. */
  expected?: { reason: string; outcome: 'failed-as-expected' | 'did-not-fail' | 'not-run' };
  /** A SKIPPED check: the capabilities the target or the caller did not provide (empty when the run itself showed why). */
  missing?: Capability[];
  /** Set when the check is listed in the expected-skips file: its skip does not make the run INCOMPLETE. */
  expectedSkip?: { reason: string };
}

/** How a check runs; the runner gives each check a fresh one. */
export interface CheckDefinition<Context> {
  /** Stable id, dotted: `quotes.ranked-best-first`. */
  id: string;
  title: string;
  /** Requirement ids of the catalogue this check tests. */
  requirements: readonly string[];
  /** Profiles the check belongs to. */
  profiles: readonly Profile[];
  tags: readonly string[];
  /** Capabilities without which the check is SKIPPED. */
  needs?: readonly Capability[];
  /** Any one of these suffices (e.g. `clock` or `long`); otherwise SKIPPED. */
  needsAnyOf?: readonly Capability[];
  /**
   * A failed assertion of a check whose requirements are all SHOULD is a WARNING, not a FAILED; set this to
   * force FAILED (or WARNING) whatever the levels.
   */
  severity?: 'fail' | 'warn';
  /** Later phases run later: flows need the platform, observers need everything else. Default 50. */
  phase?: number;
  timeoutMs?: number;
  run(ctx: Context): Promise<void>;
}

/** Thrown by `ctx.skip()`. */
export class CheckSkipped extends BaseError {
  override readonly name = 'CheckSkipped';
}

/** Thrown by a failed assertion. */
export class CheckFailed extends BaseError {
  override readonly name = 'CheckFailed';
  /** True when the finding was already recorded (by `ctx.require`). */
  constructor(
    message: string,
    readonly recorded = false,
  ) {
    super(message);
  }
}
