import type { ScenarioContext } from '../core/context.js';
import { ScenarioFailure } from '../core/errors.js';
import { eventually, sleep, TimeoutError } from '../core/eventually.js';
import type { Step } from '../core/scenario.js';
import { orderFormat } from '../observe/observe-order.js';
import { compareTimeline, type ExpectedTimeline, formatTimelineDiff, type TimelineRow, timelineMatches } from '../observe/timeline.js';

export type ExpectedOrDerived = ExpectedTimeline | ((context: ScenarioContext) => ExpectedTimeline);

/**
 * Waits (wall time, bounded) until the order's timeline matches on every channel named; fails with both timelines
 * side by side when it never does.
 */
export function expectOrder(name: string, expected: ExpectedOrDerived, options: { timeoutMs?: number } = {}): Step {
  return {
    title: `expect order ${name}${typeof expected === 'function' ? '' : expected.status === undefined ? '' : `: ${expected.status}`}`,
    async run(context) {
      const order = context.order(name);
      const want = typeof expected === 'function' ? expected(context) : expected;
      const format = orderFormat(order);
      const timeoutMs = options.timeoutMs ?? context.expectTimeoutMs;
      const started = Date.now();
      let rows: TimelineRow[] = [];
      for (;;) {
        rows = compareTimeline(want, await context.observe(order), format);
        if (timelineMatches(rows)) break;
        if (Date.now() - started > timeoutMs) {
          throw new ScenarioFailure(
            `order ${name} (${order.orderId}) did not reach the expected timeline within ${timeoutMs} ms`,
            formatTimelineDiff(`timeline of order ${name} (${order.orderId}):`, rows),
          );
        }
        await sleep(25);
      }
      const checked = rows.filter((r) => r.verdict === 'ok').map((r) => r.field.split(' ')[0]);
      return `${want.status ?? 'as expected'} on ${[...new Set(checked)].join(', ')}`;
    },
  };
}

/** A check of the scenario's own: `assert` throws (ScenarioFailure) when something is off. */
export function check(title: string, assert: (context: ScenarioContext) => Promise<string | void> | string | void): Step {
  return { title, run: async (context) => (await assert(context)) ?? undefined };
}

/** Waits (wall time, bounded) until `probe` holds: deliveries arriving, a solver acting. */
export function waitUntil(
  title: string,
  probe: (context: ScenarioContext) => Promise<string | boolean | undefined> | string | boolean | undefined,
  options: { timeoutMs?: number } = {},
): Step {
  return {
    title: `wait until ${title}`,
    async run(context) {
      try {
        const result = await eventually(() => probe(context), title, { timeoutMs: options.timeoutMs ?? context.expectTimeoutMs });
        return typeof result === 'string' ? result : undefined;
      } catch (error) {
        if (error instanceof TimeoutError) throw new ScenarioFailure(error.message);
        throw error;
      }
    },
  };
}
