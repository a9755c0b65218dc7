import type { CheckContext } from '../core/context.js';
import { eventCapture, EVENT_PATTERNS, parseDelivery } from '../flows/capture.js';
import type { Delivery } from '../wire/receiver.js';
import { signatureMatches } from '../wire/webhook-signature.js';
import { BOTH, check, ONLY_A, ONLY_B, PHASE } from './support/define.js';
import { expectError } from './support/errors.js';
import { successFlow } from './orders.js';
import { failingWebhooks } from './long-sweep.js';
import { bFlow } from './reference-b.js';
import { fieldProblems, hasPrefix, isArray, isBoolean, isIsoTime, isObject } from './support/shape.js';

import { clockOffset, provokeEvents, register, SCHEDULE_A, SCHEDULE_B, webhookState, describeState } from './webhook-schedule.js';
/** Every way one delivery breaks the spec's delivery rules; `clockSeconds` is the sandbox time when it arrived. */
export function deliveryProblems(
  delivery: Delivery,
  webhook: { id: string; secret: string },
  clockSeconds?: number,
): Array<[string, string]> {
  const problems: Array<[string, string]> = [];
  const h = delivery.headers;
  if (delivery.method !== 'POST') problems.push(['X-WH-001', `a delivery came as ${delivery.method}`]);
  const body = parseDelivery(delivery);
  if (!body) problems.push(['X-WH-001', 'a delivery body is not a JSON object']);
  const timestamp = h['x-service-timestamp'];
  const signature = h['x-service-signature'];
  if (timestamp === undefined || !/^\d+$/.test(timestamp))
    problems.push(['X-WH-003', `X-Service-Timestamp is ${JSON.stringify(timestamp)}, not Unix seconds`]);
  else if (clockSeconds !== undefined && Math.abs(Number(timestamp) - clockSeconds) > 120) {
    problems.push(['X-WH-003', `X-Service-Timestamp ${timestamp} is ${Number(timestamp) - clockSeconds} s from the time it was received`]);
  }
  if (signature === undefined) problems.push(['X-WH-002', 'X-Service-Signature is missing']);
  else if (timestamp !== undefined && !signatureMatches(webhook.secret, timestamp, delivery.rawBody, signature)) {
    problems.push(['X-WH-002', `X-Service-Signature ${signature.slice(0, 16)}… is not HMAC-SHA256(secret, "<timestamp>.<body>")`]);
  }
  if (body && h['x-service-event'] !== body.type)
    problems.push(['X-WH-004', `X-Service-Event ${JSON.stringify(h['x-service-event'])} but the body is ${JSON.stringify(body.type)}`]);
  if (h['x-service-webhookid'] !== webhook.id)
    problems.push(['X-WH-005', `X-Service-WebhookId ${JSON.stringify(h['x-service-webhookid'])}, expected ${webhook.id}`]);
  if (!h['x-service-deliveryid']) problems.push(['X-WH-006', 'X-Service-DeliveryId is missing']);
  return problems;
}

function expectDeliveries(
  ctx: CheckContext,
  deliveries: readonly Delivery[],
  webhook: { id: string; secret: string },
  clockOffsetMs: number,
): void {
  for (const delivery of deliveries) {
    for (const [requirementId, message] of deliveryProblems(delivery, webhook, (delivery.receivedAt + clockOffsetMs) / 1_000))
      ctx.expect(requirementId, false, message);
  }
  const ids = deliveries.map((d) => d.headers['x-service-deliveryid']);
  ctx.expect('X-WH-006', new Set(ids).size === ids.length, 'two deliveries share an X-Service-DeliveryId');
}

export const webhookChecks = [
  check({
    id: 'webhooks.create',
    title: 'POST /api/v1/webhooks answers 201 with webhookId, url, events, signingKey, active and createdAt',
    requirements: ['A-WH-001', 'A-WH-006', 'X-ID-001', 'X-ID-002'],
    profiles: ONLY_A,
    tags: ['webhooks'],
    needs: ['apiKey'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const anonymous = await ctx.api('POST', '/webhooks', {
        body: { url: 'http://127.0.0.1:9/x', events: ['order.*'] },
        label: 'without credentials',
      });
      expectError(ctx, anonymous, { status: 401, type: 'authentication_error' }, 'A-WH-001', 'POST /webhooks without credentials');
      const webhook = await register(ctx, 'create', ['order.*']);
      const problems = fieldProblems(
        webhook.body,
        [
          ['webhookId', (v) => typeof v === 'string', 'a string'],
          ['url', (v) => v === webhook.endpoint.url, webhook.endpoint.url],
          ['events', (v) => isArray(v) && v.includes('order.*'), 'the events sent'],
          ['signingKey', (v) => hasPrefix(v, 'whsec_'), 'a whsec_ key'],
          ['active', isBoolean, 'a boolean'],
          ['createdAt', isIsoTime, 'an ISO-8601 time'],
        ],
        'webhook',
      );
      ctx.expect('A-WH-001', problems.length === 0, problems.join('; '));
      ctx.expect('A-WH-001', webhook.body.active === true, 'a new webhook is not active');
      ctx.expect('X-ID-001', hasPrefix(webhook.id, 'wh_'), `webhookId ${webhook.id} lacks the wh_ prefix`);
      ctx.expect(
        'A-WH-006',
        hasPrefix(webhook.body.signingKey, 'whsec_live_') || hasPrefix(webhook.body.signingKey, 'whsec_'),
        'signingKey lacks the whsec_ prefix',
      );
    },
  }),

  check({
    id: 'webhooks.list-and-delete',
    title: 'GET /api/v1/webhooks lists the webhook; DELETE removes it',
    requirements: ['A-WH-002', 'A-WH-003'],
    profiles: ONLY_A,
    tags: ['webhooks'],
    needs: ['apiKey'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const webhook = await register(ctx, 'list', ['order.settled']);
      const listed = (response: { json: unknown }) => {
        const body = response.json;
        const items = isArray(body)
          ? body
          : isObject(body)
            ? isArray(body.data)
              ? body.data
              : isArray(body.webhooks)
                ? body.webhooks
                : []
            : [];
        return items.some((w) => isObject(w) && (w.webhookId === webhook.id || w.id === webhook.id));
      };
      const anonymous = await ctx.api('GET', '/webhooks');
      expectError(ctx, anonymous, { status: 401, type: 'authentication_error' }, 'A-WH-002', 'GET /webhooks without credentials');
      const list = await ctx.api('GET', '/webhooks', { auth: ctx.key, query: { limit: 100 } });
      ctx.require('A-WH-002', list.status === 200, `GET /webhooks answered ${list.status}`);
      ctx.expect('A-WH-002', listed(list), `the list does not hold ${webhook.id}`);
      const removed = await ctx.api('DELETE', `/webhooks/${webhook.id}`, { auth: ctx.key });
      ctx.expect('A-WH-003', removed.status >= 200 && removed.status < 300, `DELETE answered ${removed.status}`);
      const after = await ctx.api('GET', '/webhooks', { auth: ctx.key, query: { limit: 100 } });
      ctx.expect('A-WH-003', !listed(after), `${webhook.id} is still listed after DELETE`);
    },
  }),

  check({
    id: 'webhooks.test-event',
    title: 'POST /webhooks/{id}/test delivers a signed test event with every delivery header',
    requirements: ['A-WH-004', 'X-WH-001', 'X-WH-002', 'X-WH-003', 'X-WH-004', 'X-WH-005', 'X-WH-006'],
    profiles: ONLY_A,
    tags: ['webhooks'],
    needs: ['apiKey'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const webhook = await register(ctx, 'test-event', ['order.*']);
      const offset = await clockOffset(ctx);
      const sent = await ctx.api('POST', `/webhooks/${webhook.id}/test`, { auth: ctx.key, label: 'send a test event' });
      ctx.expect('A-WH-004', sent.status >= 200 && sent.status < 300, `the test route answered ${sent.status}`);
      const deliveries = await webhook.endpoint.waitFor(1, 10_000);
      ctx.evidence.push(webhook.endpoint.evidence('test deliveries'));
      ctx.require('A-WH-004', deliveries.length >= 1, 'no test delivery arrived within 10 s');
      expectDeliveries(ctx, deliveries, webhook, offset);
    },
  }),

  check({
    id: 'webhooks.flow-deliveries',
    title: 'Flow events reach the webhook signed, with every header, only the subscribed types, ids unique per attempt',
    requirements: ['X-WH-001', 'X-WH-002', 'X-WH-003', 'X-WH-004', 'X-WH-005', 'X-WH-006', 'X-WH-010'],
    profiles: BOTH,
    tags: ['webhooks', 'flow'],
    needs: ['apiKey', 'fundedAccounts', 'solvers'],
    phase: PHASE.afterFlows,
    async run(ctx: CheckContext) {
      if (ctx.profile === 'A') await successFlow(ctx, 'Permit2Escrow');
      else await bFlow(ctx);
      const capture = await eventCapture(ctx);
      if (!capture.webhook) ctx.fail(capture.webhookProblem ?? 'no webhook registered');
      await ctx.sleep(300);
      const deliveries = capture.deliveries();
      ctx.evidence.push(capture.webhook.endpoint.evidence('flow deliveries'));
      ctx.require('X-WH-001', deliveries.length > 0, 'the flows produced no webhook delivery');
      expectDeliveries(ctx, deliveries, capture.webhook, await clockOffset(ctx));
      const patterns = EVENT_PATTERNS[ctx.profile];
      const matches = (type: string) => patterns.some((p) => (p.endsWith('.*') ? type.startsWith(p.slice(0, -1)) : p === type));
      const strays = deliveries.map(parseDelivery).filter((b) => b && !matches(String(b.type)));
      ctx.expect(
        'X-WH-010',
        strays.length === 0,
        `delivered types the webhook did not subscribe to: ${strays.map((b) => b?.type).join(', ')}`,
      );
      ctx.note(`${deliveries.length} deliveries`);
    },
  }),

  check({
    id: 'webhooks.event-filter',
    title: 'A webhook for order.settled alone receives no other event type',
    requirements: ['X-WH-010'],
    profiles: ONLY_A,
    tags: ['webhooks', 'flow'],
    needs: ['apiKey', 'fundedAccounts', 'solvers'],
    phase: PHASE.flows - 1,
    async run(ctx: CheckContext) {
      const webhook = await register(ctx, 'only-settled', ['order.settled']);
      await successFlow(ctx, 'Permit2Escrow');
      await webhook.endpoint.waitFor(1, 5_000);
      ctx.evidence.push(webhook.endpoint.evidence());
      const types = webhook.endpoint.deliveries().map((d) => parseDelivery(d)?.type);
      ctx.expect('X-WH-010', types.length > 0, 'order.settled never arrived');
      ctx.expect(
        'X-WH-010',
        types.every((t) => t === 'order.settled'),
        `delivered: ${types.join(', ')}`,
      );
    },
  }),

  check({
    id: 'webhooks.retry-schedule',
    title: 'A failing endpoint gets the retry schedule (A: 5 s, 30 s, 10 min, 1 h, 6 h, 24 h; B: 0, 5 s, 30 s, 5 min, 1 h), one event id',
    requirements: ['A-WH-007', 'B-WH-001', 'X-WH-007', 'X-WH-008', 'X-WH-011'],
    profiles: BOTH,
    tags: ['webhooks', 'timing'],
    needs: ['apiKey'],
    needsAnyOf: ['clock', 'long'],
    phase: PHASE.lateTiming,
    timeoutMs: 120_000,
    async run(ctx: CheckContext) {
      const schedule = ctx.profile === 'A' ? SCHEDULE_A : SCHEDULE_B;
      const requirementId = ctx.profile === 'A' ? 'A-WH-007' : 'B-WH-001';
      const sweep = await failingWebhooks(ctx);
      const { endpoint, eventId, useClock } = sweep.retries;
      const deliveries = endpoint.deliveries().filter((d) => parseDelivery(d)?.id === eventId);
      ctx.evidence.push(endpoint.evidence('attempts'));
      const stamps = deliveries.map((d) => Number(d.headers['x-service-timestamp']));
      const offsets = stamps.map((s) => s - stamps[0]!);
      ctx.note(`attempt offsets (s): ${offsets.join(', ')}; expected ${schedule.join(', ')}`);
      const expected = useClock ? schedule : schedule.slice(0, 3);
      ctx.expect(
        requirementId,
        deliveries.length === expected.length,
        `${deliveries.length} attempts, the schedule has ${expected.length}`,
      );
      expected.forEach((at, i) => {
        if (offsets[i] !== undefined)
          ctx.expect(requirementId, Math.abs(offsets[i]! - at) <= 2, `attempt ${i + 1} at +${offsets[i]} s, the schedule says +${at} s`);
      });
      ctx.expect('X-WH-008', deliveries.length > 1, 'a failed delivery was not retried');
      ctx.expect('X-WH-011', deliveries.length > 1 && deliveries[0]!.answered === 302, 'a 302 answer was not treated as a failure');
      ctx.expect(
        'X-WH-007',
        deliveries.every((d) => parseDelivery(d)?.id === eventId),
        'the event id changed between attempts',
      );
      const deliveryIds = deliveries.map((d) => d.headers['x-service-deliveryid']);
      ctx.expect('X-WH-006', new Set(deliveryIds).size === deliveryIds.length, 'attempts share an X-Service-DeliveryId');
    },
  }),

  check({
    id: 'webhooks.pause-and-enable',
    title: 'After 5 events exhaust every attempt the webhook is paused; POST /v1/webhooks/{id}/enable re-activates it',
    requirements: ['A-WH-008', 'A-WH-005'],
    profiles: ONLY_A,
    tags: ['webhooks', 'timing'],
    needs: ['apiKey', 'clock'],
    phase: PHASE.lateTiming,
    timeoutMs: 120_000,
    async run(ctx: CheckContext) {
      const sweep = await failingWebhooks(ctx);
      const webhook = sweep.stopping;
      if (!webhook) ctx.fail('the pausing endpoint could not be set up');
      ctx.note(`attempts received: ${webhook.endpoint.deliveries().length}`);
      ctx.expect(
        'A-WH-008',
        isObject(sweep.stoppedState) && sweep.stoppedState.active === false,
        `after 5 exhausted events the webhook is ${describeState(sweep.stoppedState)}`,
      );
      webhook.endpoint.behave({ status: 200 });
      const enabled = await ctx.request({
        method: 'POST',
        path: `/v1/webhooks/${webhook.id}/enable`,
        auth: ctx.key,
        label: 'enable (legacy path)',
      });
      ctx.expect('A-WH-005', enabled.status >= 200 && enabled.status < 300, `POST /v1/webhooks/{id}/enable answered ${enabled.status}`);
      const again = await webhookState(ctx, webhook.id);
      ctx.expect('A-WH-005', isObject(again) && again.active === true, 'the webhook is not active after enable');
      const before = webhook.endpoint.deliveries().length;
      const sent = await ctx.api('POST', `/webhooks/${webhook.id}/test`, { auth: ctx.key });
      ctx.expect(
        'A-WH-005',
        sent.status < 300 && (await webhook.endpoint.waitFor(before + 1, 5_000)).at(-1)?.answered === 200,
        'an enabled webhook receives deliveries again',
      );
    },
  }),

  check({
    id: 'webhooks.disable-after-5-failures',
    title: 'After 5 consecutive failed deliveries the webhook is disabled (Reference B)',
    requirements: ['B-WH-002'],
    profiles: ONLY_B,
    tags: ['webhooks', 'timing', 'reference-b'],
    needs: ['apiKey', 'clock'],
    phase: PHASE.lateTiming,
    timeoutMs: 120_000,
    async run(ctx: CheckContext) {
      const sweep = await failingWebhooks(ctx);
      const webhook = sweep.stopping;
      if (!webhook) ctx.fail('the disabling endpoint could not be set up');
      const failures = webhook.endpoint.deliveries().length;
      ctx.note(`${failures} failed deliveries`);
      ctx.expect('B-WH-002', failures >= 5, `only ${failures} deliveries failed`);
      ctx.expect(
        'B-WH-002',
        isObject(sweep.stoppedState) && sweep.stoppedState.active === false,
        `after ${failures} failures the webhook is ${describeState(sweep.stoppedState)}`,
      );
    },
  }),

  check({
    id: 'webhooks.timeout-30s',
    title: 'An endpoint that does not answer within 30 s fails the delivery (retried)',
    requirements: ['X-WH-009'],
    profiles: BOTH,
    tags: ['webhooks', 'timing', 'slow'],
    needs: ['apiKey', 'long'],
    phase: PHASE.lateTiming,
    timeoutMs: 150_000,
    async run(ctx: CheckContext) {
      const webhook = await register(ctx, 'slow', ['*'], { statuses: [-31_000, 200] });
      await provokeEvents(ctx, webhook.id, 1);
      const deliveries = await webhook.endpoint.waitFor(2, 70_000);
      ctx.evidence.push(webhook.endpoint.evidence());
      ctx.expect('X-WH-009', deliveries.length >= 2, 'a delivery left unanswered for 31 s was not retried');
    },
  }),
];
