import { RestClient } from '../../clients/rest-client.js';
import { SandboxAdminClient } from '../../clients/sandbox-admin-client.js';
import { BaseError } from '../../contracts/errors/base-error.js';
import { readServiceManifest, type ServiceManifest } from '../../devnet/manifest-file.js';
import { type SandboxClock, sandboxClock } from '../clock.js';
import { type FaultSwitches, faultSwitches } from '../faults.js';

/**
 * What every flow run against a running sandbox shares (`sandbox trigger`, `sandbox demo`): the sandbox of a state
 * folder, reached with its own sandbox.json key, so whatever a flow does lands in the sandbox's own workspace (the
 * dashboard, the taker WebSocket and `sandbox webhooks listen` see it), and the steps it reports as it goes.
 */

const DOCS = 'README.md#commands';

/** A flow that ran but did not end as it should (the order stuck, a quote without a payload, a retry that never came). */
export class FlowError extends BaseError {
  override readonly name = 'FlowError';
  override readonly code = 'trigger_failed';
  constructor(message: string) {
    super(message, { docsPath: DOCS });
  }
}

/** A sandbox that answers but cannot run the flow (one chain, no funded taker, no solver quoting): exit code 2. */
export class SandboxUnfitError extends BaseError {
  override readonly name = 'SandboxUnfitError';
  override readonly code = 'target_unusable';
  constructor(message: string) {
    super(message, { docsPath: DOCS });
  }
}

/** One step of a flow as it happened: what, in words, and the chain facts behind it when there are some. */
export interface FlowStep {
  step: string;
  detail: string;
  /** Chain the step happened on (its name in sandbox.json) and the transaction. */
  chain?: string;
  txHash?: string;
  /** The service clock's time of the step (ISO), when the service recorded one. */
  at?: string;
}

export interface FlowSession {
  readonly stateDir: string;
  readonly manifest: ServiceManifest;
  /** The REST API as the sandbox's own workspace (sandbox.json's first key). */
  readonly rest: RestClient;
  readonly admin: SandboxAdminClient;
  readonly clock: SandboxClock;
  readonly faults: FaultSwitches;
  readonly steps: readonly FlowStep[];
  step(step: FlowStep): void;
  /** The dashboard's journey of an order (the page at the API URL's `/`, the order selected by `#order=`). */
  journeyLink(orderId: string): string;
  /** The name sandbox.json gives a chain id, for people (`alpha`), else the id. */
  chainName(chainId: number | undefined): string | undefined;
}

/** The dashboard's address of an order's journey: docs/dashboard.md (the selected order is kept in `#order=`). */
export function journeyLink(apiUrl: string, orderId: string): string {
  return `${apiUrl.replace(/\/+$/, '')}/#order=${encodeURIComponent(orderId)}`;
}

/**
 * Opens a session on the sandbox of `stateDir`. A folder without a sandbox, or one whose service does not answer,
 * fails here, before any step (`not_running` / `service_unreachable`, exit code 2).
 */
export async function openFlowSession(stateDir: string, onStep: (step: FlowStep) => void): Promise<FlowSession> {
  const manifest = readServiceManifest(stateDir);
  const admin = new SandboxAdminClient({ url: manifest.api.url, apiKeys: manifest.api.apiKeys });
  const clock = sandboxClock(admin);
  await clock.now();
  const steps: FlowStep[] = [];
  return {
    stateDir,
    manifest,
    rest: new RestClient({ baseUrl: manifest.api.url, apiKey: manifest.api.apiKeys[0] ?? '' }),
    admin,
    clock,
    faults: faultSwitches(admin),
    steps,
    step(step) {
      steps.push(step);
      onStep(step);
    },
    journeyLink: (orderId) => journeyLink(manifest.api.url, orderId),
    chainName: (chainId) =>
      chainId === undefined ? undefined : (manifest.chains.find((chain) => chain.chainId === chainId)?.name ?? String(chainId)),
  };
}

/** Waits `ms` of wall time (polling the service; business time is the sandbox clock's, moved by `clock.advance`). */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
