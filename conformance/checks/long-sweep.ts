import type { CheckContext } from '../core/context.js';
import { dayParticipant, type DayPass } from './platform/day-pass.js';
import { walkClock, type SweepParticipant } from './support/clock-sweep.js';
import { eventsAtHand, webhookEventsNeeded } from './events-at-hand.js';
import { webhookParticipant, type FailingEndpoints } from './webhook-schedule.js';

export interface LongSweep {
  /** Idempotency window and key rotation (needs the sandbox clock). */
  day?: DayPass;
  dayProblem?: string;
  /** Failing webhook endpoints walked through the retry schedule. */
  webhooks?: FailingEndpoints;
  /** Why the endpoints could not be set up (a skip stays a skip). */
  webhooksError?: unknown;
}

/** The day pass, or the reason it is missing (thrown: a skip stays a skip). */
export async function dayPass(ctx: CheckContext): Promise<DayPass> {
  const sweep = await longSweep(ctx);
  return sweep.day ?? ctx.fail(sweep.dayProblem ?? 'the day pass did not run');
}

export async function failingWebhooks(ctx: CheckContext): Promise<FailingEndpoints> {
  const sweep = await longSweep(ctx);
  if (sweep.webhooks) return sweep.webhooks;
  throw sweep.webhooksError ?? new Error('the failing endpoints were not set up');
}

/**
 * The run's one long walk of the sandbox clock (32 h for schedule A): the day-long checks and the webhook schedule
 * ride it together, after the connections kept for the flows are closed.
 */
export function longSweep(ctx: CheckContext): Promise<LongSweep> {
  return ctx.fixture('long-sweep', async () => {
    // The failing endpoints get replayed events the run captured. A selection that ran too few flows (`--only
    // webhooks.*`) runs them now: while the capture still listens (it is one of the connections closed next), and
    // before the endpoints are registered (a flow would send them deliveries of its own).
    const events = await eventsAtHand(ctx, webhookEventsNeeded(ctx)).then(
      () => undefined,
      (error: unknown) => error,
    );
    await ctx.state.releasePersistent();
    const sweep: LongSweep = {};
    const participants: Array<SweepParticipant<unknown>> = [];
    let day: SweepParticipant<DayPass> | undefined;
    let hooks: SweepParticipant<FailingEndpoints> | undefined;
    if (ctx.target.capabilities.has('clock') && ctx.target.apiKey !== undefined) {
      day = await dayParticipant(ctx);
      participants.push(day);
    } else sweep.dayProblem = ctx.target.missing.clock ?? 'no sandbox clock';
    try {
      if (events !== undefined) throw events;
      hooks = await webhookParticipant(ctx);
      participants.push(hooks);
    } catch (error) {
      sweep.webhooksError = error;
    }
    if (ctx.target.capabilities.has('clock'))
      await walkClock(
        ctx,
        participants.flatMap((p) => p.steps),
      );
    if (day) sweep.day = day.result();
    if (hooks) sweep.webhooks = hooks.result();
    return sweep;
  });
}
