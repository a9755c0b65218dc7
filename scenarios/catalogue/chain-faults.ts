import { chainClient } from '../actors/chain-clients.js';
import type { ScenarioContext } from '../core/context.js';
import { defineScenario } from '../core/scenario.js';
import { advanceClock, advanceClockTo, after, check, expectOrder, order, quote, setSolvers, waitUntil } from '../steps/index.js';
import { setFault, solversReadSwitches, watched } from './faults.js';
import { refunded, settled, withSolverFault } from './timelines.js';

async function timelineOf(context: ScenarioContext, name: string) {
  const settlement = await context.rest.request<{ status: string; timeline: { stage: string; txHash?: string }[] }>(
    'GET',
    `/api/v1/workspaces/${context.workspace.workspaceId}/settlements/${context.order(name).orderId}`,
  );
  return { status: (await context.rest.getOrder(context.order(name).orderId)).status, stages: settlement.timeline };
}

/**
 * A chain reorganisation takes a processed fill away: the service finds the fork from the chain's heads, forgets the
 * fill, takes the order back to Deposited (a `reorged` stage naming the vanished transaction) and the escrow refunds
 * it at expiry. Nothing is paid for a fill the chain no longer has, and every subscriber sees one terminal event.
 */
export const faultChainReorg = defineScenario({
  name: 'fault-chain-reorg',
  title: 'A chain.reorg switch removes a processed fill: the order goes back to Deposited and refunds at expires + 1 s, once',
  tags: ['fault', 'chain', 'reorg', 'refund', 'clock'],
  requires: { testClock: true, faultSwitches: true },
  actors: { takers: ['alice'], ...watched },
  steps: [
    setFault('reorganise the next processed fill away', { kind: 'chain.reorg', count: 1 }),
    quote('q', { taker: 'alice' }),
    order('o', { quote: 'q' }),
    waitUntil('the fill was processed, reorganised away, and the order is Deposited again', async (context) => {
      const { status, stages } = await timelineOf(context, 'o');
      const names = stages.map((stage) => stage.stage);
      return status === 'Deposited' && names.includes('fault.reorg') && names.includes('reorged') ? names.join(' → ') : undefined;
    }),
    check('the reorged stage names the fill transaction, which the destination chain no longer has', async (context) => {
      const { stages } = await timelineOf(context, 'o');
      const filled = stages.find((stage) => stage.stage === 'filled');
      const reorged = stages.find((stage) => stage.stage === 'reorged');
      if (filled?.txHash === undefined || reorged?.txHash !== filled.txHash) {
        throw new Error(`the reorged stage names ${reorged?.txHash}, the fill was ${filled?.txHash}`);
      }
      const destination = context.quote('q').destination;
      const receipt = await chainClient(destination)
        .getTransactionReceipt({ hash: filled.txHash as `0x${string}` })
        .catch(() => null);
      if (receipt !== null) throw new Error(`the fill ${filled.txHash} is still on chain ${destination.chainId}`);
      return `fill ${filled.txHash.slice(0, 10)}… gone`;
    }),
    advanceClockTo('2 s past expiry', after('q', 'expires', 2)),
    expectOrder('o', (context) => {
      const base = refunded('o')(context);
      return {
        ...base,
        stages: ['rfq', 'deposited', 'filled', 'fault.reorg', 'reorged', 'refunded'],
        ledger: [
          'order.created',
          'order.transition:Filled',
          'fault.fired',
          'order.transition:Deposited',
          'order.transition:Refunded',
          'compliance.check:settlement_audit',
        ],
      };
    }),
  ],
});

/**
 * The oracle attests the fill with the wrong amount: the origin chain records a fill description that never happened,
 * the escrow will not pay the real fill against it, and the order refunds at expiry.
 */
export const faultOracleWrongAmount = defineScenario({
  name: 'fault-oracle-wrong-amount',
  title: 'An oracle.wrong-amount switch: the origin records the fill 1 % short; no claim can use it; Refunded at expires + 1 s',
  tags: ['fault', 'oracle', 'refund', 'clock'],
  requires: { testClock: true, faultSwitches: true },
  actors: { takers: ['alice'], ...watched },
  steps: [
    setFault('the oracle attests the next fill 1 % short', { kind: 'oracle.wrong-amount', count: 1 }),
    quote('q', { taker: 'alice' }),
    order('o', { quote: 'q' }),
    waitUntil('the wrong record is on the origin chain and the order is still Filled', async (context) => {
      const { status, stages } = await timelineOf(context, 'o');
      await context.observer.sync();
      const recorded = context.observer.factsOf(context.order('o').onchainOrderId).some((fact) => fact.kind === 'AttestationRecorded');
      return status === 'Filled' && recorded && stages.some((stage) => stage.stage === 'fault.oracle')
        ? 'recorded, not accepted'
        : undefined;
    }),
    advanceClockTo('2 s past expiry', after('q', 'expires', 2)),
    expectOrder('o', (context) => {
      const base = refunded('o', { filledLate: true })(context);
      return {
        ...base,
        stages: ['rfq', 'deposited', 'filled', 'fault.oracle', 'refunded'],
        chain: ['Open', 'OutputFilled', 'AttestationRecorded', 'Refunded'],
        ledger: [
          'order.created',
          'order.transition:Filled',
          'fault.fired',
          'order.transition:Refunded',
          'compliance.check:settlement_audit',
        ],
      };
    }),
  ],
});

/**
 * A compromised oracle records a fill that never happened and the colluding solver claims: the escrow pays, the taker
 * gets nothing. The invariant monitor is told to expect its `paid-for-fill` violation for this order and flags it.
 */
export const faultOracleLie = defineScenario({
  name: 'fault-oracle-lie',
  title:
    'An oracle.lie switch (with solver.never-fill): a fill that never happened is attested, the solver claims and is paid; flagged as expected',
  tags: ['fault', 'oracle', 'attack'],
  requires: { faultSwitches: true },
  actors: { takers: ['alice'], ...watched },
  steps: [
    setFault('the oracle lies about the next order', { kind: 'oracle.lie', count: 1 }),
    setFault('its solver never fills', { kind: 'solver.never-fill', count: 1 }),
    solversReadSwitches,
    check('the invariant monitor expects this order to be paid without a fill', (context) => {
      context.monitor.expectViolation(
        'paid-for-fill',
        (onchainOrderId) => context.orders.get('o')?.onchainOrderId.toLowerCase() === onchainOrderId,
        'fault-oracle-lie: a compromised oracle attested a fill that never happened',
      );
    }),
    quote('q', { taker: 'alice' }),
    order('o', { quote: 'q' }),
    expectOrder('o', (context) => {
      const base = settled('o')(context);
      return {
        ...base,
        stages: ['rfq', 'deposited', 'fault.oracle', 'fault.solver', 'claimed'],
        chain: ['Open', 'AttestationRecorded', 'Finalised'],
        ledger: ['order.created', 'fault.fired', 'fault.fired', 'order.transition:Claimed', 'compliance.check:settlement_audit'],
        balances: { input: base.balances!.input, output: 0n },
      };
    }),
    check('the harness flagged the payout without a fill as expected', (context) => {
      if (!context.monitor.flagged('paid-for-fill', context.order('o').onchainOrderId)) {
        throw new Error('the invariant monitor did not see the payout without a fill');
      }
      return 'paid-for-fill flagged as expected';
    }),
  ],
});

/**
 * The destination chain halts: the solver's fill waits in its pool and the chain's time stands still through clock
 * time; when the halt's minute is over the pool is mined and the order settles, once.
 */
export const faultChainHalt = defineScenario({
  name: 'fault-chain-halt',
  title: 'A chain.halt switch (1 min) on the destination: the fill waits unmined and the chain’s time stands still; then the order settles',
  tags: ['fault', 'chain', 'clock'],
  requires: { testClock: true, faultSwitches: true },
  actors: { takers: ['alice'], ...watched },
  steps: [
    quote('q', { taker: 'alice' }),
    check('halt the destination chain for 1 min of clock time', async (context) => {
      const destination = context.quote('q').destination;
      const head = await chainClient(destination).getBlock({ blockTag: 'latest' });
      context.values.set('head', head.number);
      const fault = await context.rest.request<{ id: string }>('POST', '/api/v1/sandbox/faults', {
        kind: 'chain.halt',
        chain: destination.chainId,
        for: '1m',
      });
      context.values.set('fault', fault.id);
      return `${destination.name} halted at block ${head.number}`;
    }),
    order('o', { quote: 'q' }),
    waitUntil('the fill waits in the halted chain’s pool', async (context) => {
      const status = (await chainClient(context.quote('q').destination).request({ method: 'txpool_status' } as never)) as {
        pending: string;
      };
      return Number(status.pending) > 0 ? `${Number(status.pending)} pending` : undefined;
    }),
    advanceClock('30s'),
    check('30 s of clock time later: no block on the halted chain, the order still Deposited', async (context) => {
      const head = await chainClient(context.quote('q').destination).getBlock({ blockTag: 'latest' });
      if (head.number !== context.value<bigint>('head')) throw new Error(`the halted chain mined block ${head.number}`);
      const { status } = await timelineOf(context, 'o');
      if (status !== 'Deposited') throw new Error(`the order is ${status}`);
      return `still block ${head.number}, Deposited`;
    }),
    advanceClock('31s'),
    expectOrder('o', settled('o')),
  ],
});

/**
 * The origin chain's node is killed mid-lifecycle and comes back from its saved state two seconds later. The solver
 * fills on the destination meanwhile; the oracle's origin leg cannot land while the node is down and is sent again;
 * the watcher reconnects and catches up; the order settles once, and the deposit is still there.
 */
export const faultChainRestart = defineScenario({
  name: 'fault-chain-restart',
  title: 'A chain.restart switch kills the origin chain’s node mid-lifecycle and brings it back 2 s later; the order settles once',
  tags: ['fault', 'chain', 'restart'],
  requires: { faultSwitches: true, scriptableSolvers: true },
  actors: { takers: ['alice'], ...watched },
  steps: [
    setSolvers({ fillDelayMs: 300 }),
    quote('q', { taker: 'alice' }),
    order('o', { quote: 'q' }),
    check('kill the origin chain’s node before the fill is attested; it comes back from its saved state 2 s later', async (context) => {
      const origin = context.quote('q').origin;
      const before = await chainClient(origin).getBlockNumber();
      const started = Date.now();
      await context.rest.request('POST', '/api/v1/sandbox/faults', { kind: 'chain.restart', chain: origin.chainId, down: '2s' });
      const after = await chainClient(origin).getBlockNumber();
      if (after < before) throw new Error(`the restarted chain is at block ${after}, it was at ${before}`);
      const { status } = await timelineOf(context, 'o');
      return `${origin.name} back at block ${after} after ${Date.now() - started} ms; the order is ${status}`;
    }),
    // The slow fill is a solver fault switch: its firing is on the order's timeline.
    expectOrder('o', withSolverFault(settled('o'))),
    setSolvers({}),
  ],
});

export const chainFaultScenarios = [faultChainReorg, faultChainHalt, faultChainRestart, faultOracleWrongAmount, faultOracleLie] as const;
