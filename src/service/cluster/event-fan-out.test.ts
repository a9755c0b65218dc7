import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import WebSocket from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { type SharedDatabase, sharedDatabase } from '../../../test/support/service/instances.js';
import { startTestService, type TestService } from '../../../test/support/service/service.js';
import { TestReceiver } from '../../../test/support/webhooks/receiver.js';
import type { ServiceConfig } from '../config.js';
import type { WebhooksModule } from '../webhooks/module.js';

/**
 * Events across two service instances on one Postgres store, seen from the outside: a taker WebSocket connected to
 * one instance hears what a request to the other caused, in commit order; webhooks go out once, from the instance
 * holding the singleton work, whichever instance committed the event; and an instance that takes that work over
 * delivers what the old holder left, each event once.
 */
let db: SharedDatabase | undefined;
const running: TestService[] = [];
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  for (const service of running.splice(0).reverse()) await service.stop().catch(() => undefined);
  await db?.release();
  db = undefined;
});

async function instance(overrides: Partial<ServiceConfig> = {}): Promise<TestService> {
  db ??= await sharedDatabase();
  const service = await startTestService({ databaseUrl: db.url, databaseSchema: db.schema, leasePollMs: 100, ...overrides });
  running.push(service);
  return service;
}

async function stopInstance(service: TestService): Promise<void> {
  running.splice(running.indexOf(service), 1);
  await service.stop();
}

function wallet(): Address {
  return privateKeyToAccount(generatePrivateKey()).address;
}

/** Adds a member to `owner`'s workspace through `via` (any instance): one `member.added` event committed there. */
async function addMember(via: TestService, owner: TestService): Promise<Address> {
  const address = wallet();
  const response = await via.request('POST', `/api/v1/workspaces/${owner.workspaceId}/members`, {
    key: owner.apiKey,
    body: { address, role: 'viewer' },
  });
  expect(response.status).toBe(201);
  return address;
}

type Message = { type: string; id?: string; member?: { address: string }; [key: string]: unknown };

/** A taker stream client (the `ws` package, nothing of the service) collecting what it receives. */
async function takerStream(service: TestService, key: string, subscribe: Record<string, unknown>) {
  const socket = new WebSocket(`${service.service.wsUrl}?token=${encodeURIComponent(key)}`);
  const received: Message[] = [];
  socket.on('message', (data) => received.push(JSON.parse(data.toString()) as Message));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  cleanups.push(async () => socket.close());
  await expect.poll(() => received.some((m) => m.type === 'auth.ok')).toBe(true);
  socket.send(JSON.stringify({ type: 'subscribe', ...subscribe }));
  await expect.poll(() => received.some((m) => m.type === 'subscribe.ok')).toBe(true);
  return {
    events: () => received.filter((m) => typeof m.id === 'string' && m.id.startsWith('evt_')),
    received,
  };
}

async function until(probe: () => boolean, what: string, timeoutMs = 8_000): Promise<void> {
  const start = Date.now();
  while (!probe()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Longer than the outbox poll: anything sent twice would have arrived by then. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 1_300));

describe('events across instances', () => {
  it('a taker stream on one instance hears events committed on the other, in commit order, with stable ids', async () => {
    const a = await instance();
    const b = await instance();
    const stream = await takerStream(b, a.apiKey, { topics: ['workspace:*'] });

    // Committed on A, on B, on A: B's client hears all three in that order.
    const added = [await addMember(a, a), await addMember(b, a), await addMember(a, a)];
    await expect.poll(() => stream.events().length, { timeout: 5_000 }).toBe(3);
    const live = stream.events();
    expect(live.map((e) => [e.type, e.member?.address])).toEqual(added.map((address) => ['member.added', address]));
    expect(new Set(live.map((e) => e.id)).size).toBe(3);
    await settle();
    expect(stream.events()).toHaveLength(3);

    // Resuming on B from the first event (committed on A) replays the same events, with the same ids.
    const resumed = await takerStream(b, a.apiKey, { topics: ['workspace:*'], cursor: live[0]!.id });
    await expect.poll(() => resumed.received.some((m) => m.type === 'replay.done')).toBe(true);
    expect(resumed.events().map((e) => e.id)).toEqual([live[1]!.id, live[2]!.id]);
    expect(resumed.received.find((m) => m.type === 'replay.done')).toMatchObject({ replayed: 2, truncated: false, cursor: live[2]!.id });
  });

  it('a webhook registered through the holder of the singleton work gets an event committed on the other instance, once', async () => {
    const holder = await instance();
    const other = await instance();
    expect([holder.service.instance.singleton, other.service.instance.singleton]).toEqual([true, false]);
    const receiver = await TestReceiver.start(() => holder.clock.now());
    cleanups.push(() => receiver.stop());
    const created = await holder.request('POST', '/api/v1/webhooks', { body: { url: receiver.url, events: ['member.*'] } });
    expect(created.status).toBe(201);
    const stream = await takerStream(holder, holder.apiKey, { topics: ['workspace:*'] });

    const added = [await addMember(other, holder), await addMember(other, holder)];
    await expect.poll(() => receiver.requests.length, { timeout: 5_000 }).toBe(2);
    await settle();
    const delivered = receiver.events();
    expect(delivered.map((e) => [e.type, (e.member as { address: string }).address])).toEqual(
      added.map((address) => ['member.added', address]),
    );
    // The ids the stream carried: one event, one id, everywhere.
    expect(delivered.map((e) => e.id)).toEqual(stream.events().map((e) => e.id));
    expect(receiver.requests.map((r) => r.headers['x-service-webhookid'])).toEqual([created.body.webhookId, created.body.webhookId]);

    // A replay asked of the other instance is queued there and sent by the holder, which dispatches.
    const replay = await other.request('POST', `/api/v1/webhooks/${created.body.webhookId}/replay`, {
      key: holder.apiKey,
      body: { eventIds: [delivered[0]!.id], includeDelivered: true },
    });
    expect(replay.body).toMatchObject({ replayed: 1, eventIds: [delivered[0]!.id] });
    await expect.poll(() => receiver.requests.length, { timeout: 5_000 }).toBe(3);
    expect(receiver.events()[2]!.id).toBe(delivered[0]!.id);
  });

  it('an instance taking over the singleton work delivers what the old holder left, each event once', async () => {
    // The holder's attempts hang (and its stop abandons them) so that nothing it sends is acknowledged: each event is
    // acknowledged once, by the receiver answering the new holder.
    const holder = await instance({ webhookTimeoutMs: 1_500 });
    const other = await instance();
    expect(holder.service.instance.singleton).toBe(true);
    const acknowledged: string[] = [];
    let holding = true;
    const receiver = await TestReceiver.start(() => other.clock.now());
    cleanups.push(() => receiver.stop());
    receiver.answer = (_index, request) => {
      if (holding) return 'hang';
      acknowledged.push((JSON.parse(request.body) as { id: string }).id);
      return { status: 200 };
    };
    const created = await other.request('POST', '/api/v1/webhooks', { body: { url: receiver.url, events: ['member.*'] } });
    expect(created.status).toBe(201);

    // Two events committed on the other instance, then one on the holder, and the holder stops at once.
    const added = [await addMember(other, other), await addMember(other, other), await addMember(holder, other)];
    // What the holder sent so far hangs. Answer everything sent from now on: the other instance may take the work
    // over (and send) before the holder's stop returns, and its attempt must not hang out its delivery timeout.
    const stopping = stopInstance(holder);
    holding = false;
    await stopping;

    await until(() => other.service.instance.singleton, 'the take-over');
    // An attempt the old holder saw fail is retried on the schedule (5 s): the new holder's clock gets there.
    await other.clock.advance(10_000);
    await until(() => acknowledged.length >= 3, 'three acknowledged deliveries');
    await settle();
    expect(acknowledged).toHaveLength(3);
    expect(new Set(acknowledged).size).toBe(3);
    const bodies = receiver.requests
      .map((r) => JSON.parse(r.body) as { id: string; type: string; member: { address: string } })
      .filter((event) => acknowledged.includes(event.id));
    expect([...new Map(bodies.map((e) => [e.id, [e.type, e.member.address]])).values()]).toEqual(
      added.map((address) => ['member.added', address]),
    );
    // Fanned out once: one message per event for the endpoint, whoever queued it. Their delivery order is not their
    // queueing order: an attempt the old holder started waits for its retry, a message queued by the new holder goes
    // at once (webhooks promise at-least-once delivery, not order).
    const messages = other.service.module<WebhooksModule>('webhooks').messages.messagesOf(created.body.webhookId);
    const byId = (a: string[], b: string[]) => a[0]!.localeCompare(b[0]!);
    expect(messages.map((m) => [m.eventId, m.status]).sort(byId)).toEqual(acknowledged.map((id) => [id, 'succeeded']).sort(byId));
  });
});
