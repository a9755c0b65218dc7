/**
 * Reference B judged by value: the subscription filters filter, and an accepted settlement completes with events
 * that name the RFQ, quote and settlement accepted and transactions that are on their chains.
 */
import type { CheckContext } from '../../core/context.js';
import { bFilterSessions } from '../../flows/b-filters.js';
import { eventCapture, waitForEvents } from '../../flows/capture.js';
import { bFlow } from '../reference-b.js';
import { check, ONLY_B, PHASE } from '../support/define.js';
import { hasPrefix, isObject, type Json } from '../support/shape.js';
import { dedupeById, minedTransaction, sameAmount, sameHash } from './agreement.js';

const NEEDS = ['fundedAccounts', 'solvers', 'apiKey'] as const;

function mentions(event: Json, ids: ReadonlySet<string>): boolean {
  const text = JSON.stringify(event);
  for (const id of ids) if (id.length > 0 && text.includes(id)) return true;
  return false;
}

export const bValueChecks = [
  check({
    id: 'b.subscription-filters',
    title: "Subscriptions filter: settlement.* of the flow's corridor gets only settlement events, another corridor none of the flow",
    requirements: ['B-VAL-001', 'B-WS-001'],
    profiles: ONLY_B,
    tags: ['reference-b', 'ws', 'flow', 'values'],
    needs: NEEDS,
    phase: PHASE.afterFlows,
    async run(ctx: CheckContext) {
      const flow = await bFlow(ctx);
      const sessions = await bFilterSessions(ctx);
      if (!sessions.settlementsOnly || !sessions.otherCorridorOnly) ctx.fail(sessions.problem ?? 'no filtered subscription');
      const { settlementsOnly, otherCorridorOnly } = sessions;
      await settlementsOnly.next((m) => m.type === 'settlement.complete' && mentions(m, flow.ids), 5_000);
      ctx.evidence.push(settlementsOnly.evidence, otherCorridorOnly.evidence);
      const events = (messages: readonly Json[]) => messages.filter((m) => hasPrefix(m.id, 'evt_'));
      const wrongChannel = events(settlementsOnly.messages).filter((m) => !String(m.type).startsWith('settlement.'));
      ctx.expect(
        'B-VAL-001',
        wrongChannel.length === 0,
        `a settlement.* subscription received ${[...new Set(wrongChannel.map((m) => String(m.type)))].join(', ')}`,
      );
      const wrongCorridor = events(settlementsOnly.messages).filter((m) => {
        const corridor = /"corridor":"([^"]+)"/.exec(JSON.stringify(m))?.[1];
        return corridor !== undefined && corridor !== sessions.corridor;
      });
      ctx.expect('B-VAL-001', wrongCorridor.length === 0, `a subscription to ${sessions.corridor} received events of other corridors`);
      ctx.expect(
        'B-VAL-001',
        events(settlementsOnly.messages).some((m) => mentions(m, flow.ids)),
        `the settlement.* subscription of ${sessions.corridor} received nothing of the flow`,
      );
      const leaked = events(otherCorridorOnly.messages).filter((m) => mentions(m, flow.ids));
      ctx.expect(
        'B-VAL-001',
        leaked.length === 0,
        `a subscription to corridor ${sessions.otherCorridor} received the flow's ${[...new Set(leaked.map((m) => String(m.type)))].join(', ')}`,
      );
    },
  }),

  check({
    id: 'b.settlement-completes',
    title: 'An accepted settlement completes; its events name what was accepted and transactions on their chains',
    requirements: ['B-VAL-002', 'X-VAL-001', 'X-VAL-004', 'B-EVT-005'],
    profiles: ONLY_B,
    tags: ['reference-b', 'flow', 'values', 'chains'],
    needs: [...NEEDS, 'chains'],
    phase: PHASE.afterFlows,
    async run(ctx: CheckContext) {
      const flow = await bFlow(ctx);
      if (!flow.settlementId) ctx.fail('the accept answer named no settlement');
      ctx.expect(
        'B-VAL-002',
        /"(complete|completed|settled|Settled)"/.test(JSON.stringify(flow.final)),
        `GET /settlements/${flow.settlementId} did not report completion: ${JSON.stringify(flow.final).slice(0, 200)}`,
      );
      const capture = await eventCapture(ctx);
      if (!capture.ws) ctx.fail(capture.wsProblem ?? 'no event capture');
      await waitForEvents(ctx, () => capture.events().some((e) => e.type === 'settlement.complete' && mentions(e, flow.ids)), 5_000);
      ctx.evidence.push(capture.ws.evidence);
      const { unique, conflicts } = dedupeById(capture.events().filter((e) => mentions(e, flow.ids)));
      ctx.expect('X-VAL-004', conflicts.length === 0, `event ids delivered with different content: ${conflicts.join(', ')}`);
      const of = (type: string) => unique.find((e) => e.type === type);
      const object = (event: Json | undefined, field: string): Json => (event && isObject(event[field]) ? event[field] : {});
      const rfq = object(of('rfq.created'), 'rfq');
      const accepted = of('quote.accepted');
      const pending = object(of('settlement.pending'), 'settlement');
      const complete = object(of('settlement.complete'), 'settlement');
      ctx.require('B-VAL-002', of('settlement.complete') !== undefined, `no settlement.complete for ${flow.settlementId}`);
      const problems: string[] = [];
      if (rfq.id !== undefined && rfq.id !== flow.rfqId) problems.push(`rfq.created names ${String(rfq.id)}, not ${flow.rfqId}`);
      for (const received of unique.filter((e) => e.type === 'quote.received')) {
        const quote = object(received, 'quote');
        if (quote.id === flow.quoteId && quote.rfqId !== flow.rfqId)
          problems.push(`quote.received of ${flow.quoteId} names RFQ ${String(quote.rfqId)}, not ${flow.rfqId}`);
      }
      if (accepted && object(accepted, 'quote').id !== flow.quoteId)
        problems.push(`quote.accepted names quote ${String(object(accepted, 'quote').id)}, not ${flow.quoteId}`);
      for (const [type, s] of [
        ['quote.accepted', object(accepted, 'settlement')],
        ['settlement.pending', pending],
        ['settlement.complete', complete],
      ] as const)
        if (s.id !== undefined && s.id !== flow.settlementId)
          problems.push(`${type} names settlement ${String(s.id)}, not ${flow.settlementId}`);
      if (!sameHash(complete.originTxHash, pending.escrowTxHash))
        problems.push(
          `settlement.complete names originTxHash ${String(complete.originTxHash)}, settlement.pending escrowTxHash ${String(pending.escrowTxHash)}`,
        );
      const outputAmount = object(accepted, 'quote').outputAmount ?? flow.quote.outputAmount;
      if (outputAmount !== undefined && !sameAmount(complete.amount, String(outputAmount), flow.corridor.outputToken.decimals))
        problems.push(`settlement.complete says amount ${String(complete.amount)} for a quote of ${String(outputAmount)}`);
      ctx.expect('X-VAL-001', problems.length === 0, problems.join('; '));
      const escrow = await minedTransaction(ctx, pending.originChainId ?? flow.corridor.originChainId, pending.escrowTxHash);
      ctx.expect(
        'B-VAL-002',
        escrow?.status === '0x1',
        `escrowTxHash ${String(pending.escrowTxHash)} is not a successful transaction on the origin chain`,
      );
      const destination = await minedTransaction(
        ctx,
        pending.destinationChainId ?? flow.corridor.destinationChainId,
        complete.destinationTxHash,
      );
      ctx.expect(
        'B-VAL-002',
        destination?.status === '0x1',
        `destinationTxHash ${String(complete.destinationTxHash)} is not a successful transaction on the destination chain`,
      );
    },
  }),
];
