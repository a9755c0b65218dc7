import { randomBytes } from 'node:crypto';
import type { CheckContext } from '../core/context.js';
import { check, ONLY_A, PHASE } from './support/define.js';
import { expectError } from './support/errors.js';
import { successFlow, refundFlow } from './orders.js';
import {
  fieldProblems,
  isArray,
  isFiniteNumber,
  isHexBytes,
  isIsoTime,
  isObject,
  isTxHash,
  oneOf,
  SETTLEMENT_STATES,
  TIMELINE_STAGES,
  type Json,
} from './support/shape.js';

const NEEDS = ['fundedAccounts', 'solvers', 'apiKey', 'workspace'] as const;

async function settlementOf(ctx: CheckContext, orderId: string): Promise<Json> {
  const response = await ctx.api('GET', `/workspaces/${ctx.target.workspaceId}/settlements/${orderId}`, {
    auth: ctx.key,
    label: 'settlement',
  });
  ctx.require(
    'A-STL-001',
    response.status === 200,
    `GET /workspaces/${ctx.target.workspaceId}/settlements/${orderId} answered ${response.status}`,
  );
  return isObject(response.json) ? response.json : {};
}

function timelineProblems(settlement: Json): string[] {
  const timeline = settlement.timeline;
  if (!isArray(timeline)) return ['timeline is not an array'];
  const problems: string[] = [];
  timeline.forEach((entry, i) => {
    problems.push(
      ...fieldProblems(
        entry,
        [
          ['stage', oneOf(...TIMELINE_STAGES), 'a timeline stage'],
          ['at', isIsoTime, 'an ISO-8601 time'],
        ],
        `timeline[${i}]`,
      ),
    );
    if (isObject(entry)) {
      if (entry.txHash !== undefined && entry.txHash !== null && !isTxHash(entry.txHash))
        problems.push(`timeline[${i}].txHash is not a transaction hash`);
      if (entry.oracleHash !== undefined && entry.oracleHash !== null && entry.stage !== 'attested')
        problems.push(`timeline[${i}] (${String(entry.stage)}) carries oracleHash`);
    }
  });
  const times = timeline.map((e) => (isObject(e) && isIsoTime(e.at) ? Date.parse(e.at) : NaN));
  if (times.some((t, i) => i > 0 && t < times[i - 1]!)) problems.push('timeline entries are not in chronological order');
  return problems;
}

export const settlementChecks = [
  check({
    id: 'settlements.detail',
    title: 'The workspace settlement of a claimed order: Settled, a chronological timeline, evidence hash and WORM sequence',
    requirements: ['A-STL-001', 'A-STL-002', 'A-STL-003', 'A-STL-004', 'A-STL-007', 'X-LED-001'],
    profiles: ONLY_A,
    tags: ['settlements', 'flow'],
    needs: NEEDS,
    phase: PHASE.flows,
    async run(ctx: CheckContext) {
      const flow = await successFlow(ctx, 'Permit2Escrow');
      const settlement = await settlementOf(ctx, flow.orderId);
      const problems = fieldProblems(
        settlement,
        [
          ['orderId', (v) => v === flow.orderId, flow.orderId],
          ['workspaceId', (v) => v === ctx.target.workspaceId, String(ctx.target.workspaceId)],
          ['state', oneOf(...SETTLEMENT_STATES), 'a settlement state'],
          ['timeline', isArray, 'an array'],
          ['evidenceHash', isHexBytes, 'hex bytes'],
          ['wormSequence', isFiniteNumber, 'a number'],
        ],
        'settlement',
      );
      ctx.expect('A-STL-001', problems.length === 0, problems.join('; '));
      ctx.expect(
        'A-STL-007',
        isHexBytes(settlement.evidenceHash) && isFiniteNumber(settlement.wormSequence),
        'evidenceHash or wormSequence malformed',
      );
      ctx.expect('X-LED-001', isFiniteNumber(settlement.wormSequence) && settlement.wormSequence >= 0, 'no WORM sequence for the trade');
      if (flow.final.status === 'Claimed')
        ctx.expect('A-STL-002', settlement.state === 'Settled', `a claimed order's settlement is ${String(settlement.state)}, not Settled`);
      ctx.expect('A-STL-003', timelineProblems(settlement).length === 0, timelineProblems(settlement).join('; '));
      const stages = isArray(settlement.timeline) ? settlement.timeline.map((e) => (isObject(e) ? e.stage : undefined)) : [];
      ctx.note(`timeline: ${stages.join(' → ')}`);
      if (flow.final.status === 'Claimed') {
        ctx.expect(
          'A-STL-004',
          stages.join() === 'rfq,deposited,filled,attested,claimed',
          `the successful timeline is ${stages.join(', ')}`,
        );
        const attested = isArray(settlement.timeline) ? settlement.timeline.find((e) => isObject(e) && e.stage === 'attested') : undefined;
        ctx.expect('A-STL-003', isObject(attested) && typeof attested.oracleHash === 'string', 'the attested stage carries no oracleHash');
      }
    },
  }),

  check({
    id: 'settlements.refunded',
    title: 'The settlement of a refunded order is Refunded with a refunded stage',
    requirements: ['A-STL-002', 'A-STL-003'],
    profiles: ONLY_A,
    tags: ['settlements', 'flow', 'timing', 'refund'],
    needs: NEEDS,
    needsAnyOf: ['clock', 'long'],
    phase: PHASE.timing,
    timeoutMs: 120_000,
    async run(ctx: CheckContext) {
      const flow = await refundFlow(ctx);
      const settlement = await settlementOf(ctx, flow.orderId);
      ctx.expect('A-STL-002', settlement.state === 'Refunded', `the settlement of a refunded order is ${String(settlement.state)}`);
      const stages = isArray(settlement.timeline) ? settlement.timeline.map((e) => (isObject(e) ? e.stage : undefined)) : [];
      ctx.expect('A-STL-003', stages.at(-1) === 'refunded', `the timeline ends ${String(stages.at(-1))}: ${stages.join(', ')}`);
      ctx.expect('A-STL-003', timelineProblems(settlement).length === 0, timelineProblems(settlement).join('; '));
    },
  }),

  check({
    id: 'settlements.not-found',
    title: 'A settlement of an unknown order, or of another workspace, is a 404',
    requirements: ['A-STL-006', 'A-STL-001'],
    profiles: ONLY_A,
    tags: ['settlements', 'errors'],
    needs: ['apiKey', 'workspace'],
    phase: PHASE.afterFlows,
    async run(ctx: CheckContext) {
      const unknown = await ctx.api(
        'GET',
        `/workspaces/${ctx.target.workspaceId}/settlements/ord_conformance${randomBytes(6).toString('hex')}`,
        { auth: ctx.key },
      );
      expectError(ctx, unknown, { status: 404, type: 'not_found' }, 'A-STL-006', 'the settlement of an unknown order');
      const flow = ctx.state.fixtures.has('flow-Permit2Escrow')
        ? await successFlow(ctx, 'Permit2Escrow').catch(() => undefined)
        : undefined;
      const orderId = flow?.orderId ?? `ord_conformance${randomBytes(6).toString('hex')}`;
      const other = await ctx.api('GET', `/workspaces/ws_conformance${randomBytes(6).toString('hex')}/settlements/${orderId}`, {
        auth: ctx.key,
      });
      expectError(
        ctx,
        other,
        { status: [403, 404], type: other.status === 403 ? undefined : 'not_found' },
        'A-STL-006',
        "another workspace's settlement",
      );
      const anonymous = await ctx.api('GET', `/workspaces/${ctx.target.workspaceId}/settlements/${orderId}`);
      expectError(ctx, anonymous, { status: 401, type: 'authentication_error' }, 'A-STL-001', 'a settlement without credentials');
    },
  }),

  check({
    id: 'settlements.list',
    title: "GET /api/v1/settlements needs auth and answers a page envelope holding the run's orders",
    requirements: ['A-STL-005', 'X-PAG-001'],
    profiles: ONLY_A,
    tags: ['settlements', 'pagination'],
    needs: ['apiKey'],
    phase: PHASE.afterFlows,
    async run(ctx: CheckContext) {
      const anonymous = await ctx.api('GET', '/settlements');
      expectError(ctx, anonymous, { status: 401, type: 'authentication_error' }, 'A-STL-005', 'the settlement list without credentials');
      const response = await ctx.api('GET', '/settlements', { auth: ctx.key, query: { limit: 100 } });
      ctx.require('A-STL-005', response.status === 200, `GET /settlements answered ${response.status}`);
      const body = isObject(response.json) ? response.json : {};
      ctx.expect(
        'A-STL-005',
        isArray(body.data) && typeof body.has_more === 'boolean' && isFiniteNumber(body.total_count),
        'not a page envelope',
      );
      if (ctx.state.fixtures.has('flow-Permit2Escrow')) {
        const flow = await successFlow(ctx, 'Permit2Escrow').catch(() => undefined);
        if (flow && isArray(body.data)) {
          ctx.expect(
            'A-STL-005',
            body.data.some((s) => isObject(s) && s.orderId === flow.orderId),
            `the list does not hold the run's order ${flow.orderId}`,
          );
        }
      }
    },
  }),
];
