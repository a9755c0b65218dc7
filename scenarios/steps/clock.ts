import { formatDuration, parseDuration } from '../../src/clock/index.js';
import type { ScenarioContext } from '../core/context.js';
import type { Step } from '../core/scenario.js';

/** Moves the sandbox clock (service and every chain) forward; due jobs run in time order. Never a sleep. */
export function advanceClock(duration: string): Step {
  const ms = parseDuration(duration);
  return {
    title: `advance the clock ${duration}`,
    async run(context) {
      const now = await context.target.advanceClock(ms);
      return `now ${new Date(now).toISOString()}`;
    },
  };
}

/** Moves the clock to an absolute time (ms) a function computes from earlier results; never backwards. */
export function advanceClockTo(what: string, at: (context: ScenarioContext) => number): Step {
  return {
    title: `advance the clock to ${what}`,
    async run(context) {
      const target = at(context);
      const now = await context.target.serviceNow();
      const reached = await context.target.advanceClock(Math.max(0, target - now));
      return `moved ${formatDuration(Math.max(0, target - now))}, now ${new Date(reached).toISOString()}`;
    },
  };
}

/** `expires` (or `fillDeadline`) of a quote's RFQ plus `seconds`, in ms: where refunds and late fills happen. */
export function after(
  quote: string,
  field: 'expires' | 'fillDeadline' | 'quoteExpiry',
  seconds: number,
): (context: ScenarioContext) => number {
  return (context) => {
    const quoted = context.quote(quote);
    const base = field === 'quoteExpiry' ? Date.parse(quoted.quote.expiresAt) / 1_000 : quoted.response[field];
    return (base + seconds) * 1_000;
  };
}
