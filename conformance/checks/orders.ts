import { randomBytes } from 'node:crypto';
import type { LockType } from '../../src/contracts/wire/enums.js';
import type { CheckContext } from '../core/context.js';
import { eventCapture } from '../flows/capture.js';
import { harnessSolver } from '../flows/harness-solver.js';
import {
  followOrder,
  freshAttestation,
  quoteExtras,
  quoteRequestFor,
  quoteToSign,
  runOrderFlow,
  signTypedDataJson,
  taker,
  usableCorridors,
  type OrderFlow,
} from '../flows/taker.js';
import { chainById } from '../deployment/discover.js';
import { rpcCall } from '../wire/rpc.js';
import { isRefusal, WsSession } from '../wire/ws.js';
import { check, ONLY_A, PHASE } from './support/define.js';
import { expectError } from './support/errors.js';
import {
  fieldProblems,
  hasPrefix,
  isArray,
  isFiniteNumber,
  isIntegerString,
  isIsoTime,
  isObject,
  isTxHash,
  oneOf,
  ORDER_STATUSES,
  SETTLEMENT_PATHS,
  type Json,
} from './support/shape.js';

const FLOW_NEEDS = ['fundedAccounts', 'solvers', 'apiKey'] as const;

/** The success flow of one lock type, once per run; Permit2Escrow also watches its own `orders:{id}` topic. */
export function successFlow(
  ctx: CheckContext,
  lockType: LockType,
): Promise<OrderFlow & { topicSession?: WsSession; statusAtSubscribe?: string }> {
  return ctx.fixture(`flow-${lockType}`, async () => {
    await eventCapture(ctx);
    let topicSession: WsSession | undefined;
    let statusAtSubscribe: string | undefined;
    const flow = await runOrderFlow(ctx, `${lockType} success`, {
      lockType,
      takerIndex: lockType === 'Permit2Escrow' ? 0 : lockType === 'EIP3009Escrow' ? 1 : 2,
      // The direct path takes a key (recommended) or none: the EIP-3009 order goes without one.
      withKey: lockType !== 'EIP3009Escrow',
      afterCreate:
        lockType === 'Permit2Escrow'
          ? async (orderId) => {
              const session = await WsSession.open(`${ctx.target.wsUrl}?token=${encodeURIComponent(ctx.key)}`, {
                label: `orders:${orderId}`,
              });
              if (isRefusal(session)) return;
              session.autoPong();
              await session.nextOfType('auth.ok', 3_000);
              session.send({ type: 'subscribe', topics: [`orders:${orderId}`] });
              await session.nextOfType('subscribe.ok', 3_000);
              // A fast deployment may settle before the subscription holds: the topic owes only later events.
              const now = await ctx.api('GET', `/orders/${orderId}`, { record: false });
              statusAtSubscribe = isObject(now.json) && typeof now.json.status === 'string' ? now.json.status : undefined;
              ctx.state.persistentSockets += 1;
              ctx.state.keepOpen(() => session.close());
              topicSession = session;
            }
          : undefined,
    });
    return {
      ...flow,
      ...(topicSession === undefined ? {} : { topicSession }),
      ...(statusAtSubscribe === undefined ? {} : { statusAtSubscribe }),
    };
  });
}

/** An order nobody fills (the harness solver's quote), refunded once `expires` passes on the clock. */
export function refundFlow(ctx: CheckContext): Promise<OrderFlow & { refunded: Json; advancedSeconds: number }> {
  return ctx.fixture('flow-refund', async () => {
    await eventCapture(ctx);
    const solver = await harnessSolver(ctx);
    const flow = await runOrderFlow(ctx, 'refund', {
      lockType: 'Permit2Escrow',
      takerIndex: 4,
      solverId: solver.solverId,
      corridor: solver.corridor,
      waitTerminal: false,
    });
    const expires =
      isObject(flow.detail.json) && isObject(flow.detail.json.standardOrder) ? Number(flow.detail.json.standardOrder.expires) : NaN;
    if (!Number.isFinite(expires)) ctx.fail('the quote detail names no standardOrder.expires');
    const now = (await ctx.clockNow()) / 1_000;
    const wait = Math.max(1, Math.ceil(expires - now) + 2);
    if (ctx.target.capabilities.has('clock')) await ctx.advanceClock(wait);
    else if (wait > 600) ctx.skip(`the order expires in ${wait} s of real time; too long even with --long`);
    const followed = await followOrder(ctx, flow.orderId, {
      until: ['Refunded', 'Claimed'],
      timeoutMs: ctx.target.capabilities.has('clock') ? 20_000 : (wait + 30) * 1_000,
      since: flow.createdAtMs,
    });
    return {
      ...flow,
      statuses: [...flow.statuses, ...followed.statuses],
      final: followed.final,
      refunded: followed.final,
      advancedSeconds: wait,
    };
  });
}

function orderCreatedProblems(order: unknown): string[] {
  return fieldProblems(
    order,
    [
      ['orderId', (v) => hasPrefix(v, 'ord_'), 'an `ord_` id'],
      ['quoteId', (v) => hasPrefix(v, 'qt_'), 'a `qt_` id'],
      ['status', oneOf(...ORDER_STATUSES), 'an order status'],
      ['settlementPath', oneOf(...SETTLEMENT_PATHS), 'direct or compliant'],
      ['originTxHash', isTxHash, 'a transaction hash'],
      ['createdAt', isIsoTime, 'an ISO-8601 time'],
      ['fillDeadline', isIsoTime, 'an ISO-8601 time'],
    ],
    'order',
  );
}

function progression(flow: OrderFlow): string[] {
  return flow.statuses.map((s) => s.status);
}

const SUCCESS_ORDER = ['Deposited', 'Filled', 'Attested', 'Claimed'];

function expectSuccessProgression(ctx: CheckContext, flow: OrderFlow): void {
  const seen = [String(flow.order.status), ...progression(flow)];
  ctx.note(`${flow.label}: ${seen.join(' → ')}`);
  ctx.expect(
    'A-ORD-009',
    seen.every((s) => (ORDER_STATUSES as readonly string[]).includes(s)),
    `statuses outside the enum: ${seen.join(', ')}`,
  );
  const ranks = seen.map((s) => SUCCESS_ORDER.indexOf(s));
  ctx.expect(
    'A-ORD-009',
    ranks.every((r, i) => i === 0 || r >= ranks[i - 1]!),
    `the status went backwards: ${seen.join(' → ')}`,
  );
  ctx.expect('A-ORD-009', seen.at(-1) === 'Claimed', `the order ended ${seen.at(-1)} instead of Claimed within the time limit`);
}

/** The spec's nonce is a number; one past JavaScript's safe integers travels as its decimal string. */
function orderNonce(nonce: string): number | string {
  return Number.isSafeInteger(Number(nonce)) ? Number(nonce) : nonce;
}

export const orderChecks = [
  check({
    id: 'orders.create',
    title: 'POST /api/v1/orders answers 201 Deposited with the order create fields (Permit2Escrow, with the key)',
    requirements: ['A-ORD-001', 'A-ORD-002', 'A-ORD-003', 'X-ID-001', 'X-ID-002'],
    profiles: ONLY_A,
    tags: ['orders', 'flow'],
    needs: FLOW_NEEDS,
    phase: PHASE.flows,
    async run(ctx: CheckContext) {
      const flow = await successFlow(ctx, 'Permit2Escrow');
      const problems = orderCreatedProblems(flow.order);
      const idProblems = problems.filter((p) => /`(ord|qt)_` id/.test(p));
      ctx.expect('A-ORD-002', problems.length === idProblems.length, problems.filter((p) => !idProblems.includes(p)).join('; '));
      ctx.expect('X-ID-001', idProblems.length === 0, idProblems.join('; '));
      ctx.expect(
        'X-ID-002',
        isIsoTime(flow.order.createdAt) && isIsoTime(flow.order.fillDeadline),
        'createdAt/fillDeadline are not ISO-8601',
      );
      ctx.expect(
        'A-ORD-002',
        flow.order.quoteId === flow.quote.quoteId,
        `the order names quote ${String(flow.order.quoteId)}, not ${String(flow.quote.quoteId)}`,
      );
      ctx.expect(
        'A-ORD-002',
        flow.order.destinationTxHash === null || flow.order.destinationTxHash === undefined || flow.order.status !== 'Deposited',
        'destinationTxHash is set on an order not yet filled',
      );
      ctx.expect('A-ORD-003', flow.order.status === 'Deposited', `a new order is ${String(flow.order.status)}, not Deposited`);
    },
  }),

  check({
    id: 'orders.create-without-key',
    title: 'The direct path accepts an order without an API key (Optional Auth; EIP3009Escrow)',
    requirements: ['A-ORD-012', 'A-ORD-001'],
    profiles: ONLY_A,
    tags: ['orders', 'flow'],
    needs: FLOW_NEEDS,
    phase: PHASE.flows,
    async run(ctx: CheckContext) {
      if (usableCorridors(ctx, 'EIP3009Escrow').length === 0) ctx.skip('no corridor offers EIP3009Escrow');
      const flow = await successFlow(ctx, 'EIP3009Escrow');
      ctx.expect('A-ORD-012', flow.orderResponse.status === 201, `an order without a key answered ${flow.orderResponse.status}`);
      ctx.expect('A-ORD-002', orderCreatedProblems(flow.order).length === 0, orderCreatedProblems(flow.order).join('; '));
    },
  }),

  ...(['Permit2Escrow', 'EIP3009Escrow', 'ResourceLock'] as const).map((lockType) =>
    check({
      id: `orders.lifecycle.${lockType}`,
      title: `A ${lockType} order settles: Deposited → Filled → Attested → Claimed`,
      requirements: ['A-ORD-009', 'A-ORD-003'],
      profiles: ONLY_A,
      tags: ['orders', 'flow', lockType],
      needs: FLOW_NEEDS,
      phase: PHASE.flows,
      timeoutMs: 90_000,
      async run(ctx: CheckContext) {
        if (usableCorridors(ctx, lockType).length === 0) ctx.skip(`no corridor with live solvers offers ${lockType}`);
        const flow = await successFlow(ctx, lockType);
        ctx.expect('A-ORD-003', flow.order.status === 'Deposited', `the order was created ${String(flow.order.status)}`);
        expectSuccessProgression(ctx, flow);
      },
    }),
  ),

  check({
    id: 'orders.detail',
    title: 'GET /api/v1/orders/{orderId} is public and complete; a claimed order carries its hashes and settledAt',
    requirements: ['A-ORD-007', 'A-AUTH-001', 'X-ID-003'],
    profiles: ONLY_A,
    tags: ['orders', 'flow'],
    needs: FLOW_NEEDS,
    phase: PHASE.flows,
    async run(ctx: CheckContext) {
      const flow = await successFlow(ctx, 'Permit2Escrow');
      const response = await ctx.api('GET', `/orders/${flow.orderId}`, { label: 'order detail without credentials' });
      ctx.expect('A-AUTH-001', response.status !== 401, 'reading an order asked for credentials');
      ctx.require('A-ORD-007', response.status === 200, `GET /orders/${flow.orderId} answered ${response.status}`);
      const detail = isObject(response.json) ? response.json : {};
      const nullableHash = (v: unknown) => v === null || isTxHash(v);
      const problems = fieldProblems(
        detail,
        [
          ['orderId', (v) => v === flow.orderId, flow.orderId],
          ['status', oneOf(...ORDER_STATUSES), 'an order status'],
          ['settlementPath', oneOf(...SETTLEMENT_PATHS), 'direct or compliant'],
          ['originChainId', isFiniteNumber, 'a number'],
          ['destinationChainId', isFiniteNumber, 'a number'],
          ['inputAmount', isIntegerString, 'an integer string'],
          ['outputAmount', isIntegerString, 'an integer string'],
          ['originTxHash', isTxHash, 'a transaction hash'],
          ['destinationTxHash', nullableHash, 'a transaction hash or null'],
          ['oracleAttestationHash', nullableHash, 'a hash or null'],
          ['settledAt', (v) => v === null || isIsoTime(v), 'an ISO time or null'],
        ],
        'order',
      );
      ctx.expect('A-ORD-007', problems.length === 0, problems.join('; '));
      ctx.expect(
        'X-ID-003',
        isIntegerString(detail.inputAmount) && isIntegerString(detail.outputAmount),
        'amounts are not integer strings',
      );
      ctx.expect(
        'A-ORD-007',
        detail.inputAmount === flow.quoteRequest.inputAmount,
        `inputAmount ${String(detail.inputAmount)} is not the quoted ${String(flow.quoteRequest.inputAmount)}`,
      );
      ctx.expect(
        'A-ORD-007',
        detail.outputAmount === flow.quote.outputAmount,
        `outputAmount ${String(detail.outputAmount)} is not the quoted ${String(flow.quote.outputAmount)}`,
      );
      ctx.expect(
        'A-ORD-007',
        detail.originChainId === flow.corridor.originChainId && detail.destinationChainId === flow.corridor.destinationChainId,
        'the chains differ from the corridor',
      );
      if (detail.status === 'Claimed') {
        ctx.expect('A-ORD-007', isTxHash(detail.destinationTxHash), 'a claimed order has no destinationTxHash');
        ctx.expect('A-ORD-007', isTxHash(detail.oracleAttestationHash), 'a claimed order has no oracleAttestationHash');
        ctx.expect('A-ORD-007', isIsoTime(detail.settledAt), 'a claimed order has no settledAt');
      }
    },
  }),

  check({
    id: 'orders.onchain-transactions',
    title: 'originTxHash and destinationTxHash are successful transactions on their chains (JSON-RPC)',
    requirements: ['A-ORD-013', 'A-ORD-003'],
    profiles: ONLY_A,
    tags: ['orders', 'flow', 'chains'],
    needs: [...FLOW_NEEDS, 'chains'],
    phase: PHASE.flows,
    async run(ctx: CheckContext) {
      const flow = await successFlow(ctx, 'Permit2Escrow');
      const final = flow.final;
      const receipt = async (chainId: number, hash: unknown, what: string) => {
        const chain = chainById(ctx.target, chainId);
        if (!chain || !isTxHash(hash)) {
          ctx.expect('A-ORD-013', false, `${what} ${JSON.stringify(hash)} cannot be looked up on chain ${chainId}`);
          return;
        }
        const { result, evidence } = await rpcCall<{ status?: string } | null>(chain.rpcUrl, 'eth_getTransactionReceipt', [hash], chainId);
        ctx.evidence.push(evidence);
        ctx.expect(
          'A-ORD-013',
          result?.status === '0x1',
          `${what} ${hash} has ${result ? `status ${result.status}` : 'no receipt'} on ${chain.name}`,
        );
      };
      await receipt(flow.corridor.originChainId, flow.order.originTxHash, 'originTxHash');
      if (final.status === 'Claimed') await receipt(flow.corridor.destinationChainId, final.destinationTxHash, 'destinationTxHash');
    },
  }),

  check({
    id: 'orders.unknown-id',
    title: 'An unknown order id is a 404 not_found',
    requirements: ['A-ORD-008'],
    profiles: ONLY_A,
    tags: ['orders', 'errors'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const response = await ctx.api('GET', `/orders/ord_conformance${randomBytes(8).toString('hex')}`);
      expectError(ctx, response, { status: 404, type: 'not_found' }, 'A-ORD-008', 'an unknown order');
    },
  }),

  check({
    id: 'orders.replay-rejected',
    title: 'A replayed order and a used nonce are rejected; nothing new is created',
    requirements: ['A-ORD-004'],
    profiles: ONLY_A,
    tags: ['orders', 'flow', 'negative'],
    needs: FLOW_NEEDS,
    phase: PHASE.flows,
    async run(ctx: CheckContext) {
      const flow = await successFlow(ctx, 'Permit2Escrow');
      const replay = await ctx.api('POST', '/orders', { auth: ctx.key, body: flow.orderRequest, label: 'the same order again' });
      expectError(ctx, replay, { status: [400, 409, 422] }, 'A-ORD-004', 'the accepted order sent again');
      // A fresh quote, correctly signed, but with the nonce the first order spent.
      const quote = await ctx.api('POST', '/quotes', { body: flow.quoteRequest, label: 'a second quote' });
      const quotes = isObject(quote.json) && isArray(quote.json.quotes) ? (quote.json.quotes as Json[]) : [];
      const next = quotes[0];
      if (quote.status !== 200 || !next) ctx.fail(`a second quote answered ${quote.status}`);
      const { typedData } = await quoteToSign(ctx, 'a second quote', flow.taker, flow.corridor, String(next.quoteId), flow.lockType);
      const signed = typedData as Json;
      const message = isObject(signed.message) ? signed.message : {};
      const reused = { ...signed, message: { ...message, nonce: flow.nonce } };
      const signature = await signTypedDataJson(flow.taker, reused);
      const reuse = await ctx.api('POST', '/orders', {
        auth: ctx.key,
        body: { quoteId: next.quoteId, signature, nonce: Number(flow.nonce), user: flow.taker.address },
        label: 'a used nonce',
      });
      expectError(ctx, reuse, { status: [400, 409, 422] }, 'A-ORD-004', `an order with the spent nonce ${flow.nonce}`);
    },
  }),

  check({
    id: 'orders.signature-binding',
    title: 'A signature by another key, or over tampered typed data, is rejected',
    requirements: ['A-ORD-005'],
    profiles: ONLY_A,
    tags: ['orders', 'negative'],
    needs: FLOW_NEEDS,
    phase: PHASE.flows,
    async run(ctx: CheckContext) {
      const corridor = usableCorridors(ctx, 'Permit2Escrow')[0];
      if (!corridor) ctx.skip('no corridor with live solvers offers Permit2Escrow');
      const user = taker(ctx, 0);
      const stranger = taker(ctx, 3);
      const quote = await ctx.api('POST', '/quotes', {
        body: quoteRequestFor(corridor, quoteExtras(ctx, { lockType: 'Permit2Escrow', user: user.address })),
        label: 'a quote for the taker',
      });
      const first = isObject(quote.json) && isArray(quote.json.quotes) ? (quote.json.quotes as Json[])[0] : undefined;
      if (!first) ctx.fail(`POST /quotes answered ${quote.status} without quotes`);
      if (first.lockType !== 'Permit2Escrow') ctx.skip(`the target quoted ${String(first.lockType)}, not Permit2Escrow`);
      const toSign = await quoteToSign(ctx, 'a quote for the taker', user, corridor, String(first.quoteId), 'Permit2Escrow');
      const body = { typedData: toSign.typedData as Json };
      const nonce = orderNonce(toSign.nonce);
      const byStranger = await signTypedDataJson(stranger, body.typedData);
      const wrongKey = await ctx.api('POST', '/orders', {
        auth: ctx.key,
        body: { quoteId: first.quoteId, signature: byStranger, nonce, user: user.address },
        label: "another key's signature",
      });
      expectError(ctx, wrongKey, { status: [400, 401, 403, 409, 422] }, 'A-ORD-005', "a signature by another key than the order's user");
      const message = isObject(body.typedData.message) ? body.typedData.message : {};
      const tampered = { ...body.typedData, message: { ...message, deadline: String(Number(message.deadline ?? 0) + 1) } };
      const overOther = await signTypedDataJson(user, tampered);
      const wrongData = await ctx.api('POST', '/orders', {
        auth: ctx.key,
        body: { quoteId: first.quoteId, signature: overOther, nonce, user: user.address },
        label: 'signature over tampered data',
      });
      expectError(ctx, wrongData, { status: [400, 401, 403, 409, 422] }, 'A-ORD-005', 'a signature over tampered typed data');
    },
  }),

  check({
    id: 'orders.expired-quote',
    title: 'Ordering after the quote expired is rfq_expired',
    requirements: ['A-ORD-006'],
    profiles: ONLY_A,
    tags: ['orders', 'negative', 'timing'],
    needs: [...FLOW_NEEDS, 'clock'],
    phase: PHASE.timing,
    async run(ctx: CheckContext) {
      const corridor = usableCorridors(ctx, 'Permit2Escrow')[0];
      if (!corridor) ctx.skip('no corridor with live solvers offers Permit2Escrow');
      const user = taker(ctx, 0);
      const quote = await ctx.api('POST', '/quotes', {
        body: quoteRequestFor(corridor, quoteExtras(ctx, { lockType: 'Permit2Escrow', user: user.address })),
        label: 'a quote to let expire',
      });
      const first = isObject(quote.json) && isArray(quote.json.quotes) ? (quote.json.quotes as Json[])[0] : undefined;
      if (!first || !isIsoTime(first.expiresAt)) ctx.fail(`POST /quotes answered ${quote.status} without a quote and expiresAt`);
      if (first.lockType !== 'Permit2Escrow') ctx.skip(`the target quoted ${String(first.lockType)}, not Permit2Escrow`);
      const toSign = await quoteToSign(ctx, 'a quote to let expire', user, corridor, String(first.quoteId), 'Permit2Escrow');
      const signature = await signTypedDataJson(user, toSign.typedData);
      const now = await ctx.clockNow();
      await ctx.advanceClock(Math.max(1, Math.ceil((Date.parse(first.expiresAt) - now) / 1_000) + 1));
      const late = await ctx.api('POST', '/orders', {
        auth: ctx.key,
        body: {
          quoteId: first.quoteId,
          signature,
          nonce: orderNonce(toSign.nonce),
          user: user.address,
        },
        label: 'order after expiresAt',
      });
      expectError(ctx, late, { status: [409, 410, 422], code: 'rfq_expired' }, 'A-ORD-006', 'an order on an expired quote');
    },
  }),

  check({
    id: 'orders.compliant-attestation',
    title:
      'The compliant path needs a fresh X-Service-Attestation: none or a bogus one is a 403 attestation_expired, a fresh one is accepted',
    requirements: ['A-ORD-011'],
    profiles: ONLY_A,
    tags: ['orders', 'compliance', 'negative'],
    needs: FLOW_NEEDS,
    phase: PHASE.flows,
    async run(ctx: CheckContext) {
      const corridor = usableCorridors(ctx, 'Permit2Escrow')[0];
      if (!corridor) ctx.skip('no corridor with live solvers offers Permit2Escrow');
      const user = taker(ctx, 3);
      const quote = await ctx.api('POST', '/quotes', {
        body: quoteRequestFor(corridor, quoteExtras(ctx, { lockType: 'Permit2Escrow', settlementPath: 'compliant', user: user.address })),
        label: 'a compliant-path quote',
      });
      const quotes = isObject(quote.json) && isArray(quote.json.quotes) ? (quote.json.quotes as Json[]) : [];
      const compliant = quotes.find((q) => q.settlementPath === 'compliant');
      if (!compliant) ctx.skip(`no quote on the compliant path (POST /quotes answered ${quote.status})`);
      if (compliant.lockType !== 'Permit2Escrow') ctx.skip(`the target quoted ${String(compliant.lockType)}, not Permit2Escrow`);
      const toSign = await quoteToSign(ctx, 'a compliant-path quote', user, corridor, String(compliant.quoteId), 'Permit2Escrow');
      const signature = await signTypedDataJson(user, toSign.typedData);
      const order = {
        quoteId: compliant.quoteId,
        signature,
        nonce: orderNonce(toSign.nonce),
        user: user.address,
      };
      const missing = await ctx.api('POST', '/orders', { body: order, label: 'compliant order without attestation' });
      expectError(
        ctx,
        missing,
        { status: 403, type: 'compliance_error', code: 'attestation_expired' },
        'A-ORD-011',
        'a compliant order without X-Service-Attestation',
      );
      const bogus = await ctx.api('POST', '/orders', {
        body: order,
        headers: { 'X-Service-Attestation': `0x${randomBytes(32).toString('hex')}` },
        label: 'bogus attestation',
      });
      expectError(
        ctx,
        bogus,
        { status: 403, type: 'compliance_error', code: 'attestation_expired' },
        'A-ORD-011',
        'a compliant order with an attestation never issued',
      );
      // The same order with a fresh attestation goes through: the header, not the order, was the problem.
      const attestation = await freshAttestation(ctx, user.address);
      if (attestation === undefined) ctx.fail(`GET /compliance/status gave no attestation for ${user.address}`);
      const fresh = await ctx.api('POST', '/orders', {
        body: order,
        auth: ctx.key,
        headers: { 'X-Service-Attestation': attestation },
        label: 'fresh attestation',
      });
      ctx.expect(
        'A-ORD-011',
        fresh.status === 201,
        `with a fresh attestation the compliant order answered ${fresh.status}: ${fresh.text.slice(0, 160)}`,
      );
    },
  }),

  check({
    id: 'orders.refund-after-deadline',
    title: 'An order nobody fills is refunded once its deadline passes: status Refunded',
    requirements: ['A-ORD-010', 'A-ORD-009'],
    profiles: ONLY_A,
    tags: ['orders', 'flow', 'timing', 'refund'],
    needs: FLOW_NEEDS,
    needsAnyOf: ['clock', 'long'],
    phase: PHASE.timing,
    timeoutMs: 120_000,
    async run(ctx: CheckContext) {
      const flow = await refundFlow(ctx);
      const seen = [String(flow.order.status), ...flow.statuses.map((s) => s.status)];
      ctx.note(`refund flow: ${seen.join(' → ')} after moving the clock ${flow.advancedSeconds} s`);
      ctx.expect(
        'A-ORD-010',
        flow.final.status === 'Refunded',
        `the unfilled order ended ${String(flow.final.status)} instead of Refunded`,
      );
      ctx.expect(
        'A-ORD-009',
        !seen.includes('Filled') && !seen.includes('Claimed'),
        `an order nobody filled went through ${seen.join(' → ')}`,
      );
    },
  }),
];
