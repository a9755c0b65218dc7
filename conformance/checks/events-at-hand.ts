/**
 * What the checks that look back at a run need from it: its events (cursor replay, the webhook retry schedule,
 * deliveries against the WebSocket) and its orders (page walks). In a whole run the flows have made plenty; a check
 * selected on its own (`--only`) runs the flows itself, rather than skipping and leaving the deployment unexamined.
 */
import type { CheckContext } from '../core/context.js';
import { eventCapture, waitForEvents } from '../flows/capture.js';
import { successFlow } from './orders.js';
import { bFlow, bRefundFlow } from './reference-b.js';

/** Events the failing webhook endpoints of the long sweep get replayed (A pauses an endpoint after 5 failures). */
export function webhookEventsNeeded(ctx: CheckContext): number {
  return ctx.profile === 'A' ? 5 : 1;
}

/** How long events of a flow that has just ended may take to reach the capture. */
const ARRIVAL_MS = 5_000;

/**
 * Runs the run's flows (each once per run: a flow that already ran is not run again), one after the other,
 * until `enough(afterFlow)` holds; whether it holds in the end. Flows with an API key: what they make belongs to the
 * key's workspace, the one the checks read.
 */
export async function flowsUntil(ctx: CheckContext, enough: (afterFlow: boolean) => Promise<boolean> | boolean): Promise<boolean> {
  // B has one success flow; its refund flow (which advances the sandbox clock past the order's expiry) makes a second
  // settlement when one is not enough.
  const flows =
    ctx.profile === 'A'
      ? [() => successFlow(ctx, 'Permit2Escrow'), () => successFlow(ctx, 'ResourceLock')]
      : [() => bFlow(ctx), () => bRefundFlow(ctx)];
  if (await enough(false)) return true;
  for (const flow of flows) {
    await flow();
    if (await enough(true)) return true;
  }
  return false;
}

/**
 * The ids of the events the run's capture holds (each once, in arrival order), at least `count` of them: the
 * success flows run now until there are enough. Skips the check when even those emit fewer.
 */
export async function eventsAtHand(ctx: CheckContext, count: number): Promise<string[]> {
  const capture = await eventCapture(ctx);
  const ids = () => [...new Set(capture.events().map((e) => String(e.id)))];
  await flowsUntil(ctx, (afterFlow) => (afterFlow ? waitForEvents(ctx, () => ids().length >= count, ARRIVAL_MS) : ids().length >= count));
  const held = ids();
  if (held.length < count) ctx.skip(`only ${held.length} events exist after the success flows; ${count} are needed`);
  return held;
}
