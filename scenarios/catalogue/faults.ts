import { ApiRequestError } from '../../src/clients/rest-client.js';
import type { ScenarioContext } from '../core/context.js';
import { expectEqual, ScenarioFailure } from '../core/errors.js';
import { defineScenario } from '../core/scenario.js';
import type { ExpectedTimeline } from '../observe/timeline.js';
import { advanceClock, advanceClockTo, after, check, expectOrder, order, quote, waitUntil } from '../steps/index.js';
import { refunded, settled } from './timelines.js';

const watched = {
  streams: { live: { topics: ['orders:*'] } },
  webhooks: { hook: { events: ['order.*', 'compliance.event'] } },
} as const;

/** Sets a fault switch through the sandbox API (`sandbox fault set` does the same). */
function setFault(title: string, body: Record<string, unknown>) {
  return check(`set the fault switch: ${title}`, async (context) => {
    const fault = await context.rest.request<{ id: string }>('POST', '/api/v1/sandbox/faults', body);
    return fault.id;
  });
}

const status = async (context: ScenarioContext, name: string) => (await context.rest.getOrder(context.order(name).orderId)).status;

const stagesOf = async (context: ScenarioContext, name: string) =>
  (
    await context.rest.request<{ timeline: { stage: string }[] }>(
      'GET',
      `/api/v1/workspaces/${context.workspace.workspaceId}/settlements/${context.order(name).orderId}`,
    )
  ).timeline.map((stage) => stage.stage);

/** A timeline with the fault's stages and ledger entries where the switch acted (after the fill). */
function withFault(
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

export const faultScenarios = [faultRelayHold, faultOracleWithhold, faultServiceMaintenance] as const;
