import { ApiRequestError } from '../../src/clients/rest-client.js';
import type { ScenarioContext } from '../core/context.js';
import { expectEqual, ScenarioFailure } from '../core/errors.js';
import { sleep } from '../core/eventually.js';
import { defineScenario } from '../core/scenario.js';
import type { ExpectedTimeline } from '../observe/timeline.js';
import { advanceClock, advanceClockTo, after, chainUntouched, check, expectOrder, order, quote, waitUntil } from '../steps/index.js';
import { refunded, settled } from './timelines.js';

export const watched = {
  streams: { live: { topics: ['orders:*'] } },
  webhooks: { hook: { events: ['order.*', 'compliance.event'] } },
} as const;

/** Sets a fault switch through the sandbox API (`sandbox fault set` does the same); its id is kept as `fault`. */
export function setFault(title: string, body: Record<string, unknown>) {
  return check(`set the fault switch: ${title}`, async (context) => {
    const fault = await context.rest.request<{ id: string }>('POST', '/api/v1/sandbox/faults', body);
    context.values.set('fault', fault.id);
    return fault.id;
  });
}

/** The reference solvers read the switches once a second; the ones this runner owns are told to read them now. */
export const solversReadSwitches = check('the reference solvers read the switch', async (context) => {
  const owned = context.target.solvers ?? [];
  if (owned.length === 0) await sleep(1_100);
  for (const solver of owned) await solver.refreshFaults();
});

export const firedCount = async (context: ScenarioContext) =>
  (await context.rest.request<{ fired: number }>('GET', `/api/v1/sandbox/faults/${context.value<string>('fault')}`)).fired;

export const status = async (context: ScenarioContext, name: string) => (await context.rest.getOrder(context.order(name).orderId)).status;

export const stagesOf = async (context: ScenarioContext, name: string) =>
  (
    await context.rest.request<{ timeline: { stage: string }[] }>(
      'GET',
      `/api/v1/workspaces/${context.workspace.workspaceId}/settlements/${context.order(name).orderId}`,
    )
  ).timeline.map((stage) => stage.stage);

/** A timeline with the fault's stages and ledger entries where the switch acted (after the fill). */
export function withFault(
  base: (context: ScenarioContext) => ExpectedTimeline,
  fault: { stages: string[]; ledger: string[] },
): (context: ScenarioContext) => ExpectedTimeline {
  return (context) => {
    const timeline = base(context);
    const stages = [...(timeline.stages ?? [])];
    stages.splice(stages.indexOf('filled') + 1, 0, ...fault.stages);
    const ledger = [...(timeline.ledger ?? [])];
    const filled = ledger.indexOf('order.transition:Filled');
    ledger.splice(filled < 0 ? ledger.length : filled + 1, 0, ...fault.ledger);
    return { ...timeline, stages, ledger };
  };
}

/** The attestation relay is held: the order stays Filled for as long as it is held, then settles once released. */
export const faultRelayHold = defineScenario({
  name: 'fault-relay-hold',
  title: 'A held attestation relay keeps the order Filled until `sandbox relay release`; then it settles, once',
  tags: ['fault', 'relay', 'clock'],
  requires: { testClock: true, faultSwitches: true },
  actors: { takers: ['alice'], ...watched },
  steps: [
    setFault('hold the next attestation relay', { kind: 'relay.hold', relay: 'attestation', count: 1 }),
    quote('q', { taker: 'alice' }),
    order('o', { quote: 'q' }),
    waitUntil('the order is Filled and its attestation is held', async (context) =>
      (await status(context, 'o')) === 'Filled' && (await stagesOf(context, 'o')).includes('fault.held') ? 'held' : undefined,
    ),
    advanceClock('10m'),
    check('still Filled: nothing was sent', async (context) => {
      expectEqual(await status(context, 'o'), 'Filled', 'status while held');
    }),
    check('release the held relay', async (context) => {
      const { released } = await context.rest.request<{ released: unknown[] }>('POST', '/api/v1/sandbox/relays/release', {
        orderId: context.order('o').orderId,
      });
      expectEqual(released.length, 1, 'relays released');
      return '1 relay released';
    }),
    expectOrder('o', withFault(settled('o'), { stages: ['fault.held', 'fault.released'], ledger: ['fault.fired', 'fault.released'] })),
  ],
});

/** The oracle never attests: the solver's fill is never proven, and the taker is refunded at expiry. */
export const faultOracleWithhold = defineScenario({
  name: 'fault-oracle-withhold',
  title: 'A withheld attestation leaves the fill unproven; the escrow refunds the taker at expiry + 1 s',
  tags: ['fault', 'oracle', 'refund', 'clock'],
  requires: { testClock: true, faultSwitches: true },
  actors: { takers: ['alice'], ...watched },
  steps: [
    setFault('the oracle withholds every attestation', { kind: 'oracle.withhold', count: 1 }),
    quote('q', { taker: 'alice' }),
    order('o', { quote: 'q' }),
    waitUntil('the order is Filled and its attestation dropped', async (context) =>
      (await status(context, 'o')) === 'Filled' && (await stagesOf(context, 'o')).includes('fault.dropped') ? 'dropped' : undefined,
    ),
    advanceClockTo('2 s past expiry', after('q', 'expires', 2)),
    expectOrder('o', (context) => {
      const base = refunded('o', { filledLate: true })(context);
      // The fill was on time; it was never attested. The timeline shows the fill and the dropped attestation.
      return {
        ...base,
        stages: ['rfq', 'deposited', 'filled', 'fault.dropped', 'refunded'],
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

/** `POST /quotes` is under maintenance for one request: the taker's first try gets 503 maintenance, the retry works. */
export const faultServiceMaintenance = defineScenario({
  name: 'fault-service-maintenance',
  title: 'A route under maintenance answers 503 `maintenance` for its count; the retry quotes and the order settles',
  tags: ['fault', 'service'],
  requires: { testClock: true, faultSwitches: true },
  actors: { takers: ['alice'], ...watched },
  steps: [
    setFault('POST /api/v1/quotes under maintenance for one request', {
      kind: 'service.maintenance',
      route: 'POST /api/v1/quotes',
      count: 1,
    }),
    check('the first quote request answers 503 maintenance', async (context) => {
      try {
        await context.rest.request('POST', '/api/v1/quotes', {
          originChainId: context.chain(0).chainId,
          destinationChainId: context.chain(1).chainId,
          inputToken: context.chain(0).tokens[0]!.address,
          outputToken: context.chain(1).tokens[0]!.address,
          inputAmount: '20000000000',
        });
      } catch (error) {
        if (error instanceof ApiRequestError && error.status === 503 && error.code === 'maintenance') return '503 maintenance';
        throw error;
      }
      throw new ScenarioFailure('the quote request under maintenance was answered normally');
    }),
    quote('q', { taker: 'alice' }),
    order('o', { quote: 'q' }),
    expectOrder('o', settled('o')),
  ],
});

/** The oracle attests 10 min of clock time late: Filled through 9 min, settled once the delay has passed. */
export const faultOracleLate = defineScenario({
  name: 'fault-oracle-late',
  title: 'A late oracle: the order stays Filled until the delay of clock time has passed, then settles once',
  tags: ['fault', 'oracle', 'clock'],
  requires: { testClock: true, faultSwitches: true },
  actors: { takers: ['alice'], ...watched },
  steps: [
    setFault('the next attestation 10 min late', { kind: 'oracle.late', delay: '10m', count: 1 }),
    quote('q', { taker: 'alice' }),
    order('o', { quote: 'q' }),
    waitUntil('the order is Filled and its attestation delayed', async (context) =>
      (await status(context, 'o')) === 'Filled' && (await stagesOf(context, 'o')).includes('fault.delayed') ? 'delayed' : undefined,
    ),
    advanceClock('9m'),
    check('still Filled 9 min later', async (context) => {
      expectEqual(await status(context, 'o'), 'Filled', 'status before the delay has passed');
    }),
    advanceClock('1m'),
    expectOrder('o', withFault(settled('o'), { stages: ['fault.delayed'], ledger: ['fault.fired'] })),
  ],
});

/** The deposit relay is dropped: the order is refused 503 deposit_held, nothing reaches a chain; the next one settles. */
export const faultDepositDrop = defineScenario({
  name: 'fault-deposit-drop',
  title: 'A dropped deposit: POST /orders answers 503 deposit_held and nothing moves on chain; the next order settles',
  tags: ['fault', 'relay', 'deposit'],
  requires: { faultSwitches: true },
  actors: { takers: ['alice'], ...watched },
  steps: [
    setFault('drop the next deposit', { kind: 'relay.drop', relay: 'deposit', count: 1 }),
    quote('q1', { taker: 'alice' }),
    order('o1', { quote: 'q1', expectError: { status: 503, code: 'deposit_held' } }),
    waitUntil('the switch fired on the deposit', async (context) => ((await firedCount(context)) === 1 ? 'fired once' : undefined)),
    check('still nothing on chain once the relayer has decided', async (context) => {
      await chainUntouched(context, 'q1', () => new Promise((resolve) => setTimeout(resolve, 300)));
      return 'no escrow opened, no balance moved';
    }),
    quote('q2', { taker: 'alice' }),
    order('o2', { quote: 'q2' }),
    expectOrder('o2', settled('o2')),
  ],
});

/** A slow route: the answer comes its delay later, and nothing else changes. */
export const faultServiceSlow = defineScenario({
  name: 'fault-service-slow',
  title: 'A slow route answers 400 ms late, once; the lifecycle after it is unaffected',
  tags: ['fault', 'service'],
  requires: { faultSwitches: true },
  actors: { takers: ['alice'], ...watched },
  steps: [
    setFault('GET /api/v1/corridors 400 ms slow, once', { kind: 'service.slow', route: 'GET /api/v1/corridors', delay: '400ms', count: 1 }),
    check('the corridors answer at least 400 ms late', async (context) => {
      const started = performance.now();
      await context.rest.request('GET', '/api/v1/corridors');
      const ms = performance.now() - started;
      if (ms < 400) throw new ScenarioFailure(`answered after ${ms.toFixed(0)} ms, before the 400 ms delay`);
      return `${ms.toFixed(0)} ms`;
    }),
    check('the switch is spent: the next answer is prompt', async (context) => {
      expectEqual(await firedCount(context), 1, 'firings');
      const started = performance.now();
      await context.rest.request('GET', '/api/v1/corridors');
      const ms = performance.now() - started;
      if (ms >= 400) throw new ScenarioFailure(`answered after ${ms.toFixed(0)} ms with the switch spent`);
      return `${ms.toFixed(0)} ms`;
    }),
    quote('q', { taker: 'alice' }),
    order('o', { quote: 'q' }),
    expectOrder('o', settled('o')),
  ],
});

/** A solver fault: the winning reference solver never fills one order; the keeper refunds it at expiry. */
export const faultSolverNeverFill = defineScenario({
  name: 'fault-solver-never-fill',
  title: 'A solver.never-fill switch: the winner claims the firing and never fills; Refunded at expires + 1 s, the next order fills',
  tags: ['fault', 'solver', 'refund', 'clock'],
  requires: { testClock: true, faultSwitches: true },
  actors: { takers: ['alice'], ...watched },
  steps: [
    setFault('the next winning reference solver never fills', { kind: 'solver.never-fill', count: 1 }),
    solversReadSwitches,
    quote('q', { taker: 'alice' }),
    order('o', { quote: 'q' }),
    waitUntil('the winner claimed the firing', async (context) => ((await firedCount(context)) === 1 ? 'fired once' : undefined)),
    advanceClockTo('2 s past expiry', after('q', 'expires', 2)),
    expectOrder('o', (context) => {
      const base = refunded('o')(context);
      return {
        ...base,
        stages: ['rfq', 'deposited', 'fault.solver', 'refunded'],
        ledger: ['order.created', 'fault.fired', 'order.transition:Refunded', 'compliance.check:settlement_audit'],
      };
    }),
    quote('q2', { taker: 'alice' }),
    order('o2', { quote: 'q2' }),
    expectOrder('o2', settled('o2')),
  ],
});

export const faultScenarios = [
  faultRelayHold,
  faultOracleWithhold,
  faultOracleLate,
  faultDepositDrop,
  faultServiceMaintenance,
  faultServiceSlow,
  faultSolverNeverFill,
] as const;
