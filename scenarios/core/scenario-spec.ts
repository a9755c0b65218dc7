import type { ComplianceSettings } from '../../src/sandbox/service-host.js';
import type { SolverBehaviour } from '../../src/solvers/behaviour.js';

/**
 * What a scenario declares besides its steps: its name, what it needs from the target and its actors. The
 * context (`context.ts`) and the actors see only this part; `scenario.ts` adds the steps.
 */
export interface ScenarioInfo {
  /** Unique, kebab-case: `success-permit2-direct`. What `sandbox scenario run <name>` selects. */
  name: string;
  title: string;
  tags: readonly string[];
  requires?: Requirements;
  actors?: ActorsSpec;
}

/** What a scenario needs from its target; a target that cannot offer it skips the scenario and says why. */
export interface Requirements {
  /** A sandbox of its own, started for this scenario and stopped after it (isolation, other settings). */
  ownTarget?: boolean | ((participants: Participants) => OwnTargetSettings);
  /** Stops and starts the service: the runner's own, or a running sandbox's through its `service.restart` switch. */
  restart?: boolean;
  /** Scripts the reference solvers through the sandbox's solver fault switches (the sandbox environment). */
  scriptableSolvers?: boolean;
  /** Advances the sandbox clock (`POST /api/v1/sandbox/clock/advance`). */
  testClock?: boolean;
  /** Sets the sandbox's fault switches (`/api/v1/sandbox/faults`). */
  faultSwitches?: boolean;
  /** Receives webhooks on a loopback receiver (the sandbox allows http://127.0.0.1; production does not). */
  loopbackWebhooks?: boolean;
  /** Reference B routes (`POST /api/v1/rfq`, `/accept`). */
  referenceB?: boolean;
  /** The environment the scenario is about. */
  environment?: 'sandbox' | 'production';
}

/** Settings of a scenario's own in-process sandbox. */
export interface OwnTargetSettings {
  environment?: 'sandbox' | 'production';
  compliance?: ComplianceSettings;
  /** Reference solvers to start (default 3). */
  solvers?: number;
  /** `chain`: the reference solvers watch the escrows' Open logs instead of the solver stream. */
  solverMode?: 'stream' | 'chain';
}

export interface ActorsSpec {
  /** Labels of takers: fresh keys derived from the seed, funded through the faucet on first use. */
  takers?: readonly string[];
  /** Taker-stream subscribers of the scenario's workspace. */
  streams?: Readonly<Record<string, StreamSpec>>;
  /** Webhook receivers of the scenario's workspace, each on its own loopback port. */
  webhooks?: Readonly<Record<string, ReceiverSpec>>;
  /** Behaviour of the reference solvers for this scenario, by account order: solver fault switches, cleared afterwards. */
  solvers?: readonly (SolverBehaviour | undefined)[];
}

export interface StreamSpec {
  topics?: readonly string[];
  channels?: readonly string[];
  corridors?: readonly string[];
}

/** What a receiver answers to one delivery attempt. */
export interface DeliveryAttempt {
  eventId: string;
  eventType: string;
  /** 1 for the first time this event id arrives, 2 for the next… */
  attempt: number;
  /** Deliveries this receiver got so far, this one included. */
  received: number;
}

/** HTTP status to answer (2xx = success). */
export type ResponsePattern = (attempt: DeliveryAttempt) => number;

export interface ReceiverSpec {
  events: readonly string[];
  respond?: ResponsePattern;
  /**
   * The receiver is expected to miss events (it gets paused): the end-of-scenario check that every terminal event
   * reached every subscriber leaves it out. The at-most-one check still applies.
   */
  lossy?: boolean;
}

/** The actors drawn for one run (from `--seed`). */
export interface Participants {
  takers: Readonly<Record<string, { name: string; address: `0x${string}` }>>;
}

/** Failure patterns of webhook receivers. */
export const respond = {
  ok: (): ResponsePattern => () => 200,
  /** Every attempt fails with `status`. */
  always:
    (status: number): ResponsePattern =>
    () =>
      status,
  /** The first `failures` attempts of each event fail with `status`, later ones succeed. */
  failFirst:
    (failures: number, status = 500): ResponsePattern =>
    ({ attempt }) =>
      attempt <= failures ? status : 200,
};
