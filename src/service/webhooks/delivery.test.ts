import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RealClock, TestClock } from '../../clock/index.js';
import { verifyWebhook } from '../../clients/webhook-verifier.js';
import type { RealtimeConfig } from '../realtime-config.js';
import type { EvidenceModule } from '../evidence/module.js';
import type { ServiceConfig } from '../config.js';
import { createService, type Service } from '../app.js';
import { startTestService, TEST_EPOCH, type TestService } from '../../../test/support/service/service.js';
import type { WebhooksModule } from './module.js';
import { TestReceiver } from '../../../test/support/webhooks/receiver.js';

const S = 1_000;
const M = 60 * S;
const H = 60 * M;
/** Offsets of schedule A's sends from the first one: retries 5 s, 30 s, 10 min, 1 h, 6 h, 24 h after each failure. */
const OFFSETS_A = [0, 5 * S, 35 * S, 10 * M + 35 * S, H + 10 * M + 35 * S, 7 * H + 10 * M + 35 * S, 31 * H + 10 * M + 35 * S];

function publish(service: Service, workspaceId: string, type = 'order.created', orderId = 'ord_test1'): string {
  const { outbox } = service.module<EvidenceModule>('evidence');
  const stored = outbox.commit(() =>
    outbox.append({
      workspaceId,
      type,
      generation: 'A',
      orderId,
      data: {
        order: {
          id: orderId,
          pair: 'USDC/USDC',
          side: 'buy',
          amount: '25000.00',
          corridor: 'alpha:USDC-beta:USDC',
          fillDeadline: 1893456000,
          status: 'pending',
        },
      },
      at: service.clock.now(),
    }),
  );
  return stored.envelope.id;
}

/** Counts the service store's top-level transactions from now on (nested ones are savepoints of the same commit). */
/** Registers an endpoint through the API of a service a test built itself (the suite's `register` uses `t`). */
function postWebhook(service: Service, apiKey: string, url: string, events: string[] = ['order.*']): Promise<Response> {
  return fetch(`${service.url}/api/v1/webhooks`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ url, events }),
  });
}

function countTransactions(service: Service): { count: number } {
  const db = service.store.db;
  const original = db.transaction.bind(db);
  const counter = { count: 0 };
  let depth = 0;
  db.transaction = ((fn: () => unknown, options?: Parameters<typeof original>[1]) => {
    if (depth === 0) counter.count += 1;
    depth += 1;
    try {
      return original(fn, options);
    } finally {
      depth -= 1;
    }
  }) as typeof db.transaction;
  return counter;
}

/** An HMAC computed here, independently of the service's signer. */
function independentlyValid(secret: string, timestamp: string, body: string, signature: string): boolean {
  const expected = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest();
  const given = Buffer.from(signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

describe('webhook delivery (schedule A)', () => {
  let t: TestService;
  let receiver: TestReceiver;

  beforeEach(async () => {
    t = await startTestService();
    receiver = await TestReceiver.start(() => t.clock.now());
  });

  afterEach(async () => {
    await t.stop();
    await receiver.stop();
  });

  async function register(events: string[] = ['order.*'], url = receiver.url) {
    const response = await t.request('POST', '/api/v1/webhooks', { body: { url, events } });
    expect(response.status).toBe(201);
    return response.body as { webhookId: string; signingKey: string; active: boolean; status: string };
  }

  it('registers an endpoint and signs each delivery with the spec headers', async () => {
    const created = await register();
    expect(created.webhookId).toMatch(/^wh_/);
    expect(created.signingKey).toMatch(/^whsec_test_[A-Za-z0-9]{32}$/);
    expect(created.active).toBe(true);

    const eventId = publish(t.service, t.workspaceId);
    await t.clock.idle();
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    const h = request!.headers;
    expect(h['content-type']).toBe('application/json');
    expect(h['x-service-event']).toBe('order.created');
    expect(h['x-service-webhookid']).toBe(created.webhookId);
    expect(h['x-service-deliveryid']).toMatch(/^dlv_/);
    expect(h['x-service-timestamp']).toBe(String(Math.floor(TEST_EPOCH / 1000)));
    expect(h['x-service-signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(
      independentlyValid(created.signingKey, h['x-service-timestamp'] as string, request!.body, h['x-service-signature'] as string),
    ).toBe(true);
    // A tampered body or another key does not verify.
    expect(
      independentlyValid(
        created.signingKey,
        h['x-service-timestamp'] as string,
        request!.body.replace('25000', '25001'),
        h['x-service-signature'] as string,
      ),
    ).toBe(false);
    expect(
      independentlyValid(`${created.signingKey}x`, h['x-service-timestamp'] as string, request!.body, h['x-service-signature'] as string),
    ).toBe(false);

    const verified = verifyWebhook({
      secret: created.signingKey,
      rawBody: request!.body,
      headers: h,
      nowSeconds: Math.floor(t.clock.now() / 1000),
    });
    expect(verified.event).toMatchObject({ type: 'order.created', id: eventId, timestamp: new Date(TEST_EPOCH).toISOString() });
    expect(verified.event.order).toMatchObject({ id: 'ord_test1', amount: '25000.00' });

    const deliveries = await t.request('GET', `/api/v1/webhooks/${created.webhookId}/deliveries`);
    expect(deliveries.body.data).toEqual([
      expect.objectContaining({
        deliveryId: h['x-service-deliveryid'],
        eventId,
        attempt: 1,
        succeeded: true,
        statusCode: 200,
        nextAttemptAt: null,
      }),
    ]);
  });

  it('uses a given whsec_ secret, and matches only subscribed types and the own workspace', async () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const response = await t.request('POST', '/api/v1/webhooks', { body: { url: receiver.url, events: ['order.settled'], secret } });
    expect(response.body.signingKey).toBe(secret);
    const other = t.service.bootstrapWorkspace('Other');
    publish(t.service, t.workspaceId, 'order.created');
    publish(t.service, other.workspaceId, 'order.settled');
    const wanted = publish(t.service, t.workspaceId, 'order.settled');
    await t.clock.idle();
    expect(receiver.events().map((e) => e.id)).toEqual([wanted]);
    const verified = verifyWebhook({
      secret,
      rawBody: receiver.requests[0]!.body,
      headers: receiver.requests[0]!.headers,
      nowSeconds: TEST_EPOCH / 1000,
    });
    expect(verified.event.id).toBe(wanted);
  });

  it('a receiver failing 3 times then succeeding gets the event at exactly 0, 5 s, 35 s and 10 min 35 s', async () => {
    const { webhookId } = await register();
    receiver.answer = (index) => ({ status: index < 3 ? 500 : 204 });
    const t0 = t.clock.now();
    const eventId = publish(t.service, t.workspaceId);
    await t.clock.idle();
    expect(receiver.requests).toHaveLength(1);
    await t.clock.advance(5 * S - 1);
    expect(receiver.requests).toHaveLength(1);
    await t.clock.advance(1);
    expect(receiver.requests).toHaveLength(2);
    await t.clock.advance(2 * H);
    expect(receiver.requests.map((r) => r.at - t0)).toEqual(OFFSETS_A.slice(0, 4));
    // One event, four attempts: the same evt_ id and body every time, a fresh delivery id each time.
    expect(new Set(receiver.events().map((e) => e.id))).toEqual(new Set([eventId]));
    expect(new Set(receiver.requests.map((r) => r.body)).size).toBe(1);
    expect(new Set(receiver.requests.map((r) => r.headers['x-service-deliveryid'])).size).toBe(4);
    await t.clock.advance(48 * H);
    expect(receiver.requests).toHaveLength(4);

    const log = await t.request('GET', `/api/v1/webhooks/${webhookId}/deliveries`);
    expect(
      log.body.data.map((d: { attempt: number; succeeded: boolean; statusCode: number; nextAttemptAt: string | null }) => [
        d.attempt,
        d.succeeded,
        d.statusCode,
        d.nextAttemptAt,
      ]),
    ).toEqual([
      [4, true, 204, null],
      [3, false, 500, new Date(t0 + OFFSETS_A[3]!).toISOString()],
      [2, false, 500, new Date(t0 + OFFSETS_A[2]!).toISOString()],
      [1, false, 500, new Date(t0 + OFFSETS_A[1]!).toISOString()],
    ]);
  });

  it('treats 3xx as failure and exhausts the whole schedule: last retry 31 h 10 m 35 s after the first send', async () => {
    await register();
    receiver.answer = () => ({ status: 302, headers: { Location: 'https://example.com/' } });
    const t0 = t.clock.now();
    publish(t.service, t.workspaceId);
    await t.clock.idle();
    await t.clock.advance(40 * H);
    expect(receiver.requests.map((r) => r.at - t0)).toEqual(OFFSETS_A);
  });

  it('honours Retry-After on 429 when it asks for more than the schedule, never less, at most 24 h', async () => {
    await register();
    const answers = [
      { status: 429, headers: { 'Retry-After': '120' } },
      { status: 503, headers: { 'Retry-After': '1' } },
      { status: 429, headers: { 'Retry-After': String(7 * 24 * 3600) } },
      { status: 200 },
    ];
    receiver.answer = (index) => answers[index] ?? { status: 200 };
    const t0 = t.clock.now();
    publish(t.service, t.workspaceId);
    await t.clock.idle();
    await t.clock.advance(3 * 24 * H);
    expect(receiver.requests.map((r) => r.at - t0)).toEqual([0, 120 * S, 120 * S + 30 * S, 120 * S + 30 * S + 24 * H]);
  });

  it('pauses after 5 consecutive exhausted events, writes the mailbox, and resumes on enable', async () => {
    const { webhookId } = await register();
    receiver.answer = () => ({ status: 500 });
    for (let i = 0; i < 5; i++) publish(t.service, t.workspaceId, 'order.created', `ord_fail${i}`);
    await t.clock.idle();
    await t.clock.advance(31 * H + 10 * M + 34 * S);
    let state = await t.request('GET', `/api/v1/webhooks/${webhookId}`);
    expect(state.body).toMatchObject({ status: 'active', failureStreak: 0 });
    await t.clock.advance(S);
    expect(receiver.requests).toHaveLength(5 * 7);
    state = await t.request('GET', `/api/v1/webhooks/${webhookId}`);
    expect(state.body).toMatchObject({
      status: 'paused',
      active: false,
      failureStreak: 5,
      stoppedAt: new Date(t.clock.now()).toISOString(),
    });

    const mail = await t.request('GET', '/api/v1/sandbox/mailbox');
    expect(mail.body.data).toHaveLength(1);
    expect(mail.body.data[0]).toMatchObject({ kind: 'webhook.paused', webhookId, subject: expect.stringContaining('paused') });
    expect(mail.body.data[0].body).toContain(`/v1/webhooks/${webhookId}/enable`);

    // Paused: new events do not go out.
    receiver.answer = () => ({ status: 200 });
    const missed = publish(t.service, t.workspaceId, 'order.created', 'ord_missed');
    await t.clock.advance(H);
    expect(receiver.requests).toHaveLength(35);

    const enabled = await t.request('POST', `/v1/webhooks/${webhookId}/enable`);
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ status: 'active', active: true, failureStreak: 0, stoppedAt: null });
    const fresh = publish(t.service, t.workspaceId, 'order.created', 'ord_fresh');
    await t.clock.idle();
    expect(receiver.events().at(-1)!.id).toBe(fresh);

    // What it missed while paused comes back through replay.
    const replay = await t.request('POST', `/api/v1/webhooks/${webhookId}/replay`, {
      body: { since: new Date(t.clock.now() - 2 * H).toISOString() },
    });
    expect(replay.status).toBe(202);
    expect(replay.body).toMatchObject({ replayed: 1, skipped: 1, eventIds: [missed] });
    await t.clock.idle();
    expect(receiver.events().at(-1)!.id).toBe(missed);
    // The /api/v1 spelling of enable works too and is a no-op on an active endpoint.
    expect((await t.request('POST', `/api/v1/webhooks/${webhookId}/enable`)).body.status).toBe('active');
  });

  it('any success resets the count of exhausted events', async () => {
    const { webhookId } = await register();
    let fail = true;
    receiver.answer = () => ({ status: fail ? 500 : 200 });
    for (let i = 0; i < 4; i++) publish(t.service, t.workspaceId, 'order.created', `ord_a${i}`);
    await t.clock.idle();
    await t.clock.advance(32 * H);
    expect((await t.request('GET', `/api/v1/webhooks/${webhookId}`)).body.failureStreak).toBe(4);
    fail = false;
    publish(t.service, t.workspaceId, 'order.created', 'ord_ok');
    await t.clock.idle();
    expect((await t.request('GET', `/api/v1/webhooks/${webhookId}`)).body.failureStreak).toBe(0);
    fail = true;
    for (let i = 0; i < 4; i++) publish(t.service, t.workspaceId, 'order.created', `ord_b${i}`);
    await t.clock.idle();
    await t.clock.advance(32 * H);
    expect((await t.request('GET', `/api/v1/webhooks/${webhookId}`)).body).toMatchObject({ status: 'active', failureStreak: 4 });
  });

  it('the test route sends one signed webhook.test now and reports the attempt, even for a paused endpoint', async () => {
    const { webhookId, signingKey } = await register();
    receiver.answer = () => ({ status: 418 });
    const response = await t.request('POST', `/api/v1/webhooks/${webhookId}/test`);
    expect(response.status).toBe(200);
    expect(response.body.delivery).toMatchObject({ attempt: 1, succeeded: false, statusCode: 418, error: 'HTTP 418', nextAttemptAt: null });
    const verified = verifyWebhook({
      secret: signingKey,
      rawBody: receiver.requests[0]!.body,
      headers: receiver.requests[0]!.headers,
      nowSeconds: TEST_EPOCH / 1000,
    });
    expect(verified.event).toMatchObject({ type: 'webhook.test', id: response.body.eventId, webhook: { id: webhookId } });
    await t.clock.advance(40 * H);
    expect(receiver.requests).toHaveLength(1);
    expect((await t.request('GET', `/api/v1/webhooks/${webhookId}`)).body.failureStreak).toBe(0);
  });

  it('the document states the rule of the route: since or eventIds, and eventIds never with since or until', async () => {
    const document = (await t.request('GET', '/api/v1/openapi.json', { key: null })).body;
    expect(document.components.schemas.WebhookReplayRequest.anyOf).toEqual([{ required: ['since'] }, { required: ['eventIds'] }]);
    expect(document.components.schemas.WebhookReplayRequest.not).toEqual({
      anyOf: [{ required: ['eventIds', 'since'] }, { required: ['eventIds', 'until'] }],
    });
  });

  it('replays named events with their original ids, refuses events older than 7 days and paused endpoints', async () => {
    const { webhookId } = await register();
    const first = publish(t.service, t.workspaceId);
    await t.clock.idle();
    const again = await t.request('POST', `/api/v1/webhooks/${webhookId}/replay`, { body: { eventIds: [first] } });
    expect(again.body).toMatchObject({ replayed: 0, skipped: 1 });
    const forced = await t.request('POST', `/api/v1/webhooks/${webhookId}/replay`, { body: { eventIds: [first], includeDelivered: true } });
    expect(forced.body).toMatchObject({ replayed: 1, eventIds: [first] });
    await t.clock.idle();
    expect(receiver.events().map((e) => e.id)).toEqual([first, first]);
    expect(receiver.requests[0]!.body).toBe(receiver.requests[1]!.body);

    const unknown = await t.request('POST', `/api/v1/webhooks/${webhookId}/replay`, { body: { eventIds: ['evt_nothere'] } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.param).toBe('eventIds.0');
    const notSubscribed = publish(t.service, t.workspaceId, 'compliance.event');
    const wrongType = await t.request('POST', `/api/v1/webhooks/${webhookId}/replay`, { body: { eventIds: [notSubscribed] } });
    expect(wrongType.status).toBe(422);

    await t.clock.advance(7 * 24 * H + S);
    const old = await t.request('POST', `/api/v1/webhooks/${webhookId}/replay`, { body: { eventIds: [first] } });
    expect(old.status).toBe(422);
    expect(old.body.error.code).toBe('replay_window_exceeded');
    const tooEarly = await t.request('POST', `/api/v1/webhooks/${webhookId}/replay`, {
      body: { since: new Date(TEST_EPOCH).toISOString() },
    });
    expect(tooEarly.status).toBe(422);
    expect(tooEarly.body.error.param).toBe('since');
    // A window past the service clock's now is refused like one older than 7 days (both are clock-relative).
    const now = Date.parse((await t.request('GET', '/api/v1/sandbox/clock')).body.now);
    const future = await t.request('POST', `/api/v1/webhooks/${webhookId}/replay`, {
      body: { since: new Date(now + 60_000).toISOString() },
    });
    expect(future.status).toBe(422);
    expect(future.body.error).toMatchObject({ code: 'replay_window_exceeded', param: 'since' });
    const untilAhead = await t.request('POST', `/api/v1/webhooks/${webhookId}/replay`, {
      body: { since: new Date(now - 60_000).toISOString(), until: new Date(now + 60_000).toISOString() },
    });
    expect(untilAhead.status).toBe(422);
    expect(untilAhead.body.error).toMatchObject({ code: 'replay_window_exceeded', param: 'until' });
    const reversed = await t.request('POST', `/api/v1/webhooks/${webhookId}/replay`, {
      body: { since: new Date(now - 60_000).toISOString(), until: new Date(now - 120_000).toISOString() },
    });
    expect(reversed.status).toBe(400);
    const neither = await t.request('POST', `/api/v1/webhooks/${webhookId}/replay`, { body: {} });
    expect(neither.status).toBe(400);
    expect(neither.body.error.param).toBe('since');
  });

  it('validates registrations: URL policy, event patterns, secret format, ownership', async () => {
    // Well-formed URLs whose destination the policy refuses are business-rule refusals (422).
    // `xn--a` matches the documented pattern but is not valid punycode, so no delivery could reach it.
    for (const url of [
      'http://example.com/hook',
      'https://10.0.0.1/hook',
      'https://169.254.169.254/latest',
      'https://xn--a.example/hook',
    ]) {
      const refused = await t.request('POST', '/api/v1/webhooks', { body: { url, events: ['order.*'] } });
      expect(refused.status, url).toBe(422);
      expect(refused.body.error).toMatchObject({ code: 'url_not_allowed', param: 'url' });
    }
    const cases: Array<[unknown, string]> = [
      [{ url: 'ftp://127.0.0.1/x', events: ['order.*'] }, 'url'],
      [{ url: 'http://user:pw@127.0.0.1/x', events: ['order.*'] }, 'url'],
      // Outside the documented pattern: a host ending in a number that is no IPv4 address (found by Schemathesis),
      // an address octet past 255, a port past 65535.
      [{ url: 'http://t.S7.y.Ltfz.0:56130/x', events: ['order.*'] }, 'url'],
      [{ url: 'http://127.0.0.256/x', events: ['order.*'] }, 'url'],
      [{ url: 'http://127.0.0.1:65536/x', events: ['order.*'] }, 'url'],
      [{ url: receiver.url, events: [] }, 'events'],
      [{ url: receiver.url, events: ['order.setled'] }, 'events.0'],
      [{ url: receiver.url, events: ['order.*', 'Order Created'] }, 'events.1'],
      [{ url: receiver.url, events: ['order.*'], secret: 'not-a-secret' }, 'secret'],
      [{ url: receiver.url, events: ['order.*'], extra: 1 }, 'extra'],
      [{ events: ['order.*'] }, 'url'],
    ];
    for (const [body, param] of cases) {
      const response = await t.request('POST', '/api/v1/webhooks', { body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.param, JSON.stringify(body)).toBe(param);
    }
    expect((await t.request('POST', '/api/v1/webhooks', { body: { url: receiver.url, events: ['order.*'] }, key: null })).status).toBe(401);
    const localhost = await t.request('POST', '/api/v1/webhooks', { body: { url: 'http://localhost:9/hook', events: ['*'] } });
    expect(localhost.status).toBe(201);

    const { webhookId } = await register(['order.*', 'settlement.*']);
    const other = t.service.bootstrapWorkspace('Other');
    expect((await t.request('GET', `/api/v1/webhooks/${webhookId}`, { key: other.apiKey })).status).toBe(404);
    expect((await t.request('DELETE', `/api/v1/webhooks/${webhookId}`, { key: other.apiKey })).status).toBe(404);
    const list = await t.request('GET', '/api/v1/webhooks');
    expect(list.body.total_count).toBe(2);
    expect(list.body.data[0]).not.toHaveProperty('signingKey');
    expect((await t.request('GET', '/api/v1/webhooks/wh_nothere')).status).toBe(404);
    expect((await t.request('GET', '/api/v1/webhooks/nothere')).body.error.param).toBe('webhookId');
  });

  it('delete cancels pending retries', async () => {
    const { webhookId } = await register();
    receiver.answer = () => ({ status: 500 });
    publish(t.service, t.workspaceId);
    await t.clock.idle();
    const deleted = await t.request('DELETE', `/api/v1/webhooks/${webhookId}`);
    expect(deleted.body).toEqual({ webhookId, deleted: true });
    await t.clock.advance(40 * H);
    expect(receiver.requests).toHaveLength(1);
    expect((await t.request('GET', `/api/v1/webhooks/${webhookId}`)).status).toBe(404);
  });
});

describe('webhook delivery: timeouts, schedule B and restarts', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('no answer within the timeout is a failure (wall-clock timeout, clock-time retries)', async () => {
    const realtime: Partial<ServiceConfig> & RealtimeConfig = { webhookTimeoutMs: 150 };
    const t = await startTestService(realtime);
    cleanups.push(() => t.stop());
    const receiver = await TestReceiver.start(() => t.clock.now());
    cleanups.push(() => receiver.stop());
    receiver.answer = (index) => (index === 0 ? 'hang' : { status: 200 });
    const { body } = await t.request('POST', '/api/v1/webhooks', { body: { url: receiver.url, events: ['order.created'] } });
    const t0 = t.clock.now();
    publish(t.service, t.workspaceId);
    await t.clock.idle();
    await t.clock.advance(10 * S);
    expect(receiver.requests.map((r) => r.at - t0)).toEqual([0, 5 * S]);
    const log = await t.request('GET', `/api/v1/webhooks/${body.webhookId}/deliveries`);
    expect(log.body.data[1]).toMatchObject({ attempt: 1, succeeded: false, statusCode: null, error: 'timeout: no answer within 0 s' });
    expect(log.body.data[0]).toMatchObject({ attempt: 2, succeeded: true });
  });

  it('schedule B: 5 attempts (0, 5 s, 35 s, 5 min 35 s, 1 h 5 min 35 s), disabled after 5 consecutive failures', async () => {
    const realtime: Partial<ServiceConfig> & RealtimeConfig = { webhookProfile: 'B' };
    const t = await startTestService(realtime);
    cleanups.push(() => t.stop());
    const receiver = await TestReceiver.start(() => t.clock.now());
    cleanups.push(() => receiver.stop());
    receiver.answer = () => ({ status: 500 });
    const { body } = await t.request('POST', '/api/v1/webhooks', { body: { url: receiver.url, events: ['settlement.*', 'order.*'] } });
    const t0 = t.clock.now();
    publish(t.service, t.workspaceId);
    await t.clock.idle();
    await t.clock.advance(H + 5 * M + 34 * S);
    expect((await t.request('GET', `/api/v1/webhooks/${body.webhookId}`)).body).toMatchObject({ status: 'active', failureStreak: 4 });
    await t.clock.advance(S);
    expect(receiver.requests.map((r) => r.at - t0)).toEqual([0, 5 * S, 35 * S, 5 * M + 35 * S, H + 5 * M + 35 * S]);
    expect((await t.request('GET', `/api/v1/webhooks/${body.webhookId}`)).body).toMatchObject({
      status: 'disabled',
      active: false,
      failureStreak: 5,
    });
    const mail = await t.request('GET', '/api/v1/sandbox/mailbox');
    expect(mail.body.data[0]).toMatchObject({ kind: 'webhook.disabled', webhookId: body.webhookId });
    expect((await t.request('POST', `/v1/webhooks/${body.webhookId}/enable`)).body.status).toBe('active');
  });

  it('schedule B counts failed attempts across events, and a success in between resets it', async () => {
    const realtime: Partial<ServiceConfig> & RealtimeConfig = { webhookProfile: 'B' };
    const t = await startTestService(realtime);
    cleanups.push(() => t.stop());
    const receiver = await TestReceiver.start(() => t.clock.now());
    cleanups.push(() => receiver.stop());
    const { body } = await t.request('POST', '/api/v1/webhooks', { body: { url: receiver.url, events: ['order.*'] } });
    receiver.answer = (index) => ({ status: index === 3 ? 200 : 500 });
    const streak = async () => (await t.request('GET', `/api/v1/webhooks/${body.webhookId}`)).body.failureStreak as number;
    for (let i = 0; i < 3; i++) {
      publish(t.service, t.workspaceId, 'order.created', `ord_${i}`);
      await t.clock.idle();
    }
    expect(await streak()).toBe(3);
    publish(t.service, t.workspaceId, 'order.created', 'ord_ok');
    await t.clock.idle();
    expect(await streak()).toBe(0);
    // The retries of the three failed events fail again: the count starts over from the success.
    await t.clock.advance(5 * S);
    expect(await streak()).toBe(3);
  });

  it('production: HTTPS to public addresses only, whsec_live_ keys, no sandbox mailbox route', async () => {
    const t = await startTestService({ environment: 'production' });
    cleanups.push(() => t.stop());
    for (const url of ['http://127.0.0.1:9/hook', 'https://localhost/hook', 'https://10.1.1.1/hook', 'http://93.184.216.34/hook']) {
      const refused = await t.request('POST', '/api/v1/webhooks', { body: { url, events: ['order.*'] } });
      // Well-formed URLs the destination policy refuses: a business rule (422).
      expect(refused.status, url).toBe(422);
      expect(refused.body.error).toMatchObject({ code: 'url_not_allowed', param: 'url' });
    }
    const created = await t.request('POST', '/api/v1/webhooks', { body: { url: 'https://93.184.216.34/hook', events: ['order.*'] } });
    expect(created.status).toBe(201);
    expect(created.body.signingKey).toMatch(/^whsec_live_/);
    expect((await t.request('GET', '/api/v1/sandbox/mailbox')).status).toBe(404);
  });

  it('under the real clock a hanging receiver holds up neither other endpoints nor other timed jobs', async () => {
    const realtime: Partial<ServiceConfig> & RealtimeConfig = { clock: new RealClock(), webhookTimeoutMs: 5_000 };
    const service = await createService({ environment: 'sandbox', chains: [], logger: { level: 'silent' }, ...realtime });
    cleanups.push(() => service.stop());
    const { workspaceId, apiKey } = service.bootstrapWorkspace('Real');
    const slow = await TestReceiver.start(() => Date.now());
    const fast = await TestReceiver.start(() => Date.now());
    cleanups.push(
      () => slow.stop(),
      () => fast.stop(),
    );
    slow.answer = () => 'hang';
    for (const receiver of [slow, fast]) {
      const response = await postWebhook(service, apiKey, receiver.url);
      expect(response.status).toBe(201);
    }
    const started = Date.now();
    publish(service, workspaceId);
    let jobRan = 0;
    service.clock.schedule(service.clock.now() + 50, () => void (jobRan = Date.now()), { name: 'test.other-job' });
    while ((fast.requests.length === 0 || jobRan === 0 || slow.requests.length === 0) && Date.now() - started < 3_000) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(slow.requests).toHaveLength(1);
    expect(fast.requests).toHaveLength(1);
    expect(jobRan).toBeGreaterThan(0);
    expect(jobRan - started).toBeLessThan(1_000);
  });

  it('one endpoint receives one attempt at a time, in commit order, so the spec sequences arrive in order', async () => {
    const realtime: Partial<ServiceConfig> & RealtimeConfig = { clock: new RealClock(), webhookTimeoutMs: 400 };
    const service = await createService({ environment: 'sandbox', chains: [], logger: { level: 'silent' }, ...realtime });
    cleanups.push(() => service.stop());
    const { workspaceId, apiKey } = service.bootstrapWorkspace('Ordered');
    const receiver = await TestReceiver.start(() => Date.now());
    cleanups.push(() => receiver.stop());
    // The first delivery hangs until the timeout: the second must wait for it, not overtake it.
    receiver.answer = (index) => (index === 0 ? 'hang' : { status: 200 });
    const response = await postWebhook(service, apiKey, receiver.url, ['order.*', 'compliance.*']);
    expect(response.status).toBe(201);
    const { outbox } = service.module<EvidenceModule>('evidence');
    const data = {
      order: { id: 'ord_seq', originTxHash: '0x01', destinationTxHash: '0x02', amount: '1.00', settledAt: '2026-01-01T00:00:00.000Z' },
    };
    outbox.commit(() => {
      outbox.append({ workspaceId, type: 'order.settled', generation: 'A', orderId: 'ord_seq', data, at: service.clock.now() });
      outbox.append({
        workspaceId,
        type: 'compliance.event',
        generation: 'A',
        orderId: 'ord_seq',
        data: { compliance: { orderId: 'ord_seq' } },
        at: service.clock.now(),
      });
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.events().map((e) => e.type)).toEqual(['order.settled']);
    const started = Date.now();
    while (receiver.requests.length < 2 && Date.now() - started < 3_000) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(receiver.events().map((e) => e.type)).toEqual(['order.settled', 'compliance.event']);
  });

  it('a stopping service sends nothing more: what queued behind a hanging attempt goes out after the restart, in order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webhook-stop-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const base = {
      environment: 'sandbox' as const,
      chains: [],
      storePath: join(dir, 'service.sqlite'),
      logger: { level: 'silent' },
      webhookTimeoutMs: 400,
    };
    const first = await createService({ ...base, clock: new RealClock() });
    const { workspaceId, apiKey } = first.bootstrapWorkspace('Stopping');
    const receiver = await TestReceiver.start(() => Date.now());
    cleanups.push(() => receiver.stop());
    receiver.answer = (index) => (index === 0 ? 'hang' : { status: 200 });
    const response = await postWebhook(first, apiKey, receiver.url, ['order.*', 'compliance.*']);
    expect(response.status).toBe(201);
    const { outbox } = first.module<EvidenceModule>('evidence');
    outbox.commit(() => {
      const at = first.clock.now();
      outbox.append({ workspaceId, type: 'order.settled', generation: 'A', orderId: 'ord_stop', data: { order: { id: 'ord_stop' } }, at });
      outbox.append({
        workspaceId,
        type: 'compliance.event',
        generation: 'A',
        orderId: 'ord_stop',
        data: { compliance: { orderId: 'ord_stop' } },
        at,
      });
    });
    const started = Date.now();
    while (receiver.requests.length < 1 && Date.now() - started < 3_000) await new Promise((resolve) => setTimeout(resolve, 10));
    // Stopped while order.settled hangs: compliance.event, queued behind it, must not go out from a stopped service.
    await first.stop();
    expect(receiver.events().map((e) => e.type)).toEqual(['order.settled']);

    const second = await createService({ ...base, clock: new RealClock() });
    cleanups.push(() => second.stop());
    while (receiver.requests.length < 3 && Date.now() - started < 6_000) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(receiver.events().map((e) => e.type)).toEqual(['order.settled', 'order.settled', 'compliance.event']);
  });

  it('events no endpoint wants open no store transaction; their fan-out cursor is written later, and re-examining them queues nothing twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webhook-cursor-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const base = { environment: 'sandbox' as const, chains: [], storePath: join(dir, 'service.sqlite'), logger: { level: 'silent' } };
    const receiver = await TestReceiver.start(() => Date.now());
    cleanups.push(() => receiver.stop());
    const first = await createService({ ...base, clock: new RealClock() });
    const { workspaceId, apiKey } = first.bootstrapWorkspace('Cursor');
    const created = await postWebhook(first, apiKey, receiver.url).then((r) => r.json() as Promise<{ webhookId: string }>);
    const { messages } = first.module<WebhooksModule>('webhooks');
    const transactions = countTransactions(first);
    const wanted = publish(first, workspaceId, 'order.created', 'ord_cursor');
    await new Promise((resolve) => setImmediate(resolve));
    // The publisher's commit and the fan-out's (the message and the cursor).
    expect(transactions.count).toBe(2);
    const afterWanted = messages.fanOutCursor();
    const started = Date.now();
    const delivered = () => messages.messagesOf(created.webhookId)[0]?.status === 'succeeded';
    while (!delivered() && Date.now() - started < 5_000) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(delivered()).toBe(true);
    transactions.count = 0;
    for (let i = 0; i < 3; i++) publish(first, workspaceId, 'compliance.event', 'ord_cursor');
    await new Promise((resolve) => setImmediate(resolve));
    // Only the publishers' commits: no endpoint wants compliance.event, so the fan-out wrote nothing yet.
    expect(transactions.count).toBe(3);
    expect(messages.fanOutCursor()).toBe(afterWanted);
    const lastSeq = first.module<EvidenceModule>('evidence').outbox.lastSeq();
    while (messages.fanOutCursor() < lastSeq && Date.now() - started < 5_000) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(messages.fanOutCursor()).toBe(lastSeq);
    // A crash before the cursor was written leaves it behind: the next start looks at those events again.
    first.store.db.prepare('UPDATE webhook_fanout_cursor SET seq = 0').run();
    await first.stop();
    const second = await createService({ ...base, clock: new RealClock() });
    cleanups.push(() => second.stop());
    const again = second.module<WebhooksModule>('webhooks').messages;
    expect(again.fanOutCursor()).toBe(lastSeq);
    expect(again.messagesOf(created.webhookId).map((m) => m.eventId)).toEqual([wanted]);
    expect(receiver.events().map((e) => e.id)).toEqual([wanted]);
  });

  it('a restart mid-schedule loses nothing: the next attempt goes out at its original time', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webhook-restart-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const storePath = join(dir, 'service.sqlite');
    const base = { environment: 'sandbox' as const, chains: [], storePath, logger: { level: 'silent' } };
    const clock1 = new TestClock({ start: TEST_EPOCH });
    let now = () => clock1.now();
    const receiver = await TestReceiver.start(() => now());
    cleanups.push(() => receiver.stop());
    receiver.answer = (index) => ({ status: index < 3 ? 503 : 200 });

    const first = await createService({ ...base, clock: clock1 });
    const { workspaceId, apiKey } = first.bootstrapWorkspace('Restart');
    const created = await postWebhook(first, apiKey, receiver.url).then((r) => r.json() as Promise<{ webhookId: string }>);
    const eventId = publish(first, workspaceId);
    await clock1.idle();
    await clock1.advance(40 * S);
    expect(receiver.requests.map((r) => r.at - TEST_EPOCH)).toEqual([0, 5 * S, 35 * S]);
    // An event committed but never announced (a crash between commit and notification) must go out too.
    const { outbox } = first.module<EvidenceModule>('evidence');
    const silent = first.store.transaction(() =>
      outbox.append({
        workspaceId,
        type: 'order.settled',
        generation: 'A',
        orderId: 'ord_test1',
        data: { order: { id: 'ord_test1' } },
        at: clock1.now(),
      }),
    );
    await first.stop();

    const clock2 = new TestClock({ start: clock1.now() });
    now = () => clock2.now();
    const second = await createService({ ...base, clock: clock2 });
    cleanups.push(() => second.stop());
    await clock2.idle();
    // The unannounced event was picked up from the table at start and delivered at once.
    expect(receiver.events().at(-1)!.id).toBe(silent.envelope.id);
    expect(receiver.requests).toHaveLength(4);
    await clock2.advanceTo(TEST_EPOCH + 10 * M + 35 * S - 1);
    expect(receiver.requests).toHaveLength(4);
    await clock2.advance(1);
    expect(receiver.requests).toHaveLength(5);
    expect(receiver.requests[4]!.at - TEST_EPOCH).toBe(10 * M + 35 * S);
    expect(receiver.events()[4]!.id).toBe(eventId);
    const webhooks = second.module<WebhooksModule>('webhooks');
    const messages = webhooks.messages.messagesOf(created.webhookId);
    expect(messages.map((m) => [m.eventId, m.status, m.attempts])).toEqual([
      [eventId, 'succeeded', 4],
      [silent.envelope.id, 'succeeded', 1],
    ]);
  });
});
