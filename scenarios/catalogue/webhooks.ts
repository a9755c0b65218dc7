import { parseDuration } from '../../src/clock/index.js';
import type { ScenarioContext } from '../core/context.js';
import { defineScenario, respond, type Step } from '../core/scenario.js';
import { expectEqual, expectThat, fail } from '../core/errors.js';
import {
  advanceClock,
  advanceClockTo,
  check,
  deliveries,
  enableWebhook,
  expectOrder,
  order,
  quote,
  replayWebhook,
  respondWith,
  waitUntil,
  webhookState,
} from '../steps/index.js';
import { settled, settledEvents } from './timelines.js';

/** Schedule A: the first send, then retries 5 s, 30 s, 10 min, 1 h, 6 h and 24 h after each failure. */
const SCHEDULE_A_OFFSETS_S = [0, 5, 35, 635, 4_235, 25_835, 112_235];
const TOLERANCE_MS = 1_000;

/** A receiver that fails three times per event, then succeeds: each retry at the schedule's offset. */
export const webhookRetries = defineScenario({
  name: 'webhook-retries-schedule',
  title: 'A receiver fails 3 times, then succeeds: retries at +5 s, +35 s, +10 min 35 s by the clock, delivered once',
  tags: ['webhooks', 'clock'],
  requires: { testClock: true },
  actors: { takers: ['alice'], webhooks: { hook: { events: ['order.*', 'compliance.event'], respond: respond.failFirst(3, 500) } } },
  steps: [
    quote('q', { taker: 'alice' }),
    order('o', { quote: 'q' }),
    expectOrder('o', { status: 'Claimed', webhooks: settledEvents('direct') }),
    waitUntil('each of the 3 events failed once', (context) => context.receiver('hook').deliveries.length >= 3),
    advanceClock('11m'),
    check('4 attempts per event at the schedule’s offsets; only the 4th answered 2xx', async (context) => {
      const receiver = context.receiver('hook');
      const lines: string[] = [];
      for (const event of receiver.events()) {
        const attempts = receiver.attemptsOf(event.id);
        expectEqual(
          attempts.map((a) => a.status),
          [500, 500, 500, 200],
          `answers to ${event.type}`,
        );
        const recorded = await deliveries(context, 'hook', event.id);
        expectEqual(
          recorded.map((d) => [d.attempt, d.succeeded]),
          [
            [1, false],
            [2, false],
            [3, false],
            [4, true],
          ],
          `attempts recorded for ${event.type}`,
        );
        const first = Date.parse(recorded[0]!.sentAt);
        const offsets = recorded.map((d) => Date.parse(d.sentAt) - first);
        offsets.forEach((offset, i) => {
          const expected = SCHEDULE_A_OFFSETS_S[i]! * 1_000;
          if (Math.abs(offset - expected) > TOLERANCE_MS)
            fail(`${event.type} attempt ${i + 1} went out at +${offset} ms; the schedule says +${expected} ms`);
        });
        expectEqual(recorded[3]!.nextAttemptAt, null, `next attempt of ${event.type} after success`);
        lines.push(`${event.type} at +${offsets.map((o) => (o / 1_000).toFixed(1)).join(' s, +')} s`);
      }
      const state = await webhookState(context, 'hook');
      expectEqual(
        { status: state.status, failureStreak: state.failureStreak, pendingMessages: state.pendingMessages },
        { status: 'active', failureStreak: 0, pendingMessages: 0 },
        'endpoint',
      );
      return lines.join('; ');
    }),
  ],
});

/** The scenario's `order.created` events, in the order the receiver first saw them (the order of first sends). */
function createdEvents(context: ScenarioContext) {
  return context
    .receiver('hook')
    .events()
    .filter((e) => e.type === 'order.created');
}

/** The attempts the service recorded for the `index`-th event, oldest first. */
async function recordedAttemptsOf(context: ScenarioContext, index: number) {
  const event = createdEvents(context)[index] ?? fail(`no event #${index + 1}`);
  return deliveries(context, 'hook', event.id);
}

/** When the `index`-th event (by first send) makes its last attempt. */
async function lastAttemptOf(context: ScenarioContext, index: number): Promise<number> {
  const recorded = await recordedAttemptsOf(context, index);
  const next = recorded[recorded.length - 1]?.nextAttemptAt ?? fail(`event #${index + 1} has no attempt pending`);
  return Date.parse(next);
}

/**
 * Moves the clock to just after the `index`-th event's last attempt. The next event's last attempt must still lie
 * ahead by more than the sandbox clock flows on its own (it ticks at wall speed) before the next step reads: else
 * that attempt goes out by itself and the state between the two exhaustions cannot be seen.
 */
function advanceToLastAttempt(index: number, next?: number): Step {
  let at = 0;
  return {
    title: `advance the clock to the last attempt of event #${index + 1}`,
    async run(context) {
      at = (await lastAttemptOf(context, index)) + 1;
      let ahead = '';
      if (next !== undefined) {
        const gap = (await lastAttemptOf(context, next)) - at;
        if (gap < EVENT_SPACING_MS / 2)
          fail(`event #${next + 1}'s last attempt is only ${gap} ms after event #${index + 1}'s: they cannot be told apart`);
        ahead = `; event #${next + 1}'s last attempt ${(gap / 1_000).toFixed(1)} s later`;
      }
      const moved = await advanceClockTo(`event #${index + 1}'s last attempt`, () => at).run(context);
      return `${moved ?? ''}${ahead}`;
    },
  };
}

/** Moves the clock to `offsetMs` after the first send of the first event (not after "now": see below). */
function advanceFromFirstSend(what: string, offsetMs: number): Step {
  let at = 0;
  return {
    title: `advance the clock to ${what}`,
    async run(context) {
      const first = (await recordedAttemptsOf(context, 0))[0] ?? fail('event #1 has no recorded attempt');
      at = Date.parse(first.sentAt) + offsetMs;
      return advanceClockTo(what, () => at).run(context);
    },
  };
}

/**
 * Clock time between the 4th and the 5th event. Every retry counts from the previous failure, so events sent a
 * second apart can end up with last attempts milliseconds apart: an advance runs the retries job by job, and when
 * one jump takes longer in real time than the gap between two events (chains moving, other timed jobs of a
 * long-lived sandbox, a loaded machine), the next event's retry is already due and goes out right behind the
 * first. The 5th exhaustion must then still be ahead when the 4th is checked, so it gets its own schedule.
 */
const EVENT_SPACING = '10m';
const EVENT_SPACING_MS = parseDuration(EVENT_SPACING);

/** Orders `o<first>` … `o<last>` of alice, each from its own quote. */
function orders(first: number, last = first): Step[] {
  const steps: Step[] = [];
  for (let i = first; i <= last; i++) steps.push(quote(`q${i}`, { taker: 'alice' }), order(`o${i}`, { quote: `q${i}` }));
  return steps;
}

/** Five events exhaust schedule A: the endpoint pauses (not after four), mail goes out, enable and replay recover. */
export const webhookExhaustion = defineScenario({
  name: 'webhook-exhaustion-pause-enable',
  title: '5 events exhaust every retry → endpoint paused and mailed; enable → delivery resumes; replay recovers the missed events',
  tags: ['webhooks', 'clock'],
  requires: { testClock: true },
  actors: { takers: ['alice'], webhooks: { hook: { events: ['order.created'], respond: respond.always(500), lossy: true } } },
  steps: [
    ...orders(1, 4),
    waitUntil('the first 4 order.created events failed once each', (context) => context.receiver('hook').deliveries.length >= 4),
    advanceClock(EVENT_SPACING),
    ...orders(5),
    waitUntil('the 5th order.created event failed once', (context) => createdEvents(context).length >= 5),
    // From event #1's first send, not from now: the real time the steps above took must not eat the 35 s between
    // event #1's 6th retry (31 h 10 min 35 s) and this check.
    advanceFromFirstSend('31 h 10 min after event #1 was first sent', parseDuration('31h10m')),
    check('6 failed attempts per event, the 7th pending; the endpoint is still active', async (context) => {
      const receiver = context.receiver('hook');
      for (const event of receiver.events()) expectEqual(receiver.attemptsOf(event.id).length, 6, `attempts of ${event.id}`);
      const state = await webhookState(context, 'hook');
      expectEqual({ status: state.status, failureStreak: state.failureStreak }, { status: 'active', failureStreak: 0 }, 'endpoint');
    }),
    advanceToLastAttempt(3, 4),
    check('4 events exhausted: still active, failure streak 4', async (context) => {
      const state = await webhookState(context, 'hook');
      expectEqual({ status: state.status, failureStreak: state.failureStreak }, { status: 'active', failureStreak: 4 }, 'endpoint');
    }),
    advanceToLastAttempt(4),
    check('the 5th exhausted event pauses the endpoint, and the mailbox says so', async (context) => {
      const state = await webhookState(context, 'hook');
      expectEqual(
        { status: state.status, active: state.active, failureStreak: state.failureStreak },
        { status: 'paused', active: false, failureStreak: 5 },
        'endpoint',
      );
      const mail = await context.rest.request<{ data: Array<Record<string, unknown>> }>('GET', '/api/v1/sandbox/mailbox');
      const webhookId = context.receiver('hook').webhookId!;
      expectThat(
        mail.data.some((m) => JSON.stringify(m).includes(webhookId)),
        `no mailbox message names ${webhookId}`,
        JSON.stringify(mail.data, null, 2),
      );
      const attempts = context.receiver('hook').deliveries.length;
      expectEqual(attempts, 35, 'attempts received (5 events × 7)');
      return `paused at ${state.stoppedAt}; mail sent`;
    }),
    ...orders(6),
    check('while paused nothing is queued for the endpoint', async (context) => {
      const created = context.order('o6').orderId;
      expectThat(
        !context
          .receiver('hook')
          .events()
          .some((e) => e.orderId === created),
        'a paused endpoint received a new event',
      );
    }),
    respondWith('hook', '200 from now on', respond.ok()),
    enableWebhook('hook'),
    ...orders(7),
    waitUntil('a new event is delivered at its first attempt', (context) => {
      const created = context.order('o7').orderId;
      const event = context
        .receiver('hook')
        .events()
        .find((e) => e.orderId === created);
      const attempts = event === undefined ? [] : context.receiver('hook').attemptsOf(event.id);
      return attempts.length === 1 && attempts[0]!.status === 200 ? 'delivered, 200' : undefined;
    }),
    replayWebhook('hook', (context) => ({ since: new Date(context.startedAt).toISOString() })),
    waitUntil('every order.created of the scenario has been acknowledged', (context) => {
      const receiver = context.receiver('hook');
      const missing = [...context.orders.values()].filter((o) => {
        const event = receiver.events().find((e) => e.orderId === o.orderId);
        return event === undefined || !receiver.attemptsOf(event.id).some((a) => a.status === 200);
      });
      return missing.length === 0 ? `${context.orders.size} events acknowledged` : undefined;
    }),
    check('replay recovered the 5 exhausted events and the one skipped while paused', (context) => {
      expectEqual(context.value<{ replayed: number }>('hook:replay').replayed, 6, 'events replayed');
    }),
    expectOrder('o7', settled('o7', { webhooks: false })),
  ],
});
