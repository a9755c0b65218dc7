import type { ScenarioContext } from './context.js';
import type { ScenarioInfo } from './scenario-spec.js';

export * from './scenario-spec.js';

/**
 * A scenario: who takes part, what they do step by step, and what every order's timeline must look like. Steps run
 * in order; after each one the runner checks the invariants (escrow accounting, single fills, one terminal event per
 * order per subscriber, the ledger chain). Definitions are data plus small functions: see `scenarios/catalogue/`.
 */
export interface Scenario extends ScenarioInfo {
  steps: readonly Step[];
}

export interface Step {
  /** Shown in progress and reports: `quote q (alice, Permit2Escrow, direct)`. */
  readonly title: string;
  /** Returns a one-line summary of what happened, for the progress output. */
  run(context: ScenarioContext): Promise<string | void>;
}

export function defineScenario(scenario: Scenario): Scenario {
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(scenario.name)) throw new Error(`scenario name "${scenario.name}" must be kebab-case`);
  return scenario;
}
