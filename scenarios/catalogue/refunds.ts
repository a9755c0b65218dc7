import { defineScenario } from '../core/scenario.js';
import { expectEqual } from '../core/errors.js';
import { advanceClockTo, after, check, expectOrder, order, quote, waitUntil } from '../steps/index.js';
import { refunded, withSolverFault } from './timelines.js';

const watched = {
  streams: { live: { topics: ['orders:*'] } },
  webhooks: { hook: { events: ['order.*', 'compliance.event'] } },
} as const;

/** The winning solver never fills: at `expires + 1 s` by the clock the keeper refunds, for every lock type. */
export const refundWhenNeverFilled = defineScenario({
  name: 'refund-solver-never-fills',
  title: 'The winning solver never fills: each lock type ends Refunded at expires + 1 s, not earlier',
  tags: ['refund', 'clock'],
  requires: { testClock: true },
  actors: {
    takers: ['alice', 'bob', 'carol'],
    ...watched,
    solvers: [{ fill: 'never' }, { fill: 'never' }, { fill: 'never' }],
  },
  steps: [
    quote('q1', { taker: 'alice', lockType: 'Permit2Escrow' }),
    order('o1', { quote: 'q1' }),
    quote('q2', { taker: 'bob', lockType: 'EIP3009Escrow' }),
    order('o2', { quote: 'q2' }),
    quote('q3', { taker: 'carol', lockType: 'ResourceLock' }),
    order('o3', { quote: 'q3' }),
    advanceClockTo('the first order’s expiry (its refund is due 1 s later)', after('q1', 'expires', 0)),
    check('every order is still Deposited at its expiry', async (context) => {
      for (const name of ['o1', 'o2', 'o3'])
        expectEqual((await context.rest.getOrder(context.order(name).orderId)).status, 'Deposited', `status of ${name}`);
      return 'Deposited ×3';
    }),
    advanceClockTo('2 s past the last order’s expiry', after('q3', 'expires', 2)),
    expectOrder('o1', withSolverFault(refunded('o1'))),
    expectOrder('o2', withSolverFault(refunded('o2'))),
    expectOrder('o3', withSolverFault(refunded('o3'))),
  ],
});

/** A solver fills after the fill deadline: the fill lands on the destination, is never attested, and the refund wins. */
export const lateFillLosesToRefund = defineScenario({
  name: 'late-fill-loses-to-refund',
  title: 'A fill after the deadline lands but is never attested; the refund wins and the taker keeps both',
  tags: ['refund', 'clock', 'solver'],
  requires: { testClock: true },
  actors: { takers: ['alice'], ...watched, solvers: [{ fill: 'late' }, { fill: 'late' }, { fill: 'late' }] },
  steps: [
    quote('q', { taker: 'alice' }),
    order('o', { quote: 'q' }),
    advanceClockTo('3 s past the fill deadline', after('q', 'fillDeadline', 3)),
    waitUntil('the late fill lands on the destination chain', async (context) => {
      await context.observer.sync();
      const fill = context.observer.factsOf(context.order('o').onchainOrderId).find((f) => f.kind === 'OutputFilled');
      return fill === undefined
        ? undefined
        : `filled at ${new Date(fill.timestamp * 1_000).toISOString()}, after the deadline ${new Date(context.quote('q').response.fillDeadline * 1_000).toISOString()}`;
    }),
    check('the late fill is not attested: the order stays Deposited', async (context) => {
      const { fillDeadline } = context.quote('q').response;
      const fill = context.observer.factsOf(context.order('o').onchainOrderId).find((f) => f.kind === 'OutputFilled')!;
      if (fill.timestamp <= fillDeadline) throw new Error(`the fill at ${fill.timestamp} is not after the deadline ${fillDeadline}`);
      expectEqual((await context.rest.getOrder(context.order('o').orderId)).status, 'Deposited', 'status after the late fill');
    }),
    advanceClockTo('2 s past expiry', after('q', 'expires', 2)),
    expectOrder('o', withSolverFault(refunded('o', { filledLate: true }))),
  ],
});
