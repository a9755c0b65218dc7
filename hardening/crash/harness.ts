import type { ServiceChild } from '../service-child.js';
import type { BlockRecorder } from '../support/block-recorder.js';
import type { StoreReader } from '../support/store-reader.js';
import type { WebhookReceiver } from '../support/webhook-receiver.js';
import type { WireAnswer } from '../support/wire.js';
import type { CrashOptions } from './plan.js';
import type { SandboxManifest } from '../../src/contracts/deployment.js';
import type { ReferenceSolvers } from '../../src/solvers/index.js';

/** What the campaign's steps share: the service under test, what watches it, and where problems are written. */
export interface CrashHarness {
  readonly options: CrashOptions;
  readonly manifest: SandboxManifest;
  readonly service: ServiceChild;
  readonly store: StoreReader;
  readonly receiver: WebhookReceiver;
  readonly recorder: BlockRecorder;
  readonly problems: string[];
  readonly notes: string[];
  readonly started: number;
  readonly storePath: string;
  /** The reference solvers, once started. */
  solvers(): ReferenceSolvers | undefined;
  /** The restart in progress, if any. */
  restarting(): Promise<unknown> | undefined;
  log(line: string): void;
  url(): string;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>, auth?: boolean): Promise<WireAnswer>;
  /** SIGKILL and start again (one restart at a time). */
  restart(why: string): Promise<unknown>;
  /** `rpc` mode: sets a `chain.rpc-drop` switch through the sandbox API instead of a kill. */
  injectRpcFault(index: number, why: string): Promise<void>;
  /** `rpc` mode: switches set so far, and how often they fired (the service's count, read before it stops). */
  rpcFaultsSet(): number;
  /** The chain campaign: a `chain.reorg` switch (count 1) for the lifecycle about to run. */
  injectReorg(index: number): Promise<void>;
  reorgsSet(): number;
  /** The chain campaign: halts `chainId` now and resumes it after `ms` of wall time. */
  injectHalt(index: number, chainId: number, ms: number): Promise<void>;
  halts(): number;
  reorgsFired(): number;
  rpcFaultsFired(): number;
  syncReceiverClock(): Promise<void>;
  /** Recomputes the evidence ledger from the store (the SQLite file or the Postgres database). */
  verifyLedger(): Promise<{ ok: boolean; entries: number; brokenAt?: number; reason?: string }>;
  /** The failover campaign's take-over times so far. */
  takeovers(): number[];
  /** The failover campaign's idempotency probe: replays sent, and answers that differed from the first. */
  idempotency(): { replays: number; mismatches: number };
  /** The failover campaign's burst: lifecycles run at once, and kills that landed among them. */
  burst(): { inFlight: number; kills: number };
  /** Outbox position from which the webhook must receive every event. */
  readonly webhookSince: number;
}
