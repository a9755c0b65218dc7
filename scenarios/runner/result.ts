import type { INVARIANTS } from '../invariants/monitor.js';

export type ScenarioStatus = 'passed' | 'failed' | 'skipped';

export interface StepResult {
  title: string;
  /** skipped: the step could not reach what it checks (inconclusive); the scenario is skipped with its reason. */
  status: 'passed' | 'failed' | 'skipped' | 'not run';
  durationMs: number;
  summary?: string;
  error?: string;
}

export interface ScenarioResult {
  name: string;
  title: string;
  tags: string[];
  status: ScenarioStatus;
  /** Why it was skipped. */
  reason?: string;
  durationMs: number;
  target: string;
  steps: StepResult[];
  failure?: {
    step: string;
    message: string;
    /** Printable evidence: the expected and the seen timeline side by side, an answer, a violation. */
    details?: string;
    /** Every order's timeline as seen when the scenario failed. */
    timelines?: string;
  };
  /** How many times the invariants were checked (after every step). */
  invariantChecks: number;
  notes: string[];
  /** Actors: label → name (from the seed) and address (this run's own key). */
  participants: Record<string, string>;
  orders: Record<string, { orderId: string; onchainOrderId: string }>;
  /** Escrow accounting per chain and token when the scenario ended. */
  escrow: string[];
}

export interface RunReport {
  seed: number;
  /** What made this run's participant keys its own (drawn fresh per run; names and amounts follow the seed). */
  runSalt: string;
  target: string;
  startedAt: string;
  durationMs: number;
  summary: { total: number; passed: number; failed: number; skipped: number };
  invariants: typeof INVARIANTS;
  scenarios: ScenarioResult[];
}

/** Progress of a run, for live output. */
export type RunEvent =
  | { type: 'target.starting'; description: string }
  | { type: 'target.ready'; description: string; durationMs: number }
  | { type: 'scenario.start'; name: string; title: string; index: number; total: number }
  | { type: 'step.start'; scenario: string; index: number; title: string }
  | { type: 'step.end'; scenario: string; index: number; result: StepResult }
  | { type: 'scenario.end'; result: ScenarioResult };
