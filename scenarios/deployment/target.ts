import type { ApiInfo, Environment, SandboxManifest } from '../../src/contracts/deployment.js';
import type { ReferenceSolver } from '../../src/solvers/index.js';

/** A sandbox manifest with the settlement service's `api` block (what scenarios need). */
export type ServedManifest = SandboxManifest & { api: ApiInfo };

/** A workspace of the service: scenarios each get their own, so their events and webhooks never mix. */
export interface Workspace {
  workspaceId: string;
  /** An API key of the workspace (or a session token where keys cannot be created). */
  apiKey: string;
}

/** Stopping and starting the settlement service on the same store, port and chains. */
export interface ServiceControl {
  readonly running: boolean;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/**
 * Where scenarios run: a sandbox the runner started in this process, or a running one named by its sandbox.json.
 * Everything scenarios do goes over the wire (HTTP, WebSocket, webhooks, JSON-RPC); the extras an in-process target
 * offers (solvers it owns, a service it can stop) are optional and scenarios that need them are skipped elsewhere.
 */
export interface ScenarioTarget {
  readonly kind: 'in-process' | 'remote';
  /** For people: "fresh in-process sandbox (2 chains, 3 reference solvers)". */
  readonly description: string;
  readonly manifest: ServedManifest;
  readonly environment: Environment;
  /** A key of the service's own workspace (clock advances, solver registrations). */
  readonly adminKey: string;
  /** Reference solvers this process owns and can script, in account order. */
  readonly solvers: readonly ReferenceSolver[] | undefined;
  readonly service: ServiceControl | undefined;
  /** The service's SQLite file when it is readable from here (ledger checks). */
  readonly storePath: string | undefined;
  /** Whether the sandbox clock route exists (sandbox environment). */
  readonly testClock: boolean;
  /** Whether the sandbox's fault switches exist (`/api/v1/sandbox/faults`, sandbox environment). */
  readonly faultSwitches: boolean;
  /** Service clock, ms since the epoch. */
  serviceNow(): Promise<number>;
  /** Moves the service clock (and every chain with it), running due jobs; resolves with the new time. */
  advanceClock(ms: number): Promise<number>;
  /** Moves only the chains' time (the service may be down). */
  advanceChains?(seconds: number): Promise<void>;
  /** A new workspace and a credential for it. */
  createWorkspace(label: string): Promise<Workspace>;
  /** Mints `amount` whole tokens of `token` to `address` on chain `chainId` and gives it gas. */
  fund(address: string, chainId: number, token: string, amount: bigint): Promise<void>;
  stop(): Promise<void>;
}
