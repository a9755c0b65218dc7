import { advancePastExpiry, placeOrder, waitForStatus } from './orders.js';
import { FlowError, type FlowSession, type FlowStep, openFlowSession, pause } from './flow-session.js';

/**
 * What `sandbox trigger <event-type|flow>` runs: the real flow that makes the service emit an event, in the
 * sandbox's own workspace, so the order is on the dashboard, on the taker WebSocket and at `sandbox webhooks
 * listen` like any other. Nothing is faked: a quote is auctioned among the reference solvers, the taker signs and
 * the order settles or refunds on chain; a refund is made by the fault switch that makes the winning solver never
 * fill, and by advancing the one clock past the order's expiry.
 */

export interface TriggerResult {
  trigger: string;
  orderId: string;
  status: string;
  events: string[];
  dashboard: string;
  steps: readonly FlowStep[];
}

interface Flow {
  /** The events the flow makes the service emit, in order (Reference A names; B's projections follow them). */
  events: readonly string[];
  summary: string;
  run(session: FlowSession): Promise<TriggerResult>;
}

const SETTLED: Flow = {
  events: ['order.created', 'order.settled'],
  summary: 'an order a reference solver fills: deposit, fill, attestation, claim',
  run: async (session) => {
    const order = await placeOrder(session);
    const final = await waitForStatus(session, order.orderId, ['Claimed'], 30_000);
    return result(session, 'order.settled', order.orderId, final, ['order.created', 'order.settled']);
  },
};

const REFUNDED: Flow = {
  events: ['order.created', 'order.failed'],
  summary: 'an order its winning solver never fills: the clock passes its expiry and the keeper refunds the deposit',
  run: async (session) => {
    const fault = await session.faults.set({ kind: 'solver.never-fill', count: 1 });
    session.step({ step: 'fault', detail: `solver.never-fill set for one order (${fault.id})` });
    try {
      await solversReadSwitches();
      const order = await placeOrder(session);
      await advancePastExpiry(session, order);
      const final = await waitForStatus(session, order.orderId, ['Refunded'], 30_000);
      return result(session, 'order.refunded', order.orderId, final, ['order.created', 'order.failed']);
    } finally {
      await session.faults.clear(fault.id).catch(() => undefined);
    }
  },
};

/** The reference solvers read the fault switches once a second (src/solvers/fault-follower.ts): quote after they have. */
export function solversReadSwitches(): Promise<void> {
  return pause(1_500);
}

/** Flow names and the event types they answer to (`order.failed` is the refund's event in Reference A). */
const TRIGGERS: Record<string, Flow> = {
  'order.created': SETTLED,
  'order.settled': SETTLED,
  'order.refunded': REFUNDED,
  'order.failed': REFUNDED,
  refund: REFUNDED,
  settlement: SETTLED,
};

export function triggerNames(): string[] {
  return Object.keys(TRIGGERS);
}

export function describeTriggers(): Array<{ name: string; events: readonly string[]; summary: string }> {
  return Object.entries(TRIGGERS).map(([name, flow]) => ({ name, events: flow.events, summary: flow.summary }));
}

/** Runs the flow behind `name` (one of `triggerNames()`; the CLI refuses others as a usage error first). */
export async function runTrigger(stateDir: string, name: string, onStep: (step: FlowStep) => void): Promise<TriggerResult> {
  const flow = TRIGGERS[name];
  if (flow === undefined) throw new FlowError(`"${name}" is not a flow this sandbox can run; one of ${triggerNames().join(', ')}`);
  return flow.run(await openFlowSession(stateDir, onStep));
}

function result(session: FlowSession, trigger: string, orderId: string, status: string, events: string[]): TriggerResult {
  return { trigger, orderId, status, events, dashboard: session.journeyLink(orderId), steps: session.steps };
}
