/**
 * The failing webhook endpoints that ride the long clock sweep: registration, event provocation and the
 * participant that walks the retry schedule (the checks that judge it live in webhooks.ts).
 */
import { randomBytes } from 'node:crypto';
import type { CheckContext } from '../core/context.js';
import type { ReceiverEndpoint } from '../wire/receiver.js';
import { eventsAtHand, webhookEventsNeeded } from './events-at-hand.js';
import type { SweepParticipant } from './support/clock-sweep.js';
import { isArray, isObject, type Json } from './support/shape.js';

/** Schedules as offsets (s) of each attempt from the first send: each delay counts from the previous attempt. */
export const SCHEDULE_A = [0, 5, 35, 635, 4_235, 25_835, 112_235];
export const SCHEDULE_B = [0, 5, 35, 335, 3_935];

export interface Registered {
  id: string;
  secret: string;
  endpoint: ReceiverEndpoint;
  body: Json;
}

export async function register(
  ctx: CheckContext,
  name: string,
  events: string[],
  behaviour: { status: number } | { statuses: number[] } = { status: 200 },
  deleteAfterCheck = true,
): Promise<Registered> {
  const receiver = await ctx.receiver();
  const endpoint = receiver.endpoint(name, behaviour);
  const secret = `whsec_conformance${randomBytes(16).toString('hex')}`;
  const created = await ctx.api('POST', '/webhooks', {
    auth: ctx.key,
    body: { url: endpoint.url, events, secret },
    label: `register ${name}`,
  });
  const body = isObject(created.json) ? created.json : {};
  const id = (body.webhookId ?? body.id) as string | undefined;
  ctx.require(
    'A-WH-001',
    created.status === 201 && typeof id === 'string',
    `POST /webhooks answered ${created.status}: ${created.text.slice(0, 200)}`,
  );
  const remove = async () => {
    await ctx.state.http.request({ method: 'DELETE', path: `/api/v1/webhooks/${id}`, auth: ctx.key }).catch(() => undefined);
  };
  if (deleteAfterCheck) ctx.defer(remove);
  else ctx.state.onFinish(remove);
  return { id, secret: typeof body.signingKey === 'string' ? body.signingKey : secret, endpoint, body };
}

/** Sandbox clock minus wall clock (ms): to judge a delivery's timestamp by the clock that stamped it. */
export async function clockOffset(ctx: CheckContext): Promise<number> {
  return (await ctx.clockNow()) - Date.now();
}

/**
 * Provokes events for a webhook: replays stored events to it when the deployment offers replay (its documented
 * route). The events come from the run's flows (eventsAtHand runs them when the selection did not).
 */
export async function provokeEvents(ctx: CheckContext, webhookId: string, count: number): Promise<string[]> {
  const ids = await eventsAtHand(ctx, count);
  const chosen = ids.slice(-count);
  const replay = await ctx.api('POST', `/webhooks/${webhookId}/replay`, {
    auth: ctx.key,
    body: { eventIds: chosen, includeDelivered: true },
    label: 'replay stored events to the endpoint',
  });
  if (replay.status !== 200 && replay.status !== 202)
    ctx.skip(
      `the deployment offers no event replay to an endpoint (POST /webhooks/{id}/replay answered ${replay.status}); the schedule needs fresh events`,
    );
  return chosen;
}

export function describeState(state: unknown): string {
  return isObject(state) ? `active=${String(state.active)} status=${String(state.status)}` : 'not listed';
}

export async function webhookState(ctx: CheckContext, id: string): Promise<Json | undefined> {
  const list = await ctx.api('GET', '/webhooks', { auth: ctx.key, query: { limit: 100 }, label: 'webhook state' });
  const items = isObject(list.json) && isArray(list.json.data) ? list.json.data : isArray(list.json) ? list.json : [];
  return items.filter(isObject).find((w) => w.webhookId === id || w.id === id);
}

export interface FailingEndpoints {
  retries: { endpoint: ReceiverEndpoint; eventId: string; useClock: boolean };
  /** The endpoint that should end paused (A) or disabled (B), with its state after the sweep. */
  stopping?: Registered;
  stoppedState?: Json | undefined;
}

/**
 * Failing endpoints for the schedule, pause and disable checks, set up now and observed at each offset of the
 * retry schedule: they join the run's one long walk of the sandbox clock (see long-sweep.ts).
 */
export async function webhookParticipant(ctx: CheckContext): Promise<SweepParticipant<FailingEndpoints>> {
  const schedule = ctx.profile === 'A' ? SCHEDULE_A : SCHEDULE_B;
  const useClock = ctx.target.capabilities.has('clock');
  // First answers a redirect (a failure too), then 500s.
  // The events to replay exist already (longSweep makes sure, before these endpoints exist: a flow run while they
  // are registered would send them deliveries of its own, which start schedules the checks know nothing of).
  const retries = await register(ctx, 'retries', ['*'], { statuses: [302, 500] }, false);
  const stopping = useClock ? await register(ctx, ctx.profile === 'A' ? 'pause' : 'disable', ['*'], { status: 500 }, false) : undefined;
  const [eventId] = await provokeEvents(ctx, retries.id, 1);
  if (stopping) await provokeEvents(ctx, stopping.id, webhookEventsNeeded(ctx));
  const result: FailingEndpoints = { retries: { endpoint: retries.endpoint, eventId: eventId!, useClock } };
  if (!useClock) {
    // Real time: the first two retries (35 s); the rest of the schedule takes a day.
    await retries.endpoint.waitFor(3, 45_000);
    return { steps: [], result: () => result };
  }
  await retries.endpoint.waitFor(1, 5_000);
  return {
    steps: [
      ...schedule.slice(1).map((at, i) => ({ at, run: async () => void (await retries.endpoint.waitFor(i + 2, 3_000)) })),
      {
        // Ten minutes past the last attempt: nothing more may come, and the endpoint has stopped.
        at: schedule.at(-1)! + 600,
        run: async () => {
          await ctx.sleep(200);
          result.stopping = stopping;
          result.stoppedState = await webhookState(ctx, stopping!.id);
        },
      },
    ],
    result: () => result,
  };
}
