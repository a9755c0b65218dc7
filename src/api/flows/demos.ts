import type { WebhookEvent } from '../../clients/webhook-verifier.js';
import type { DeliveryAttempt } from '../../contracts/wire/webhooks.js';
import { startWebhookListener } from '../webhook-listener.js';
import { FlowError, type FlowSession, type FlowStep, openFlowSession, pause } from './flow-session.js';
import { advancePastExpiry, type PlacedOrder, placeOrder, waitForStatus, watchTimeline } from './orders.js';
import { solversReadSwitches } from './triggers.js';

/**
 * What `sandbox demo refund|attestation|retries` runs: a real flow in the sandbox's own workspace, told step by step
 * as it happens (each step a FlowStep the CLI prints at once), with the dashboard's journey of the order. The
 * sandbox is made to take the path on purpose with its own levers only: a fault switch (removed afterwards), the
 * one clock, and a local webhook endpoint that fails before it succeeds.
 */

export const DEMO_NAMES = ['refund', 'attestation', 'retries'] as const;
export type DemoName = (typeof DEMO_NAMES)[number];

export interface DemoOptions {
  /** attestation: the oracle records the fill 1 % short (`oracle.wrong-amount`) and the escrow refuses the claim. */
  lyingOracle?: boolean;
}

/** One delivery attempt of the retries demo, as the service recorded it (`GET /api/v1/webhooks/{id}/deliveries`). */
export type { DeliveryAttempt } from '../../contracts/wire/webhooks.js';

export interface DemoResult {
  demo: DemoName;
  /** What the demo showed, in one sentence. */
  outcome: string;
  orderId: string;
  /** The order's final status (`Refunded`, `Claimed`). */
  status: string;
  /** The dashboard's journey of the order. */
  dashboard: string;
  steps: readonly FlowStep[];
  /** retries: every attempt of the event, in order. */
  deliveries?: DeliveryAttempt[];
}

export function isDemoName(name: string): name is DemoName {
  return (DEMO_NAMES as readonly string[]).includes(name);
}

export async function runDemo(
  stateDir: string,
  name: DemoName,
  options: DemoOptions,
  onStep: (step: FlowStep) => void,
): Promise<DemoResult> {
  const session = await openFlowSession(stateDir, onStep);
  if (name === 'refund') return refundDemo(session);
  if (name === 'attestation') return options.lyingOracle === true ? lyingOracleDemo(session) : attestationDemo(session);
  return retriesDemo(session);
}

/** The order is placed and its journey link given at once, so the dashboard can be opened while it runs. */
async function placeAndLink(session: FlowSession): Promise<PlacedOrder> {
  const order = await placeOrder(session);
  session.step({ step: 'journey', detail: `follow it on the dashboard: ${session.journeyLink(order.orderId)}` });
  return order;
}

async function finish(session: FlowSession, demo: DemoName, order: PlacedOrder, outcome: string): Promise<DemoResult> {
  const { status } = await session.rest.getOrder(order.orderId);
  return { demo, outcome, orderId: order.orderId, status, dashboard: session.journeyLink(order.orderId), steps: session.steps };
}

/** An order no solver fills: the clock passes its expiry and the escrow refunds the taker. */
async function refundDemo(session: FlowSession): Promise<DemoResult> {
  const fault = await session.faults.set({ kind: 'solver.never-fill', count: 1 });
  session.step({ step: 'fault', detail: `the solver that wins the next order will never fill it (solver.never-fill, ${fault.id})` });
  try {
    await solversReadSwitches();
    const order = await placeAndLink(session);
    const timeline = watchTimeline(session, order.orderId);
    await timeline.until(['deposited'], 30_000);
    const detail = await session.rest.getOrder(order.orderId);
    // A moment of wall time shows nothing comes: the solver's fill would land within milliseconds.
    await pause(1_000);
    if ((await timeline.poll()).includes('filled')) throw new FlowError(`order ${order.orderId} was filled: the fault switch did not act`);
    session.step({
      step: 'no fill',
      detail: `nobody fills: the fill deadline is ${detail.fillDeadline}, the escrow may refund after ${detail.expires}`,
    });
    await advancePastExpiry(session, order);
    await timeline.until(['refunded'], 30_000);
    await waitForStatus(session, order.orderId, ['Refunded'], 10_000);
    return finish(session, 'refund', order, "no solver filled the order, so after its expiry the escrow refunded the taker's deposit");
  } finally {
    await session.faults.clear(fault.id).catch(() => undefined);
  }
}

/** An honest settlement: fill on the destination, the oracle attests it on the origin, the solver claims. */
async function attestationDemo(session: FlowSession): Promise<DemoResult> {
  const order = await placeAndLink(session);
  await watchTimeline(session, order.orderId).until(['claimed'], 30_000);
  await waitForStatus(session, order.orderId, ['Claimed'], 10_000);
  return finish(
    session,
    'attestation',
    order,
    'the oracle attested the fill on the origin chain and the escrow paid the solver against it',
  );
}

/**
 * A lying oracle the escrow refuses: the oracle records the fill 1 % short, so the record names a fill that never
 * happened; the escrow pays only against a record of the order's own output, so the solver's claim reverts and the
 * order refunds at expiry (docs/faults.md, `oracle.wrong-amount`).
 */
async function lyingOracleDemo(session: FlowSession): Promise<DemoResult> {
  const fault = await session.faults.set({ kind: 'oracle.wrong-amount', count: 1 });
  session.step({ step: 'fault', detail: `the oracle will record the next fill 1 % short (oracle.wrong-amount, ${fault.id})` });
  try {
    const order = await placeAndLink(session);
    const timeline = watchTimeline(session, order.orderId);
    await timeline.until(['fault.oracle'], 30_000);
    // The solver tries to claim at once; a moment of wall time shows the escrow refusing it.
    await pause(1_500);
    if ((await timeline.poll()).includes('claimed')) throw new FlowError(`order ${order.orderId} was claimed against the wrong record`);
    session.step({
      step: 'claim refused',
      detail: "the escrow pays only against a record of the order's own output: the solver's claim reverts, nothing is paid",
    });
    await advancePastExpiry(session, order);
    await timeline.until(['refunded'], 30_000);
    await waitForStatus(session, order.orderId, ['Refunded'], 10_000);
    return finish(session, 'attestation', order, "the oracle's wrong record was refused by the escrow; the taker was refunded at expiry");
  } finally {
    await session.faults.clear(fault.id).catch(() => undefined);
  }
}

/** How many of an event's deliveries the demo's endpoint fails before it answers 200. */
const FAILURES_BEFORE_SUCCESS = 2;

/**
 * A webhook endpoint that fails an event's first deliveries, then succeeds: the service retries on its schedule
 * (5 s, then 30 s after each failure, on the one clock), and the demo advances the clock to each retry.
 */
async function retriesDemo(session: FlowSession): Promise<DemoResult> {
  const answered = new Map<string, number>();
  const answer = (event: WebhookEvent) => {
    const before = answered.get(event.id) ?? 0;
    answered.set(event.id, before + 1);
    return before < FAILURES_BEFORE_SUCCESS ? 500 : 200;
  };
  let orderId: string | undefined;
  let settledEvent: string | undefined;
  const listener = await startWebhookListener({
    stateDir: session.stateDir,
    events: ['order.settled'],
    answer,
    onDelivery: (delivery) => {
      if (delivery.eventId === undefined || orderId === undefined || !JSON.stringify(delivery.event).includes(orderId)) return;
      settledEvent = delivery.eventId;
      session.step({
        step: 'received',
        detail: `the endpoint got ${delivery.eventType} ${delivery.eventId} (delivery ${delivery.deliveryId}) and answered ${delivery.answered}`,
      });
    },
  });
  try {
    session.step({
      step: 'endpoint',
      detail: `${listener.url} registered as ${listener.webhookId} for order.settled; it answers 500 to an event's first ${FAILURES_BEFORE_SUCCESS} deliveries, then 200`,
    });
    const order = await placeAndLink(session);
    orderId = order.orderId;
    await waitForStatus(session, order.orderId, ['Claimed'], 30_000);
    const deliveries = await followRetries(session, listener.webhookId ?? '', () => settledEvent);
    return {
      ...(await finish(
        session,
        'retries',
        order,
        `the endpoint failed ${deliveries.length - 1} attempt(s); the service retried on its schedule until attempt ${deliveries.length} succeeded`,
      )),
      deliveries,
    };
  } finally {
    await listener.close();
  }
}

/** Reports each attempt as the service records it and moves the clock to the next retry until one succeeds. */
async function followRetries(session: FlowSession, webhookId: string, eventId: () => string | undefined): Promise<DeliveryAttempt[]> {
  const attempts = async (): Promise<DeliveryAttempt[]> => {
    const id = eventId();
    if (id === undefined) return [];
    const path = `/api/v1/webhooks/${encodeURIComponent(webhookId)}/deliveries?limit=100&eventId=${encodeURIComponent(id)}`;
    const page = (await session.admin.request<{ data: DeliveryAttempt[] }>('GET', path)).data.data;
    return [...page].sort((a, b) => a.attempt - b.attempt);
  };
  const waitForAttempt = async (count: number): Promise<DeliveryAttempt[]> => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const seen = await attempts();
      if (seen.length >= count) return seen;
      if (Date.now() > deadline) throw new FlowError(`attempt ${count} of the order.settled delivery did not come within 20 s`);
      await pause(100);
    }
  };
  let seen = await waitForAttempt(1);
  for (let reported = 0; ; ) {
    for (const attempt of seen.slice(reported)) {
      session.step({
        step: `attempt ${attempt.attempt}`,
        detail:
          `${attempt.succeeded ? 'delivered' : 'failed'} (${attempt.statusCode ?? attempt.error}) at ${attempt.sentAt}` +
          (attempt.nextAttemptAt === null ? '' : `; next retry at ${attempt.nextAttemptAt}`),
      });
    }
    reported = seen.length;
    const last = seen[seen.length - 1];
    if (last === undefined || last.succeeded) return seen;
    if (last.nextAttemptAt === null) throw new FlowError(`attempt ${last.attempt} failed and the service scheduled no retry`);
    const { nowMs } = await session.clock.now();
    const seconds = Math.max(1, Math.ceil((Date.parse(last.nextAttemptAt) - nowMs) / 1000));
    session.step({ step: 'clock', detail: `advancing ${seconds} s to the retry (the service retries on the one clock)` });
    await session.clock.advance(`${seconds}s`);
    seen = await waitForAttempt(seen.length + 1);
  }
}
