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

/** When the `index`-th event (by first send) makes its last attempt. */
function lastAttemptOf(index: number) {
  return async (context: ScenarioContext): Promise<number> => {
    const events = context
      .receiver('hook')
      .events()
      .filter((e) => e.type === 'order.created');
    const event = events[index] ?? fail(`no event #${index + 1}`);
    const recorded = await deliveries(context, 'hook', event.id);
    const next = recorded[recorded.length - 1]?.nextAttemptAt ?? fail(`event #${index + 1} has no attempt pending`);
    return Date.parse(next);
  };
}

function advanceToLastAttempt(index: number): Step {
  let at = 0;
  return {
    title: `advance the clock to the last attempt of event #${index + 1}`,
    async run(context) {
      at = (await lastAttemptOf(index)(context)) + 1;
      return advanceClockTo(`event #${index + 1}'s last attempt`, () => at).run(context);
    },
  };
}

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
    ...orders(1, 5),
    waitUntil('the 5 order.created events failed once each', (context) => context.receiver('hook').deliveries.length >= 5),
    advanceClock('31h10m'),
    check('6 failed attempts per event, the 7th pending; the endpoint is still active', async (context) => {
      const receiver = context.receiver('hook');
      for (const event of receiver.events()) expectEqual(receiver.attemptsOf(event.id).length, 6, `attempts of ${event.id}`);
      const state = await webhookState(context, 'hook');
      expectEqual({ status: state.status, failureStreak: state.failureStreak }, { status: 'active', failureStreak: 0 }, 'endpoint');
    }),
    advanceToLastAttempt(3),
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
