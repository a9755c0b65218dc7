import { chainClient } from '../actors/chain-clients.js';
import type { ScenarioContext } from '../core/context.js';
import { defineScenario } from '../core/scenario.js';
import { advanceClockTo, after, check, expectOrder, order, quote, waitUntil } from '../steps/index.js';
import { refunded } from './timelines.js';

const watched = {
  streams: { live: { topics: ['orders:*'] } },
  webhooks: { hook: { events: ['order.*', 'compliance.event'] } },
} as const;

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
    check('set the fault switch: reorganise the next processed fill away', async (context) => {
      const fault = await context.rest.request<{ id: string }>('POST', '/api/v1/sandbox/faults', { kind: 'chain.reorg', count: 1 });
      context.values.set('fault', fault.id);
      return fault.id;
    }),
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

export const chainFaultScenarios = [faultChainReorg] as const;
