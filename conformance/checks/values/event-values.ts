/**
 * Events judged by what they say: the order events name the order's own transactions, amounts and times, copies
 * of one event id carry one content, and a webhook delivery says what the WebSocket said for the same id.
 */
import type { CheckContext } from '../../core/context.js';
import { eventCapture, eventsOfOrder, parseDelivery, waitForEvents } from '../../flows/capture.js';
import { eventsAtHand } from '../events-at-hand.js';
import { successFlow } from '../orders.js';
import { BOTH, check, ONLY_A, PHASE } from '../support/define.js';
import { isObject, type Json } from '../support/shape.js';
import { dedupeById, disagreements, sameAmount, sameHash, sameTime, timeMs } from './agreement.js';

const NEEDS = ['fundedAccounts', 'solvers', 'apiKey'] as const;

export const eventValueChecks = [
  check({
    id: 'events.a.values',
    title: "order.created and order.settled name the order's own deadline, amount, transactions and settlement time",
    requirements: ['X-VAL-001', 'X-VAL-004', 'A-EVT-001', 'A-EVT-002'],
    profiles: ONLY_A,
    tags: ['events', 'flow', 'values'],
    needs: NEEDS,
    phase: PHASE.afterFlows,
    async run(ctx: CheckContext) {
      const flow = await successFlow(ctx, 'Permit2Escrow');
      if (flow.final.status !== 'Claimed') ctx.skip(`the order ended ${String(flow.final.status)}`);
      const capture = await eventCapture(ctx);
      if (!capture.ws) ctx.fail(capture.wsProblem ?? 'no event capture on the WebSocket');
      await waitForEvents(ctx, () => eventsOfOrder(capture.events(), flow.orderId).some((e) => e.type === 'order.settled'), 5_000);
      ctx.evidence.push(capture.ws.evidence);
      const { unique, conflicts } = dedupeById(eventsOfOrder(capture.events(), flow.orderId));
      ctx.expect('X-VAL-004', conflicts.length === 0, `event ids delivered with different content: ${conflicts.join(', ')}`);
      const created = unique.find((e) => e.type === 'order.created');
      const settled = unique.find((e) => e.type === 'order.settled');
      const decimals = flow.corridor.outputToken.decimals;
      const inDecimals = flow.corridor.inputToken.decimals;
      const amountOfOrder = (amount: unknown) =>
        sameAmount(amount, flow.final.outputAmount, decimals) || sameAmount(amount, flow.final.inputAmount, inDecimals);
      if (created && isObject(created.order)) {
        const o = created.order;
        ctx.expect('X-VAL-001', o.id === flow.orderId, `order.created names order ${String(o.id)}`);
        ctx.expect(
          'X-VAL-001',
          sameTime(o.fillDeadline, flow.order.fillDeadline),
          `order.created says fillDeadline ${String(o.fillDeadline)}, the order ${String(flow.order.fillDeadline)}`,
        );
        ctx.expect('X-VAL-001', amountOfOrder(o.amount), `order.created says amount ${String(o.amount)}, which is not the order's`);
      }
      if (settled && isObject(settled.order)) {
        const o = settled.order;
        ctx.expect(
          'X-VAL-001',
          sameHash(o.destinationTxHash, flow.final.destinationTxHash),
          `order.settled names destinationTxHash ${String(o.destinationTxHash)}, the order ${String(flow.final.destinationTxHash)}`,
        );
        ctx.expect(
          'X-VAL-001',
          sameAmount(o.amount, flow.final.outputAmount, decimals) || sameAmount(o.amount, flow.final.inputAmount, inDecimals),
          `order.settled says amount ${String(o.amount)}; the order moved ${String(flow.final.inputAmount)} for ${String(flow.final.outputAmount)}`,
        );
        ctx.expect(
          'X-VAL-001',
          sameTime(o.settledAt, flow.final.settledAt, 2_000),
          `order.settled says settledAt ${String(o.settledAt)}, the order ${String(flow.final.settledAt)}`,
        );
      }
      const createdAt = timeMs(flow.order.createdAt);
      const early = unique.filter((e) => timeMs(e.timestamp) < createdAt - 2_000);
      ctx.expect(
        'X-VAL-001',
        early.length === 0,
        `events stamped before the order existed: ${early.map((e) => `${String(e.type)} ${String(e.timestamp)}`).join(', ')}`,
      );
      const times = unique.map((e) => timeMs(e.timestamp));
      ctx.expect(
        'X-VAL-001',
        times.every((t, i) => i === 0 || !(t < times[i - 1]! - 1_000)),
        `the order's events are stamped out of order: ${unique.map((e) => `${String(e.type)} ${String(e.timestamp)}`).join(', ')}`,
      );
    },
  }),

  check({
    id: 'webhooks.deliveries-match-events',
    title: 'A webhook delivery of an event says what the WebSocket said for the same id, and names its own webhook',
    requirements: ['X-VAL-004', 'X-WH-005'],
    profiles: BOTH,
    tags: ['webhooks', 'events', 'flow', 'values'],
    needs: NEEDS,
    phase: PHASE.afterFlows + 1,
    async run(ctx: CheckContext) {
      const capture = await eventCapture(ctx);
      if (!capture.webhook) ctx.fail(capture.webhookProblem ?? 'no webhook registered');
      if (!capture.ws) ctx.skip(capture.wsProblem ?? 'no WebSocket capture to compare with');
      // Selected without the flows: they run now, and their deliveries are waited for.
      if (capture.events().length === 0) {
        await eventsAtHand(ctx, 1);
        await waitForEvents(ctx, () => capture.deliveries().length > 0, 5_000);
      }
      const onWs = new Map(capture.events().map((e) => [String(e.id), e as Json]));
      if (onWs.size === 0) ctx.skip('the run captured no events');
      await ctx.sleep(300);
      ctx.evidence.push(capture.webhook.endpoint.evidence('deliveries compared with the WebSocket'));
      const differing: string[] = [];
      const foreign: string[] = [];
      for (const delivery of capture.deliveries()) {
        const body = parseDelivery(delivery);
        if (!body || typeof body.id !== 'string') continue;
        const ws = onWs.get(body.id);
        const fields = ws === undefined ? [] : disagreements(ws, body);
        if (fields.length > 0) differing.push(`${String(body.type)} ${body.id} (${fields.join(', ')})`);
        const named = delivery.headers['x-service-webhookid'];
        if (typeof named === 'string' && named !== capture.webhook.id) foreign.push(named);
      }
      ctx.expect('X-VAL-004', differing.length === 0, `deliveries differ from the WebSocket event of the same id: ${differing.join(', ')}`);
      ctx.expect(
        'X-WH-005',
        foreign.length === 0,
        `X-Service-WebhookId names ${[...new Set(foreign)].join(', ')}, not the webhook ${capture.webhook.id}`,
      );
    },
  }),
];
