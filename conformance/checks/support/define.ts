import type { Check } from '../../core/runner.js';

/** Typing aid for check modules: `export const checks = [check({...}), …]`. */
export function check(definition: Check): Check {
  return definition;
}

export const BOTH = ['A', 'B'] as const;
export const ONLY_A = ['A'] as const;
export const ONLY_B = ['B'] as const;

/** Phases: discovery, platform, reference routes, flows, after-flow checks, timing, rate limits, observers. */
export const PHASE = {
  discovery: 0,
  platform: 10,
  routes: 20,
  flows: 30,
  afterFlows: 40,
  timing: 60,
  /** The one long clock walk (a day and more), after the connections kept for the flows are released. */
  lateTiming: 70,
  rateLimit: 80,
  observers: 95,
} as const;
