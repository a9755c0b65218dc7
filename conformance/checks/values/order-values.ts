/**
 * Orders and settlements judged by value and over time: a terminal order stays what it became, the order's
 * create answer, detail, settlement timeline and the chain name the same transactions, amounts and times.
 */
import type { CheckContext } from '../../core/context.js';
import { successFlow } from '../orders.js';
import { check, ONLY_A, PHASE } from '../support/define.js';
import { isArray, isObject, type Json } from '../support/shape.js';
import { minedTransaction, sameHash, sameTime, timeMs } from './agreement.js';

const NEEDS = ['fundedAccounts', 'solvers', 'apiKey'] as const;

/** The facts of a settled order that must never change once it is terminal. */
const FINAL_FACTS = ['status', 'originTxHash', 'destinationTxHash', 'oracleAttestationHash', 'settledAt', 'inputAmount', 'outputAmount'];

/** Chain of each timeline stage when the entry does not say: the fill happens on the destination chain. */
function stageChain(entry: Json, order: Json): unknown {
  if (typeof entry.chainId === 'number') return entry.chainId;
  return entry.stage === 'filled' ? order.destinationChainId : order.originChainId;
}

export const orderValueChecks = [
  check({
    id: 'orders.terminal-state-is-final',
    title: 'A claimed order reads the same later: same status, transactions, amounts and settledAt',
    requirements: ['X-VAL-002', 'A-ORD-009'],
    profiles: ONLY_A,
    tags: ['orders', 'flow', 'values'],
    needs: NEEDS,
    phase: PHASE.afterFlows,
    async run(ctx: CheckContext) {
      const flow = await successFlow(ctx, 'Permit2Escrow');
      if (flow.final.status !== 'Claimed') ctx.skip(`the order ended ${String(flow.final.status)}; nothing terminal to re-read`);
      for (const read of [1, 2]) {
        const response = await ctx.api('GET', `/orders/${flow.orderId}`, { label: `re-read ${read} of the claimed order` });
        const body = isObject(response.json) ? response.json : {};
        const changed = FINAL_FACTS.filter((f) => JSON.stringify(body[f]) !== JSON.stringify(flow.final[f]));
        ctx.expect(
          'X-VAL-002',
          changed.length === 0,
          `re-read ${read} of a Claimed order differs in ${changed.map((f) => `${f}: ${JSON.stringify(flow.final[f])} → ${JSON.stringify(body[f])}`).join(', ')}`,
        );
        if (read === 1) await ctx.sleep(150);
      }
    },
  }),

  check({
    id: 'orders.values-agree',
    title: "The order's create answer, detail, quote and chain agree: deadline, times, transactions mined before they are reported",
    requirements: ['X-VAL-001', 'X-VAL-003', 'A-ORD-013'],
    profiles: ONLY_A,
    tags: ['orders', 'flow', 'values', 'chains'],
    needs: [...NEEDS, 'chains'],
    phase: PHASE.afterFlows,
    async run(ctx: CheckContext) {
      const flow = await successFlow(ctx, 'Permit2Escrow');
      const final = flow.final;
      const standardOrder = isObject(flow.detail.json) && isObject(flow.detail.json.standardOrder) ? flow.detail.json.standardOrder : {};
      if (standardOrder.fillDeadline !== undefined)
        ctx.expect(
          'X-VAL-001',
          sameTime(flow.order.fillDeadline, standardOrder.fillDeadline),
          `the order's fillDeadline ${String(flow.order.fillDeadline)} is not the signed standardOrder.fillDeadline ${String(standardOrder.fillDeadline)}`,
        );
      ctx.expect(
        'X-VAL-001',
        final.originTxHash === undefined || sameHash(final.originTxHash, flow.order.originTxHash),
        `the detail names originTxHash ${String(final.originTxHash)}, the create answer ${String(flow.order.originTxHash)}`,
      );
      if (final.status !== 'Claimed') return;
      const created = timeMs(flow.order.createdAt);
      const settled = timeMs(final.settledAt);
      ctx.expect(
        'X-VAL-001',
        Number.isFinite(settled) && !(settled < created - 1_000),
        `settledAt ${String(final.settledAt)} is before createdAt ${String(flow.order.createdAt)}`,
      );
      const now = await ctx.clockNow();
      ctx.expect('X-VAL-001', !(settled > now + 60_000), `settledAt ${String(final.settledAt)} is in the future`);
      const origin = await minedTransaction(ctx, flow.corridor.originChainId, final.originTxHash);
      const destination = await minedTransaction(ctx, flow.corridor.destinationChainId, final.destinationTxHash);
      ctx.expect(
        'A-ORD-013',
        origin?.status === '0x1',
        `originTxHash ${String(final.originTxHash)} is not a successful origin transaction`,
      );
      ctx.expect(
        'A-ORD-013',
        destination?.status === '0x1',
        `destinationTxHash ${String(final.destinationTxHash)} is not a successful destination transaction`,
      );
      for (const [what, tx] of [
        ['originTxHash', origin],
        ['destinationTxHash', destination],
      ] as const) {
        if (tx && Number.isFinite(tx.blockTimeMs))
          ctx.expect(
            'X-VAL-003',
            !(settled < tx.blockTimeMs - 2_000),
            `settledAt ${String(final.settledAt)} is before the block of ${what} (${new Date(tx.blockTimeMs).toISOString()})`,
          );
      }
    },
  }),

  check({
    id: 'settlements.agree-with-order',
    title: "The settlement timeline names the order's transactions on their chains, claimed at settledAt, and stays put",
    requirements: ['X-VAL-001', 'X-VAL-002', 'X-VAL-003', 'A-STL-003'],
    profiles: ONLY_A,
    tags: ['settlements', 'flow', 'values', 'chains'],
    needs: [...NEEDS, 'workspace', 'chains'],
    phase: PHASE.afterFlows,
    async run(ctx: CheckContext) {
      const flow = await successFlow(ctx, 'Permit2Escrow');
      if (flow.final.status !== 'Claimed') ctx.skip(`the order ended ${String(flow.final.status)}`);
      const path = `/workspaces/${ctx.target.workspaceId}/settlements/${flow.orderId}`;
      const first = await ctx.api('GET', path, { auth: ctx.key, label: 'settlement' });
      ctx.require('A-STL-001', first.status === 200, `GET ${path} answered ${first.status}`);
      const settlement = isObject(first.json) ? first.json : {};
      const order: Json = {
        ...flow.final,
        originChainId: flow.corridor.originChainId,
        destinationChainId: flow.corridor.destinationChainId,
      };
      const timeline = isArray(settlement.timeline) ? settlement.timeline.filter(isObject) : [];
      const stage = (name: string) => timeline.find((e) => e.stage === name);
      const deposited = stage('deposited');
      const filled = stage('filled');
      const attested = stage('attested');
      const claimed = stage('claimed');
      if (deposited?.txHash !== undefined && deposited.txHash !== null)
        ctx.expect(
          'X-VAL-001',
          sameHash(deposited.txHash, order.originTxHash),
          `the deposited stage names ${String(deposited.txHash)}, the order originTxHash ${String(order.originTxHash)}`,
        );
      if (filled?.txHash !== undefined && filled.txHash !== null)
        ctx.expect(
          'X-VAL-001',
          sameHash(filled.txHash, order.destinationTxHash),
          `the filled stage names ${String(filled.txHash)}, the order destinationTxHash ${String(order.destinationTxHash)}`,
        );
      if (attested && typeof order.oracleAttestationHash === 'string')
        ctx.expect(
          'X-VAL-001',
          sameHash(attested.txHash, order.oracleAttestationHash) || sameHash(attested.oracleHash, order.oracleAttestationHash),
          `the attested stage names neither the order's oracleAttestationHash ${order.oracleAttestationHash}`,
        );
      ctx.expect(
        'X-VAL-001',
        claimed !== undefined && sameTime(claimed.at, order.settledAt, 2_000),
        `the claimed stage is at ${String(claimed?.at)}, the order settled at ${String(order.settledAt)}`,
      );
      for (const entry of timeline) {
        if (typeof entry.txHash !== 'string') continue;
        const mined = await minedTransaction(ctx, stageChain(entry, order), entry.txHash);
        ctx.expect(
          'X-VAL-003',
          mined?.status === '0x1',
          `the ${String(entry.stage)} stage names ${entry.txHash}, not a successful transaction on chain ${String(stageChain(entry, order))}`,
        );
        if (mined && Number.isFinite(mined.blockTimeMs))
          ctx.expect(
            'X-VAL-003',
            !(timeMs(entry.at) < mined.blockTimeMs - 2_000),
            `the ${String(entry.stage)} stage is at ${String(entry.at)}, before its transaction was mined (${new Date(mined.blockTimeMs).toISOString()})`,
          );
      }
      const again = await ctx.api('GET', path, { auth: ctx.key, label: 'the settlement re-read' });
      const later = isObject(again.json) ? again.json : {};
      ctx.expect(
        'X-VAL-002',
        settlement.state === 'Settled' && later.state === 'Settled',
        `the settlement of a Claimed order reads ${String(settlement.state)}, then ${String(later.state)}`,
      );
      ctx.expect(
        'X-VAL-002',
        later.state === settlement.state && JSON.stringify(later.timeline) === JSON.stringify(settlement.timeline),
        `a Settled settlement changed between two reads: ${String(settlement.state)} → ${String(later.state)}`,
      );
    },
  }),
];
