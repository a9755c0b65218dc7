import { type EventType, isEventOfType } from '../../src/contracts/event-types.js';
import type { CheckContext } from '../core/context.js';
import { eventCapture, eventsOfOrder, parseDelivery, waitForEvents, type EventCapture } from '../flows/capture.js';
import type { WsMessage } from '../wire/ws.js';
import { dedupeById } from './values/agreement.js';
import { check, ONLY_A, ONLY_B, PHASE } from './support/define.js';
import { refundFlow, successFlow } from './orders.js';
import { bFlow, bRefundFlow } from './reference-b.js';
import {
  fieldProblems,
  hasPrefix,
  isDecimalString,
  isFiniteNumber,
  isHexBytes,
  isIsoTime,
  isNonEmptyString,
  isObject,
  isUnixSeconds,
  type Json,
} from './support/shape.js';

const A_NEEDS = ['fundedAccounts', 'solvers', 'apiKey'] as const;

/** Every event the run captured on either channel, de-duplicated by id (webhooks may redeliver). */
function capturedEvents(capture: EventCapture): Json[] {
  const byId = new Map<string, Json>();
  for (const event of capture.events()) byId.set(String(event.id), event);
  for (const delivery of capture.deliveries()) {
    const body = parseDelivery(delivery);
    if (body && typeof body.id === 'string' && !byId.has(body.id)) byId.set(body.id, body);
  }
  return [...byId.values()];
}

function envelopeProblems(event: Json): { id: string[]; timestamp: string[] } {
  return {
    id: [
      ...(isNonEmptyString(event.type) ? [] : [`an event has no type: ${JSON.stringify(event).slice(0, 80)}`]),
      ...(hasPrefix(event.id, 'evt_') ? [] : [`${String(event.type)} has id ${JSON.stringify(event.id)} without the evt_ prefix`]),
    ],
    timestamp: isIsoTime(event.timestamp) ? [] : [`${String(event.type)} ${String(event.id)} has no ISO timestamp`],
  };
}

const ORDER_CREATED_FIELDS = [
  ['id', isNonEmptyString, 'the order id'],
  ['pair', isNonEmptyString, 'a pair'],
  ['side', isNonEmptyString, 'a side'],
  ['amount', isDecimalString, 'a decimal string'],
  ['corridor', isNonEmptyString, 'a corridor id'],
  ['fillDeadline', isUnixSeconds, 'Unix seconds (number)'],
  ['status', isNonEmptyString, 'a status'],
] as const;
const ORDER_SETTLED_FIELDS = [
  ['id', isNonEmptyString, 'the order id'],
  ['originTxHash', isHexBytes, 'a hash'],
  ['destinationTxHash', isHexBytes, 'a hash'],
  ['amount', isDecimalString, 'an amount'],
  ['settledAt', isNonEmptyString, 'a time'],
] as const;
const COMPLIANCE_FIELDS = [
  ['orderId', isNonEmptyString, 'the order id'],
  ['checkType', isNonEmptyString, 'a check type'],
  ['result', isNonEmptyString, 'a result'],
  ['hash', isHexBytes, 'a hash'],
  ['prevHash', isHexBytes, 'a hash'],
] as const;

/** Order-event types of one order in arrival order on the WebSocket (the channel that keeps order). */
function typesOf(events: readonly WsMessage[]): string[] {
  return events.map((e) => String(e.type));
}

/** A's sequence: order.created first, then the terminal event, then a compliance.event after it; one terminal. */
function expectASequence(
  ctx: CheckContext,
  events: readonly WsMessage[],
  terminal: Extract<EventType, 'order.settled' | 'order.failed'>,
  requirementId: string,
): void {
  const types = typesOf(events);
  ctx.note(`events: ${types.join(', ')}`);
  const orderTypes = types.filter((t) => t.startsWith('order.'));
  ctx.expect(requirementId, orderTypes[0] === 'order.created', `the first order event is ${String(orderTypes[0])}, not order.created`);
  const terminals = orderTypes.filter((t) => t === 'order.settled' || t === 'order.failed');
  ctx.expect(
    requirementId,
    terminals.length === 1 && terminals[0] === terminal,
    `terminal events: ${terminals.join(', ') || 'none'}; expected exactly one ${terminal}`,
  );
  const terminalAt = types.indexOf(terminal);
  ctx.expect(
    requirementId,
    terminalAt >= 0 && types.slice(terminalAt + 1).includes('compliance.event'),
    `no compliance.event after ${terminal}`,
  );
}

async function orderEvents(ctx: CheckContext, orderId: string, terminal: EventType): Promise<WsMessage[]> {
  const capture = await eventCapture(ctx);
  if (!capture.ws) ctx.fail(capture.wsProblem ?? 'no event capture on the WebSocket');
  await waitForEvents(
    ctx,
    () => {
      const types = typesOf(eventsOfOrder(capture.events(), orderId));
      const at = types.indexOf(terminal);
      return at >= 0 && types.slice(at + 1).includes('compliance.event');
    },
    5_000,
  );
  ctx.evidence.push(capture.ws.evidence);
  return eventsOfOrder(capture.events(), orderId);
}

function namesAnOrder(event: WsMessage): boolean {
  return (
    (isObject(event.order) && typeof event.order.id === 'string') ||
    (isObject(event.compliance) && typeof event.compliance.orderId === 'string') ||
    typeof event.orderId === 'string'
  );
}

/** The WebSocket is best effort and may deliver an event twice: consumers de-duplicate by id, and so do the checks. */
function uniqueEvents(events: readonly WsMessage[]): WsMessage[] {
  return dedupeById(events).unique;
}

export const eventChecks = [
  check({
    id: 'events.a.success-sequence',
    title: 'A settled order emits order.created, order.settled, then compliance.event (WebSocket orders:*)',
    requirements: ['A-EVT-004', 'A-WS-002', 'X-EVT-001', 'X-EVT-002'],
    profiles: ONLY_A,
    tags: ['events', 'flow', 'ws'],
    needs: A_NEEDS,
    phase: PHASE.flows,
    async run(ctx: CheckContext) {
      const flow = await successFlow(ctx, 'Permit2Escrow');
      if (flow.final.status !== 'Claimed') ctx.fail(`the order ended ${String(flow.final.status)}; no success sequence to see`);
      const delivered = await orderEvents(ctx, flow.orderId, 'order.settled');
      const { unique: events, conflicts } = dedupeById(delivered);
      ctx.expect('A-WS-002', events.length > 0, `orders:* delivered no event of order ${flow.orderId}`);
      expectASequence(ctx, events, 'order.settled', 'A-EVT-004');
      for (const event of events) {
        const problems = envelopeProblems(event);
        ctx.expect('X-EVT-001', problems.id.length === 0, problems.id.join('; '));
        ctx.expect('X-EVT-002', problems.timestamp.length === 0, problems.timestamp.join('; '));
      }
      // A repeated id is allowed (best effort, de-duplicate by id); one id naming two different events is not.
      ctx.expect('X-EVT-001', conflicts.length === 0, `one id names different events: ${conflicts.join(', ')}`);
    },
  }),

  check({
    id: 'events.a.order-topic',
    title: "orders:{orderId} delivers that order's events and no other order's",
    requirements: ['A-WS-002'],
    profiles: ONLY_A,
    tags: ['events', 'flow', 'ws'],
    needs: A_NEEDS,
    phase: PHASE.afterFlows,
    async run(ctx: CheckContext) {
      const flow = await successFlow(ctx, 'Permit2Escrow');
      const session = flow.topicSession;
      if (!session) ctx.fail(`subscribing to orders:${flow.orderId} failed`);
      ctx.evidence.push(session.evidence);
      // The flow saw Claimed through the REST API; the topic's order.settled may still be on its way (real-time
      // delivery is best effort, sub-second): give it a few seconds before judging.
      await session.next((m) => isEventOfType(m, 'order.settled') && eventsOfOrder([m], flow.orderId).length > 0, 5_000);
      const events = session.messages.filter((m) => hasPrefix(m.id, 'evt_'));
      const mine = eventsOfOrder(events, flow.orderId);
      if (flow.statusAtSubscribe === 'Claimed')
        ctx.note(`the order was already Claimed when the subscription was acknowledged: order.settled came before it`);
      else
        ctx.expect(
          'A-WS-002',
          mine.some((e) => isEventOfType(e, 'order.settled')),
          `orders:${flow.orderId} did not deliver order.settled (status ${flow.statusAtSubscribe ?? 'unknown'} when subscribed)`,
        );
      // Events that name no order (unknown types a deployment may add) are not another order's.
      const others = events.filter((e) => !mine.includes(e) && namesAnOrder(e));
      ctx.expect('A-WS-002', others.length === 0, `orders:${flow.orderId} delivered ${others.length} events of other orders`);
    },
  }),

  check({
    id: 'events.a.payloads',
    title: "order.created, order.settled and compliance.event carry the spec's payload fields",
    requirements: ['A-EVT-001', 'A-EVT-002', 'A-EVT-003', 'X-LED-001'],
    profiles: ONLY_A,
    tags: ['events', 'flow'],
    needs: A_NEEDS,
    phase: PHASE.flows,
    async run(ctx: CheckContext) {
      const flow = await successFlow(ctx, 'Permit2Escrow');
      const events = uniqueEvents(await orderEvents(ctx, flow.orderId, 'order.settled'));
      const created = events.find((e) => isEventOfType(e, 'order.created'));
      const settled = events.find((e) => isEventOfType(e, 'order.settled'));
      const compliance = events.filter((e) => isEventOfType(e, 'compliance.event'));
      ctx.require('A-EVT-001', created !== undefined, 'no order.created for the order');
      const createdProblems = fieldProblems(created.order, ORDER_CREATED_FIELDS, 'order.created.order');
      ctx.expect('A-EVT-001', createdProblems.length === 0, createdProblems.join('; '));
      if (isObject(created.order))
        ctx.expect(
          'A-EVT-001',
          created.order.corridor === flow.corridor.id,
          `order.created names corridor ${String(created.order.corridor)}`,
        );
      if (settled) {
        const problems = fieldProblems(settled.order, ORDER_SETTLED_FIELDS, 'order.settled.order');
        ctx.expect('A-EVT-002', problems.length === 0, problems.join('; '));
        if (isObject(settled.order)) {
          ctx.expect(
            'A-EVT-002',
            String(settled.order.originTxHash).toLowerCase() === String(flow.order.originTxHash).toLowerCase(),
            'order.settled names another originTxHash than the order',
          );
        }
      } else ctx.expect('A-EVT-002', false, 'no order.settled for the order');
      ctx.expect('A-EVT-003', compliance.length > 0, 'no compliance.event for the order');
      for (const event of compliance) {
        const problems = fieldProblems(event.compliance, COMPLIANCE_FIELDS, 'compliance.event.compliance');
        ctx.expect('A-EVT-003', problems.length === 0, problems.join('; '));
        if (isObject(event.compliance))
          ctx.expect('X-LED-001', event.compliance.hash !== event.compliance.prevHash, 'a ledger entry names itself as its previous hash');
      }
    },
  }),

  check({
    id: 'events.a.failure-sequence',
    title: 'A refunded order emits order.created, order.failed, then compliance.event',
    requirements: ['A-EVT-005', 'X-EVT-001'],
    profiles: ONLY_A,
    tags: ['events', 'flow', 'timing', 'refund'],
    needs: A_NEEDS,
    needsAnyOf: ['clock', 'long'],
    phase: PHASE.timing,
    timeoutMs: 120_000,
    async run(ctx: CheckContext) {
      const flow = await refundFlow(ctx);
      if (flow.final.status !== 'Refunded') ctx.fail(`the order ended ${String(flow.final.status)}; no failure sequence to see`);
      const events = uniqueEvents(await orderEvents(ctx, flow.orderId, 'order.failed'));
      expectASequence(ctx, events, 'order.failed', 'A-EVT-005');
      for (const event of events) ctx.expect('X-EVT-001', envelopeProblems(event).id.length === 0, envelopeProblems(event).id.join('; '));
    },
  }),

  check({
    id: 'events.b.success-sequence',
    title: 'B success: rfq.created, quote.received (≥1), quote.accepted, settlement.pending, settlement.complete, audit.recorded',
    requirements: ['B-EVT-008', 'X-EVT-001', 'X-EVT-002'],
    profiles: ONLY_B,
    tags: ['events', 'flow', 'reference-b'],
    needs: A_NEEDS,
    phase: PHASE.flows,
    async run(ctx: CheckContext) {
      const flow = await bFlow(ctx);
      const capture = await eventCapture(ctx);
      await waitForEvents(
        ctx,
        () =>
          capturedEvents(capture).some((e) => isEventOfType(e, 'audit.recorded') && relatesTo(e, flow.ids)) &&
          capturedEvents(capture).some((e) => isEventOfType(e, 'settlement.complete') && relatesTo(e, flow.ids)),
        5_000,
      );
      if (capture.ws) ctx.evidence.push(capture.ws.evidence);
      const events = uniqueEvents(capture.ws ? capture.events() : capturedEvents(capture)).filter((e) => relatesTo(e, flow.ids));
      const types = events.map((e) => String(e.type));
      ctx.note(`events: ${types.join(', ')}`);
      const order: EventType[] = [
        'rfq.created',
        'quote.received',
        'quote.accepted',
        'settlement.pending',
        'settlement.complete',
        'audit.recorded',
      ];
      const firstAt = order.map((t) => types.indexOf(t));
      ctx.expect(
        'B-EVT-008',
        firstAt.every((i) => i >= 0),
        `missing: ${order.filter((_, i) => firstAt[i]! < 0).join(', ')}`,
      );
      ctx.expect(
        'B-EVT-008',
        firstAt.every((at, i) => i === 0 || at < 0 || firstAt[i - 1]! < 0 || at > firstAt[i - 1]!),
        `out of order: ${types.join(', ')}`,
      );
      ctx.expect(
        'B-EVT-008',
        types.lastIndexOf('audit.recorded') > types.indexOf('settlement.complete'),
        'no audit.recorded after settlement.complete',
      );
      for (const event of events) {
        const problems = envelopeProblems(event);
        ctx.expect('X-EVT-001', problems.id.length === 0, problems.id.join('; '));
        ctx.expect('X-EVT-002', problems.timestamp.length === 0, problems.timestamp.join('; '));
      }
    },
  }),

  check({
    id: 'events.b.payloads',
    title: 'The seven Reference B events carry their payload fields',
    requirements: ['B-EVT-001', 'B-EVT-002', 'B-EVT-003', 'B-EVT-004', 'B-EVT-005', 'B-EVT-007', 'X-LED-001'],
    profiles: ONLY_B,
    tags: ['events', 'flow', 'reference-b'],
    needs: A_NEEDS,
    phase: PHASE.flows,
    async run(ctx: CheckContext) {
      const flow = await bFlow(ctx);
      const capture = await eventCapture(ctx);
      const events = capturedEvents(capture).filter((e) => relatesTo(e, flow.ids));
      const of = (type: EventType) => events.find((e) => isEventOfType(e, type));
      const expectFields = (
        type: EventType,
        requirementId: string,
        object: string,
        fields: ReadonlyArray<readonly [string, (v: unknown) => boolean, string]>,
      ) => {
        const event = of(type);
        if (!event) {
          ctx.expect(requirementId, false, `no ${type} event`);
          return;
        }
        const problems = fieldProblems(event[object], fields, `${type}.${object}`);
        ctx.expect(requirementId, problems.length === 0, problems.join('; '));
      };
      const any = (v: unknown) => v !== undefined;
      expectFields('rfq.created', 'B-EVT-001', 'rfq', [
        ['id', (v) => hasPrefix(v, 'rfq_'), 'an rfq_ id'],
        ['pair', isNonEmptyString, 'a pair'],
        ['side', isNonEmptyString, 'a side'],
        ['amount', isNonEmptyString, 'an amount'],
        ['corridor', isNonEmptyString, 'a corridor'],
        ['deadline', isUnixSeconds, 'Unix seconds'],
        ['complianceAttestation', any, 'present'],
      ]);
      expectFields('quote.received', 'B-EVT-002', 'quote', [
        ['id', isNonEmptyString, 'an id'],
        ['rfqId', isNonEmptyString, 'an rfq id'],
        ['price', isDecimalString, 'a decimal string'],
        ['solverId', isNonEmptyString, 'a solver id'],
        ['ttl', isFiniteNumber, 'a number'],
        ['confidence', isFiniteNumber, 'a number'],
      ]);
      expectFields('quote.accepted', 'B-EVT-003', 'quote', [
        ['id', isNonEmptyString, 'an id'],
        ['price', isNonEmptyString, 'a price'],
      ]);
      expectFields('quote.accepted', 'B-EVT-003', 'settlement', [
        ['id', isNonEmptyString, 'an id'],
        ['status', isNonEmptyString, 'a status'],
      ]);
      expectFields('settlement.pending', 'B-EVT-004', 'settlement', [
        ['id', isNonEmptyString, 'an id'],
        ['escrowTxHash', isHexBytes, 'a hash'],
        ['originChainId', isFiniteNumber, 'a number'],
        ['destinationChainId', isFiniteNumber, 'a number'],
        ['fillDeadline', any, 'present'],
      ]);
      expectFields('settlement.complete', 'B-EVT-005', 'settlement', [
        ['id', isNonEmptyString, 'an id'],
        ['originTxHash', isHexBytes, 'a hash'],
        ['destinationTxHash', isHexBytes, 'a hash'],
        ['amount', isNonEmptyString, 'an amount'],
        ['settledAt', isNonEmptyString, 'a time'],
      ]);
      expectFields('audit.recorded', 'B-EVT-007', 'audit', [
        ['tradeId', isNonEmptyString, 'a trade id'],
        ['type', isNonEmptyString, 'a type'],
        ['timestamp', any, 'present'],
        ['hash', isHexBytes, 'a hash'],
        ['prevHash', isHexBytes, 'a hash'],
      ]);
      const audits = events.filter((e) => isEventOfType(e, 'audit.recorded') && isObject(e.audit)).map((e) => e.audit as Json);
      ctx.expect(
        'X-LED-001',
        audits.every((a) => a.hash !== a.prevHash),
        'an audit entry names itself as its previous hash',
      );
    },
  }),

  check({
    id: 'events.b.failure-sequence',
    title: 'B failure: quote.accepted, settlement.pending, settlement.failed (with its payload), audit.recorded',
    requirements: ['B-EVT-009', 'B-EVT-006'],
    profiles: ONLY_B,
    tags: ['events', 'flow', 'timing', 'reference-b', 'refund'],
    needs: A_NEEDS,
    needsAnyOf: ['clock', 'long'],
    phase: PHASE.timing,
    timeoutMs: 120_000,
    async run(ctx: CheckContext) {
      const flow = await bRefundFlow(ctx);
      const capture = await eventCapture(ctx);
      await waitForEvents(
        ctx,
        () => capturedEvents(capture).some((e) => isEventOfType(e, 'settlement.failed') && relatesTo(e, flow.ids)),
        5_000,
      );
      await ctx.sleep(200);
      const events = uniqueEvents(capture.ws ? capture.events() : capturedEvents(capture)).filter((e) => relatesTo(e, flow.ids));
      const types = events.map((e) => String(e.type));
      ctx.note(`events: ${types.join(', ')}`);
      const order: EventType[] = ['quote.accepted', 'settlement.pending', 'settlement.failed', 'audit.recorded'];
      const at = order.map((t, i) => (i === 3 ? types.lastIndexOf(t) : types.indexOf(t)));
      ctx.expect(
        'B-EVT-009',
        at.every((i) => i >= 0),
        `missing: ${order.filter((_, i) => at[i]! < 0).join(', ')}`,
      );
      ctx.expect(
        'B-EVT-009',
        at.every((v, i) => i === 0 || v > at[i - 1]!),
        `out of order: ${types.join(', ')}`,
      );
      ctx.expect('B-EVT-009', !types.includes('settlement.complete'), 'a failed settlement also completed');
      const failed = events.find((e) => isEventOfType(e, 'settlement.failed'));
      const problems = fieldProblems(
        failed?.settlement,
        [
          ['id', isNonEmptyString, 'an id'],
          ['error', isNonEmptyString, 'an error'],
          ['refundTxHash', (v) => v === null || isHexBytes(v), 'a hash'],
          ['refundedAt', (v) => v !== undefined, 'present'],
        ],
        'settlement.failed.settlement',
      );
      ctx.expect('B-EVT-006', problems.length === 0, problems.join('; '));
    },
  }),
];

/** A Reference B event belongs to a flow when it names one of the flow's ids anywhere in its payload. */
function relatesTo(event: Json, ids: ReadonlySet<string>): boolean {
  const text = JSON.stringify(event);
  for (const id of ids) if (id.length > 0 && text.includes(id)) return true;
  return false;
}
