import { getAddress } from 'viem';
import { defineScenario } from '../core/scenario.js';
import { expectEqual } from '../core/errors.js';
import { confirmDeferred, depositCredit, expectCredit } from '../steps/deferred.js';
import { advanceClockTo, after, check, order, quote, waitUntil } from '../steps/index.js';

/** Deferred-rail scenarios (docs/deferred.md): the order holds the workspace's vault credit, not the taker's funds. */
const AMOUNT = 15_000_000_000n;
const DEPOSIT = 40_000_000_000n;
const watched = {
  streams: { live: { topics: ['orders:*', 'workspace:*'] } },
  webhooks: { hook: { events: ['order.*', 'credit.updated'] } },
} as const;

async function statusOf(context: Parameters<Parameters<typeof check>[1]>[0], name: string): Promise<string> {
  return (await context.rest.getOrder(context.order(name).orderId)).status;
}

export const deferredSuccess = defineScenario({
  name: 'deferred-success',
  title: 'Deferred rail: credit deposited, the order holds it, the solver fills, an admin confirms, the vault pays the solver',
  tags: ['deferred', 'success'],
  actors: { takers: ['alice'], ...watched },
  steps: [
    depositCredit('alice', DEPOSIT),
    expectCredit('after the deposit', () => ({ available: DEPOSIT, held: 0n })),
    quote('q', { taker: 'alice', path: 'deferred', amount: AMOUNT }),
    order('o', { quote: 'q' }),
    expectCredit('held for the order', () => ({ available: DEPOSIT - AMOUNT, held: AMOUNT })),
    waitUntil('the solver fills (Filled)', async (context) => ((await statusOf(context, 'o')) === 'Filled' ? 'Filled' : undefined)),
    confirmDeferred('o'),
    waitUntil('the payout lands (Claimed)', async (context) => ((await statusOf(context, 'o')) === 'Claimed' ? 'Claimed' : undefined)),
    expectCredit('after the payout', () => ({ available: DEPOSIT - AMOUNT, held: 0n })),
    waitUntil('credit.updated arrived for deposit, hold and payout', (context) => {
      const reasons = context
        .receiver('hook')
        .events()
        .filter((e) => e.type === 'credit.updated')
        .map((e) => (e.body as { credit?: { reason?: string } }).credit?.reason);
      return ['deposit', 'hold', 'payout'].every((r) => reasons.includes(r)) ? reasons.join(', ') : undefined;
    }),
  ],
});

export const deferredRefund = defineScenario({
  name: 'deferred-refund',
  title: 'Deferred rail: nobody fills; at expires the hold is released and the credit is whole again',
  tags: ['deferred', 'refund', 'clock'],
  requires: { testClock: true },
  actors: { takers: ['alice'], ...watched, solvers: [{ fill: 'never' }, { fill: 'never' }, { fill: 'never' }] },
  steps: [
    depositCredit('alice', DEPOSIT),
    quote('q', { taker: 'alice', path: 'deferred', amount: AMOUNT }),
    order('o', { quote: 'q' }),
    expectCredit('held for the order', () => ({ available: DEPOSIT - AMOUNT, held: AMOUNT })),
    advanceClockTo('2 s past expiry', after('q', 'expires', 2)),
    waitUntil('the hold is released (Refunded)', async (context) =>
      (await statusOf(context, 'o')) === 'Refunded' ? 'Refunded' : undefined,
    ),
    expectCredit('released', () => ({ available: DEPOSIT, held: 0n })),
  ],
});

export const deferredPausedProvider = defineScenario({
  name: 'deferred-paused-lp',
  title: 'Deferred rail: a paused liquidity provider is not invited to deferred RFQs; direct RFQs go on; resumed, it is again',
  tags: ['deferred', 'admin', 'solver'],
  actors: { takers: ['alice'] },
  // It pauses one of the runner's own reference solvers by id: a target's solvers are not the runner's to know.
  requires: { scriptableSolvers: true },
  steps: [
    check('pause the first reference solver', async (context) => {
      const solverId = context.solvers[0]!.solverId;
      const state = await context.rest.request<{ paused: boolean }>('POST', `/api/v1/admin/deferred/${solverId}/pause`);
      expectEqual(state.paused, true, 'paused');
      context.values.set('paused', solverId);
      // A scenario that fails before it resumes the solver must not leave it paused on a shared sandbox.
      context.onTeardown(() => context.rest.request('POST', `/api/v1/admin/deferred/${solverId}/resume`));
      return solverId;
    }),
    quote('deferred', { taker: 'alice', path: 'deferred', amount: AMOUNT }),
    quote('direct', { taker: 'alice', path: 'direct', amount: AMOUNT }),
    check('the paused solver quoted the direct RFQ only', (context) => {
      const solverId = context.value<string>('paused');
      const deferredSolvers = context.quote('deferred').response.quotes.map((q) => q.solverId);
      const directSolvers = context.quote('direct').response.quotes.map((q) => q.solverId);
      if (deferredSolvers.includes(solverId)) throw new Error(`paused ${solverId} quoted the deferred RFQ`);
      if (!directSolvers.includes(solverId)) throw new Error(`${solverId} did not quote the direct RFQ`);
      return `deferred: ${deferredSolvers.length} quote(s) without it; direct: ${directSolvers.length}`;
    }),
    check('resume it', async (context) => {
      const solverId = context.value<string>('paused');
      const state = await context.rest.request<{ paused: boolean }>('POST', `/api/v1/admin/deferred/${solverId}/resume`);
      expectEqual(state.paused, false, 'paused');
      return getAddress(context.solvers[0]!.address);
    }),
    quote('again', { taker: 'alice', path: 'deferred', amount: AMOUNT }),
    check('resumed, it quotes deferred RFQs again', (context) => {
      const solverId = context.value<string>('paused');
      if (!context.quote('again').response.quotes.some((q) => q.solverId === solverId)) throw new Error(`${solverId} is still left out`);
      return 'invited again';
    }),
  ],
});

export const deferredScenarios = [deferredSuccess, deferredRefund, deferredPausedProvider];
