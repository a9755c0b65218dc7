/**
 * Events for the checks that replay or redeliver what a run has seen (cursor replay, the webhook retry schedule).
 * In a whole run the flows have emitted plenty; a check selected on its own (`--only`) runs the flows it needs
 * itself, rather than skipping and leaving the deployment unexamined.
 */
import type { CheckContext } from '../core/context.js';
import { eventCapture, waitForEvents } from '../flows/capture.js';
import { successFlow } from './orders.js';
import { bFlow } from './reference-b.js';

/** Events the failing webhook endpoints of the long sweep get replayed (A pauses an endpoint after 5 failures). */
export function webhookEventsNeeded(ctx: CheckContext): number {
  return ctx.profile === 'A' ? 5 : 1;
}

/** How long events of a flow that has just ended may take to reach the capture. */
const ARRIVAL_MS = 5_000;

/**
 * The ids of the events the run's capture holds (each once, in arrival order), at least `count` of them: the
 * success flows run now, one after the other, until there are enough. Skips the check when even those emit fewer.
 */
export async function eventsAtHand(ctx: CheckContext, count: number): Promise<string[]> {
  const capture = await eventCapture(ctx);
  const ids = () => [...new Set(capture.events().map((e) => String(e.id)))];
  // Flows with an API key: their events belong to the key's workspace, the one the capture listens to.
  const flows =
    ctx.profile === 'A' ? [() => successFlow(ctx, 'Permit2Escrow'), () => successFlow(ctx, 'ResourceLock')] : [() => bFlow(ctx)];
  for (const flow of flows) {
    if (ids().length >= count) break;
    await flow();
    await waitForEvents(ctx, () => ids().length >= count, ARRIVAL_MS);
  }
  const held = ids();
  if (held.length < count) ctx.skip(`only ${held.length} events exist after the success flows; ${count} are needed`);
  return held;
}
