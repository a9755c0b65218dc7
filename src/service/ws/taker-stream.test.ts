import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { ServiceConfig } from '../config.js';
import type { RealtimeConfig } from '../realtime-config.js';
import type { EvidenceModule } from '../evidence/module.js';
import type { Service } from '../app.js';
import { sampleChains, startTestService, TEST_EPOCH, type TestService } from '../../../test/support/service/service.js';
import type { TakerStreamModule } from './taker-stream.js';

type Message = { type: string; [key: string]: any };

/** A raw client of the wire protocol: every message it receives is queued for `next`. */
class Probe {
  readonly received: Message[] = [];
  closed: { code: number; reason: string } | undefined;
  private waiters: Array<() => void> = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.received.push(JSON.parse(data.toString()));
      this.wake();
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.wake();
    });
    ws.on('error', () => undefined);
  }

  static async open(url: string, headers?: Record<string, string>): Promise<Probe> {
    const ws = new WebSocket(url, headers === undefined ? undefined : { headers });
    const probe = new Probe(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return probe;
  }

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /** The next message (in order) matching `type`, skipping nothing else silently: earlier ones stay for later calls. */
  async next(type?: string, timeoutMs = 2_000): Promise<Message> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.received.findIndex((m) => type === undefined || m.type === type);
      if (index >= 0) return this.received.splice(index, 1)[0]!;
      if (this.closed !== undefined) throw new Error(`closed (${this.closed.code} ${this.closed.reason}) while waiting for ${type}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${type ?? 'message'} within ${timeoutMs} ms; got ${JSON.stringify(this.received)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async closedWith(timeoutMs = 2_000): Promise<{ code: number; reason: string }> {
    const deadline = Date.now() + timeoutMs;
    while (this.closed === undefined) {
      if (Date.now() > deadline) throw new Error('still open');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return this.closed;
  }

  /** Lets in-flight frames arrive, then asserts nothing else came. */
  async quiet(ms = 100): Promise<Message[]> {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return this.received.splice(0);
  }

  close(): void {
    this.ws.close();
  }
}

function publish(
  service: Service,
  workspaceId: string,
  options: { type?: string; orderId?: string; generation?: 'A' | 'B'; data?: Record<string, unknown> } = {},
) {
  const { outbox } = service.module<EvidenceModule>('evidence');
  const orderId = options.orderId ?? 'ord_one';
  return outbox.commit(() =>
    outbox.append({
      workspaceId,
      type: options.type ?? 'order.created',
      generation: options.generation ?? 'A',
      ...(options.generation === 'B' ? { rfqId: 'rfq_one' } : { orderId }),
      data: options.data ?? { order: { id: orderId, amount: '25000.00', status: 'pending' } },
      at: service.clock.now(),
    }),
  ).envelope;
}

describe('taker stream /api/v1/ws', () => {
  let t: TestService;
  const probes: Probe[] = [];
  const open = async (query = '', headers?: Record<string, string>) => {
    const probe = await Probe.open(`${t.service.wsUrl}${query}`, headers);
    probes.push(probe);
    return probe;
  };
  const authed = async (key = t.apiKey) => {
    const probe = await open(`?token=${encodeURIComponent(key)}`);
    await probe.next('auth.ok');
    return probe;
  };

  beforeEach(async () => {
    const config: Partial<ServiceConfig> & RealtimeConfig = { chains: sampleChains(), takerStream: { maxBufferedBytes: 64 * 1024 } };
    t = await startTestService(config);
  });

  afterEach(async () => {
    for (const probe of probes.splice(0)) probe.close();
    await t.stop();
  });

  it('authenticates by ?token=, by an auth message, and by a Bearer header', async () => {
    const byQuery = await open(`?token=${t.apiKey}`);
    expect(await byQuery.next()).toEqual({ type: 'auth.ok', environment: 'sandbox', workspaceId: t.workspaceId });
    const byMessage = await open();
    byMessage.send({ type: 'auth', token: t.apiKey });
    expect(await byMessage.next()).toEqual({ type: 'auth.ok', environment: 'sandbox', workspaceId: t.workspaceId });
    const byHeader = await open('', { Authorization: `Bearer ${t.apiKey}` });
    expect((await byHeader.next()).type).toBe('auth.ok');
    byMessage.send({ type: 'auth', token: t.apiKey });
    expect((await byMessage.next('error')).error.code).toBe('already_authenticated');
  });

  it('refuses bad credentials both ways with an error and close code 4401', async () => {
    const wrongEnvironment = t.apiKey.replace('svc_test_', 'svc_live_');
    // A key with its last character changed (to one it surely is not) is an invalid key.
    const tampered = `${t.apiKey.slice(0, -1)}${t.apiKey.endsWith('0') ? '1' : '0'}`;
    for (const token of ['garbage', wrongEnvironment, tampered]) {
      const byQuery = await open(`?token=${encodeURIComponent(token)}`);
      const error = await byQuery.next('error');
      expect(error.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
      expect(error.error.doc_url).toMatch(/\/docs\/errors#invalid_api_key$/);
      expect((await byQuery.closedWith()).code).toBe(4401);

      const byMessage = await open();
      byMessage.send({ type: 'auth', token });
      expect((await byMessage.next('error')).error.code).toBe('invalid_api_key');
      expect((await byMessage.closedWith()).code).toBe(4401);
    }
  });

  it('answers messages before auth with authentication_required, and drops a silent connection after 30 s of clock time', async () => {
    const probe = await open();
    probe.send({ type: 'subscribe', topics: ['orders:*'] });
    expect((await probe.next('error')).error).toMatchObject({ type: 'authentication_error', code: 'authentication_required' });
    await t.clock.advance(29_999);
    expect(probe.closed).toBeUndefined();
    await t.clock.advance(1);
    expect((await probe.closedWith()).code).toBe(4401);
  });

  it('answers subscribe with subscribe.ok for every topic form, and names the bad topic', async () => {
    const probe = await authed();
    const topics = [
      'orders:*',
      'orders:ord_abc',
      'prices:alpha:USDC:beta:USDC:retail',
      'prices:31337001:0x00000000000000000000000000000000000000C1:beta:usdc:institutional',
      'prices:alpha:USDC-beta:USDC',
    ];
    probe.send({ type: 'subscribe', topics });
    expect(await probe.next()).toEqual({ type: 'subscribe.ok', topics });
    probe.send({ type: 'subscribe', channels: ['settlement.*', 'rfq.created'], corridors: ['alpha:USDC-beta:USDC'] });
    expect(await probe.next()).toEqual({
      type: 'subscribe.ok',
      channels: ['settlement.*', 'rfq.created'],
      corridors: ['alpha:USDC-beta:USDC'],
    });

    const bad: Array<[unknown, string, string]> = [
      [{ type: 'subscribe', topics: ['orders:*', 'order:*'] }, 'topics.1', 'topic_invalid'],
      [{ type: 'subscribe', topics: ['prices:alpha:USDC:beta:USDC:vip'] }, 'topics.0', 'topic_invalid'],
      [{ type: 'subscribe', topics: ['prices:alpha:USDT:beta:USDT:retail'] }, 'topics.0', 'topic_invalid'],
      [{ type: 'subscribe', topics: ['prices:nowhere'] }, 'topics.0', 'topic_invalid'],
      [{ type: 'subscribe', channels: ['Settlement Complete'] }, 'channels.0', 'topic_invalid'],
      [{ type: 'subscribe', topics: [] }, 'topics', 'parameter_missing'],
      [{ type: 'subscribe', topics: 'orders:*' }, 'topics', 'parameter_invalid'],
      [{ type: 'subscribe', topics: ['orders:*'], cursor: 'nope' }, 'cursor', 'parameter_invalid'],
      [{ type: 'subscribe', topics: ['orders:*'], cursor: 'evt_unknown' }, 'cursor', 'cursor_not_found'],
      [{ type: 'dance' }, 'type', 'message_type_unknown'],
    ];
    for (const [message, param, code] of bad) {
      probe.send(message);
      const error = await probe.next('error');
      expect(error.error, JSON.stringify(message)).toMatchObject({ code, param });
    }
    probe.send('{not json');
    expect((await probe.next('error')).error.code).toBe('invalid_json');
    expect(probe.closed).toBeUndefined();
  });

  it('delivers committed events live to matching subscriptions of the own workspace only', async () => {
    const all = await authed();
    all.send({ type: 'subscribe', topics: ['orders:*'] });
    await all.next('subscribe.ok');
    const one = await authed();
    one.send({ type: 'subscribe', topics: ['orders:ord_mine'] });
    await one.next('subscribe.ok');
    const other = t.service.bootstrapWorkspace('Other');
    const stranger = await authed(other.apiKey);
    stranger.send({ type: 'subscribe', topics: ['orders:*'] });
    await stranger.next('subscribe.ok');

    const mine = publish(t.service, t.workspaceId, { orderId: 'ord_mine' });
    const theirs = publish(t.service, t.workspaceId, { orderId: 'ord_theirs', type: 'order.settled' });
    publish(t.service, other.workspaceId, { orderId: 'ord_elsewhere' });

    expect(await all.next()).toEqual(mine);
    expect(await all.next()).toEqual(theirs);
    expect(mine).toMatchObject({
      type: 'order.created',
      id: expect.stringMatching(/^evt_/),
      timestamp: new Date(TEST_EPOCH).toISOString(),
    });
    expect(await one.next()).toEqual(mine);
    expect(await one.quiet()).toEqual([]);
    expect((await stranger.next()).order.id).toBe('ord_elsewhere');
    expect(await stranger.quiet()).toEqual([]);

    all.send({ type: 'unsubscribe', topics: ['orders:*'] });
    expect(await all.next()).toEqual({ type: 'unsubscribe.ok', topics: ['orders:*'] });
    publish(t.service, t.workspaceId);
    expect(await all.quiet()).toEqual([]);
  });

  it('matches Reference B channels by exact name and glob, with the corridor filter', async () => {
    const probe = await authed();
    probe.send({ type: 'subscribe', channels: ['settlement.*', 'rfq.created'], corridors: ['alpha:USDC-beta:USDC'] });
    await probe.next('subscribe.ok');
    const complete = publish(t.service, t.workspaceId, {
      type: 'settlement.complete',
      generation: 'B',
      data: { settlement: { id: 'stl_1', amount: '1.00' } },
    });
    publish(t.service, t.workspaceId, { type: 'quote.received', generation: 'B', data: { quote: { id: 'qt_1' } } });
    publish(t.service, t.workspaceId, {
      type: 'rfq.created',
      generation: 'B',
      data: { rfq: { id: 'rfq_2', corridor: 'beta:USDC-alpha:USDC' } },
    });
    const wanted = publish(t.service, t.workspaceId, {
      type: 'rfq.created',
      generation: 'B',
      data: { rfq: { id: 'rfq_1', corridor: 'alpha:USDC-beta:USDC' } },
    });
    publish(t.service, t.workspaceId, { type: 'order.created' });
    expect(await probe.next()).toEqual(complete);
    expect(await probe.next()).toEqual(wanted);
    expect(await probe.quiet()).toEqual([]);
  });

  it('pings every 30 s of clock time; a pong keeps the connection, a missing pong drops it', async () => {
    const probe = await authed();
    await t.clock.advance(29_999);
    expect(await probe.quiet(50)).toEqual([]);
    await t.clock.advance(1);
    expect(await probe.next()).toEqual({ type: 'ping' });
    probe.send({ type: 'pong' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await t.clock.advance(30_000);
    expect(await probe.next()).toEqual({ type: 'ping' });
    expect(probe.closed).toBeUndefined();
    // No answer this time: at the next interval the connection goes.
    await t.clock.advance(29_999);
    expect(probe.closed).toBeUndefined();
    await t.clock.advance(1);
    expect(await probe.closedWith()).toMatchObject({ code: 4408 });
    // A client ping is answered.
    const other = await authed();
    other.send({ type: 'ping' });
    expect(await other.next()).toEqual({ type: 'pong' });
  });

  it('replays the events after a cursor among the last 100, then goes live', async () => {
    const events = Array.from({ length: 5 }, (_, i) => publish(t.service, t.workspaceId, { orderId: `ord_${i}` }));
    const probe = await authed();
    probe.send({ type: 'subscribe', topics: ['orders:*'], cursor: events[1]!.id });
    expect(await probe.next()).toEqual({ type: 'subscribe.ok', topics: ['orders:*'] });
    expect(await probe.next()).toEqual(events[2]);
    expect(await probe.next()).toEqual(events[3]);
    expect(await probe.next()).toEqual(events[4]);
    expect(await probe.next()).toEqual({ type: 'replay.done', replayed: 3, truncated: false, cursor: events[4]!.id });
    const live = publish(t.service, t.workspaceId, { orderId: 'ord_live' });
    expect(await probe.next()).toEqual(live);
    expect(await probe.quiet()).toEqual([]);

    // A cursor on one order replays only that order's events.
    const narrow = await authed();
    narrow.send({ type: 'subscribe', topics: ['orders:ord_3'], cursor: events[0]!.id });
    await narrow.next('subscribe.ok');
    expect(await narrow.next()).toEqual(events[3]);
    expect(await narrow.next()).toMatchObject({ type: 'replay.done', replayed: 1, truncated: false });

    // Another workspace's event id is not a cursor here.
    const other = t.service.bootstrapWorkspace('Other');
    const foreign = publish(t.service, other.workspaceId);
    probe.send({ type: 'subscribe', topics: ['orders:*'], cursor: foreign.id });
    expect((await probe.next('error')).error.code).toBe('cursor_not_found');
  });

  it('replays at most the last 100 events and says when the cursor fell out of the window', async () => {
    const events = Array.from({ length: 150 }, (_, i) => publish(t.service, t.workspaceId, { orderId: `ord_${i}` }));
    const probe = await authed();
    probe.send({ type: 'subscribe', topics: ['orders:*'], cursor: events[0]!.id });
    await probe.next('subscribe.ok');
    const replayed: Message[] = [];
    for (let i = 0; i < 100; i++) replayed.push(await probe.next());
    expect(replayed.map((e) => e.id)).toEqual(events.slice(50).map((e) => e.id));
    expect(await probe.next()).toEqual({ type: 'replay.done', replayed: 100, truncated: true, cursor: events[149]!.id });
  });

  it('allows 5 connections per key: the 6th is refused with 4429, a freed slot is usable again', async () => {
    const five = [];
    for (let i = 0; i < 5; i++) five.push(await authed());
    const sixth = await open(`?token=${t.apiKey}`);
    expect((await sixth.next('error')).error).toMatchObject({ type: 'rate_limit_error', code: 'too_many_connections' });
    expect((await sixth.closedWith()).code).toBe(4429);
    const sixthByMessage = await open();
    sixthByMessage.send({ type: 'auth', token: t.apiKey });
    expect((await sixthByMessage.closedWith()).code).toBe(4429);

    // Another key of the same workspace has its own five.
    const second = t.service.access.createApiKey(t.workspaceId).key;
    await authed(second);

    five[0]!.close();
    await five[0]!.closedWith();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await authed();
  });

  it('drops events for a slow reader only, and tells it what it missed once it catches up', async () => {
    const fast = await authed();
    const slow = await authed();
    for (const probe of [fast, slow]) {
      probe.send({ type: 'subscribe', topics: ['orders:*'] });
      await probe.next('subscribe.ok');
    }
    // The slow reader stops reading: the kernel buffers fill, then the server's send queue.
    (slow.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
    const padding = 'x'.repeat(40_000);
    const count = 400;
    const sent: string[] = [];
    const fastIds: string[] = [];
    // The fast reader takes each event before the next one is published; the slow one reads nothing.
    for (let i = 0; i < count; i++) {
      sent.push(publish(t.service, t.workspaceId, { orderId: `ord_${i}`, data: { order: { id: `ord_${i}` }, padding } }).id);
      fastIds.push((await fast.next()).id);
    }
    expect(fastIds).toEqual(sent);

    (slow.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const after = publish(t.service, t.workspaceId, { orderId: 'ord_after' });
    const deadline = Date.now() + 10_000;
    while (!slow.received.some((m) => m.id === after.id) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const got = slow.received.splice(0);
    const noticeAt = got.findIndex((m) => m.type === 'events.dropped');
    expect(noticeAt).toBeGreaterThan(0);
    const notice = got[noticeAt]!;
    const before = got.slice(0, noticeAt);
    // In order: what fitted in the buffers, the notice naming the rest, then the next event.
    expect(before.map((m) => m.id)).toEqual(sent.slice(0, before.length));
    expect(notice).toEqual({
      type: 'events.dropped',
      count: count - before.length,
      firstEventId: sent[before.length],
      lastEventId: sent[count - 1],
    });
    expect(got.slice(noticeAt + 1).map((m) => m.id)).toEqual([after.id]);
  }, 30_000);

  it('streams prices for subscribed corridors and tiers, starting with the latest fresh one', async () => {
    const stream = t.service.module<TakerStreamModule>('taker-stream');
    const quote = {
      corridor: 'alpha:USDC-beta:USDC',
      srcChain: 'alpha',
      inputToken: '0x00000000000000000000000000000000000000c1',
      dstChain: 'beta',
      outputToken: '0x00000000000000000000000000000000000000c2',
      tier: 'retail' as const,
      price: '0.999800',
      timestamp: t.clock.now(),
      source: 'slv_one',
      ttlMs: 5_000,
    };
    stream.prices.publish(quote);
    stream.prices.publish({ ...quote, tier: 'institutional', price: '0.999900', timestamp: t.clock.now() - 10_000 });
    const probe = await authed();
    probe.send({ type: 'subscribe', topics: ['prices:alpha:USDC-beta:USDC'] });
    await probe.next('subscribe.ok');
    // The latest fresh price straight away; the stale institutional one is not offered.
    expect(await probe.next()).toEqual({ type: 'price', topic: 'prices:alpha:USDC-beta:USDC', ...quote });
    expect(await probe.quiet()).toEqual([]);

    const tiered = await authed();
    tiered.send({ type: 'subscribe', topics: ['prices:alpha:USDC:beta:USDC:standard'] });
    await tiered.next('subscribe.ok');
    stream.prices.publish({ ...quote, tier: 'standard', price: '1.000100' });
    stream.prices.publish({ ...quote, corridor: 'beta:USDC-alpha:USDC', srcChain: 'beta', dstChain: 'alpha', tier: 'standard' });
    expect(await tiered.next()).toMatchObject({
      type: 'price',
      topic: 'prices:alpha:USDC:beta:USDC:standard',
      tier: 'standard',
      price: '1.000100',
    });
    expect(await tiered.quiet()).toEqual([]);
    expect((await probe.next()).price).toBe('1.000100');
    expect(() => stream.prices.publish({ ...quote, price: '0.99e3' })).toThrow(TypeError);
  });

  it('closes every connection when the service stops', async () => {
    const probe = await authed();
    await t.stop();
    expect((await probe.closedWith()).code).toBe(1001);
  });
});
