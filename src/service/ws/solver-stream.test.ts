/** The solver stream over real sockets: authentication, subscriptions, connection cap, heartbeat, order delivery. */
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { SolverStreamClient, SolverStreamError } from '../../clients/solver-stream-client.js';
import {
  ALPHA_BETA_USDC,
  BETA_ALPHA_USDC,
  outputBelow,
  startAuctionService,
  usdcRequest,
  type AuctionTestService,
} from '../../../test/support/auction.js';

const running: AuctionTestService[] = [];
async function start(): Promise<AuctionTestService> {
  const t = await startAuctionService({ auction: { windowMs: 300 } });
  running.push(t);
  return t;
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.stop()));
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function streamUrl(t: AuctionTestService, path = '/ws/v1/solver/stream'): string {
  return `${t.url.replace('http', 'ws')}${path}`;
}

/** A raw socket that records messages and its close. */
async function rawSocket(url: string) {
  const ws = new WebSocket(url);
  const messages: Array<Record<string, unknown>> = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  ws.on('message', (data) => messages.push(JSON.parse(data.toString())));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const next = async (type: string) => {
    for (let i = 0; i < 400; i++) {
      const found = messages.find((m) => m.type === type);
      if (found) return found;
      await sleep(5);
    }
    throw new Error(`no ${type} message; got ${JSON.stringify(messages)}`);
  };
  return { ws, messages, closed, next, send: (message: unknown) => ws.send(JSON.stringify(message)) };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (condition()) return;
    await sleep(5);
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('solver stream', () => {
  it('authenticates a wsToken by message or query string, on all three paths', async () => {
    const t = await start();
    const { solverId, wsToken } = await t.registerSolver('solver');
    for (const path of ['/ws/v1/solver/stream', '/ws/solver/stream', '/v1/ws/solver/stream']) {
      const socket = await rawSocket(streamUrl(t, path));
      socket.send({ type: 'auth', token: wsToken });
      expect(await socket.next('auth.ok')).toEqual({ type: 'auth.ok', environment: 'sandbox', solverId, corridors: [ALPHA_BETA_USDC] });
      socket.send({ type: 'subscribe', channels: ['rfq.*'] });
      expect(await socket.next('subscribe.ok')).toEqual({ type: 'subscribe.ok', channels: ['rfq.*'], corridors: [ALPHA_BETA_USDC] });
      socket.ws.close();
    }
    const viaQuery = await rawSocket(`${streamUrl(t)}?token=${wsToken}`);
    expect(await viaQuery.next('auth.ok')).toMatchObject({ solverId });
    viaQuery.ws.close();
  });

  it('accepts the workspace API key (with solverId when it has several solvers) and Reference B solver keys', async () => {
    const t = await start();
    const first = await t.registerSolver('first');
    const viaKey = await t.connect(t.apiKey, { channels: [] });
    expect(viaKey.solverId).toBe(first.solverId);

    const second = await t.registerSolver('second');
    await expect(t.connect(t.apiKey)).rejects.toMatchObject({ code: 'solver_required', closeCode: 1008 });
    const chosen = await t.connect(t.apiKey, { solverId: second.solverId });
    expect(chosen.solverId).toBe(second.solverId);
    await expect(t.connect(t.apiKey, { solverId: 'slv_other' })).rejects.toMatchObject({ code: 'solver_not_found', closeCode: 1008 });

    t.auction.useSolverKeys({ resolve: (key) => (key === 'sk_test_referenceb0001' ? { solverId: first.solverId } : undefined) });
    const viaSolverKey = await t.connect('sk_test_referenceb0001');
    expect(viaSolverKey.solverId).toBe(first.solverId);
    await expect(t.connect('sk_test_unknownkey0001')).rejects.toMatchObject({ code: 'invalid_token', closeCode: 1008 });
    await expect(t.connect('sk_live_referenceb0001')).rejects.toMatchObject({ code: 'wrong_environment', closeCode: 1008 });
  });

  it('refuses bad credentials with 1008 and a reason', async () => {
    const t = await start();
    const { wsToken } = await t.registerSolver('solver');
    const cases: Array<[string, string]> = [
      [`wst_test_${'0'.repeat(48)}`, 'invalid_token'],
      [wsToken.replace('wst_test_', 'wst_live_'), 'wrong_environment'],
      [`svc_test_0000000000000000_${'0'.repeat(64)}`, 'invalid_token'],
      [`${t.apiKey.replace('svc_test_', 'svc_live_')}`, 'invalid_token'],
      ['nonsense', 'invalid_token'],
    ];
    for (const [token, code] of cases) {
      const socket = await rawSocket(streamUrl(t));
      socket.send({ type: 'auth', token });
      const closed = await socket.closed;
      expect(closed.code, token).toBe(1008);
      expect(closed.reason.length).toBeGreaterThan(0);
      expect(socket.messages.find((m) => m.type === 'error')).toMatchObject({ code });
    }
  });

  it('asks for authentication first and closes an unauthenticated connection after the auth timeout (clock)', async () => {
    const t = await start();
    const socket = await rawSocket(streamUrl(t));
    socket.send({ type: 'subscribe', channels: ['rfq.*'] });
    expect(await socket.next('error')).toMatchObject({ code: 'auth_required' });
    socket.ws.send('not json');
    await until(() => socket.messages.filter((m) => m.type === 'error').length === 2, 'malformed error');
    expect(socket.messages[1]).toMatchObject({ code: 'malformed' });
    await t.clock.advance(9_999);
    await sleep(30);
    expect(socket.ws.readyState).toBe(WebSocket.OPEN);
    await t.clock.advance(1);
    expect((await socket.closed).code).toBe(4401);
  });

  it('refuses the 6th connection of one key with 1008; a freed slot can be reused', async () => {
    const t = await start();
    const { wsToken } = await t.registerSolver('solver');
    const five = await Promise.all(Array.from({ length: 5 }, () => t.connect(wsToken)));
    const error = await t.connect(wsToken).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SolverStreamError);
    expect(error).toMatchObject({ code: 'connection_limit', closeCode: 1008 });
    expect((error as Error).message).toContain('at most 5');
    const raw = await rawSocket(`${streamUrl(t)}?token=${wsToken}`);
    const closed = await raw.closed;
    expect(closed).toMatchObject({ code: 1008 });
    expect(closed.reason).toMatch(/connection limit reached: at most 5 concurrent connections per key/);
    // Other credentials are counted separately.
    const other = await t.registerSolver('other');
    await t.connect(other.wsToken);
    await five[0]!.close();
    await until(() => t.auction.connectionCount(five[1]!.solverId!) === 4, 'the slot to be released');
    await expect(t.connect(wsToken)).resolves.toBeInstanceOf(SolverStreamClient);
  });

  it('pings every 30 s of clock time and drops a solver that misses a pong', async () => {
    const t = await start();
    const lazy = await t.solver('lazy', (rfq) => ({ outputAmount: outputBelow(rfq, 2) }));
    const diligent = await t.solver('diligent', (rfq) => ({ outputAmount: outputBelow(rfq, 3) }));
    lazy.client.setAutoPong(false);
    const lazyPings: unknown[] = [];
    const diligentPings: unknown[] = [];
    lazy.client.onMessage((m) => m.type === 'ping' && lazyPings.push(m));
    diligent.client.onMessage((m) => m.type === 'ping' && diligentPings.push(m));
    const lazyClosed = new Promise<{ code: number }>((resolve) => lazy.client.onClose(resolve));

    await t.clock.advance(29_999);
    await sleep(30);
    expect(lazyPings).toHaveLength(0);
    await t.clock.advance(1);
    await until(() => lazyPings.length === 1 && diligentPings.length === 1, 'the first pings');
    await sleep(30); // the diligent client's pong arrives
    await t.clock.advance(30_000);
    expect((await lazyClosed).code).toBe(4408);
    await until(() => diligentPings.length === 2, 'the second ping');
    expect(diligent.client.connected).toBe(true);

    const response = await t.request('POST', '/api/v1/quotes', { body: usdcRequest() });
    expect(response.status).toBe(200);
    expect(response.body.quotes.map((q: { solverId: string }) => q.solverId)).toEqual([diligent.solverId]);
    expect(lazy.rfqs).toHaveLength(0);
  });

  it('invites only solvers registered for the corridor, narrowed by the subscription filter', async () => {
    const t = await start();
    const forward = await t.solver('alpha→beta', (rfq) => ({ outputAmount: outputBelow(rfq, 2) }), [ALPHA_BETA_USDC]);
    const backward = await t.solver('beta→alpha', (rfq) => ({ outputAmount: outputBelow(rfq, 2) }), [BETA_ALPHA_USDC]);
    const both = await t.registerSolver('both', [ALPHA_BETA_USDC, BETA_ALPHA_USDC]);
    const narrowed = await t.connect(both.wsToken, { corridors: [BETA_ALPHA_USDC] });
    const narrowedRfqs: string[] = [];
    narrowed.onRfq((rfq) => {
      narrowedRfqs.push(rfq.rfq.corridor);
      void narrowed.quote({ rfqId: rfq.rfq.id, outputAmount: outputBelow(rfq, 1) });
    });

    const ab = await t.request('POST', '/api/v1/quotes', { body: usdcRequest() });
    expect(ab.body.quotes.map((q: { solverId: string }) => q.solverId)).toEqual([forward.solverId]);
    const ba = await t.request('POST', '/api/v1/quotes', { body: usdcRequest({ originChainId: 31_338, destinationChainId: 31_337 }) });
    expect(ba.body.quotes.map((q: { solverId: string }) => q.solverId)).toEqual([both.solverId, backward.solverId]);
    expect(forward.rfqs.map((r) => r.rfq.corridor)).toEqual([ALPHA_BETA_USDC]);
    expect(backward.rfqs.map((r) => r.rfq.corridor)).toEqual([BETA_ALPHA_USDC]);
    expect(narrowedRfqs).toEqual([BETA_ALPHA_USDC]);

    const corridors = await t.client.corridors();
    expect(corridors.find((c) => c.id === ALPHA_BETA_USDC)?.solverCount).toBe(2);
    expect(corridors.find((c) => c.id === BETA_ALPHA_USDC)?.solverCount).toBe(2);

    const socket = await rawSocket(`${streamUrl(t)}?token=${forward.wsToken}`);
    await socket.next('auth.ok');
    socket.send({ type: 'subscribe', channels: ['rfq.*'], corridors: [BETA_ALPHA_USDC] });
    expect(await socket.next('error')).toMatchObject({ code: 'corridor_not_registered', param: 'corridors.0' });
    socket.send({ type: 'subscribe', channels: ['quotes.*'] });
    await until(() => socket.messages.filter((m) => m.type === 'error').length === 2, 'second error');
    expect(socket.messages.filter((m) => m.type === 'error')[1]).toMatchObject({ code: 'channel_unknown', param: 'channels.0' });
    socket.send({ type: 'dance' });
    await until(() => socket.messages.filter((m) => m.type === 'error').length === 3, 'third error');
    expect(socket.messages.filter((m) => m.type === 'error')[2]).toMatchObject({ code: 'message_type_unknown' });
    socket.ws.close();
  });

  it('a connection without an RFQ subscription is not invited', async () => {
    const t = await start();
    const { wsToken, solverId } = await t.registerSolver('solver');
    const idle = await t.connect(wsToken, { channels: [] });
    expect(idle.solverId).toBe(solverId);
    const none = await t.request('POST', '/api/v1/quotes', { body: usdcRequest() });
    expect(none.body.error).toMatchObject({ code: 'corridor_unavailable' });
  });

  it('delivers order messages to every live connection of the winning solver', async () => {
    const t = await start();
    const { wsToken, solverId } = await t.registerSolver('solver');
    const a = await t.connect(wsToken);
    const b = await t.connect(wsToken, { channels: [] });
    const received: unknown[] = [];
    a.onOrder((m) => received.push(m));
    b.onOrder((m) => received.push(m));
    const message = { type: 'order.refunded' as const, orderId: 'ord_x', onchainOrderId: `0x${'22'.repeat(32)}` as const };
    expect(t.auction.notifier.notify(solverId, message)).toBe(2);
    await until(() => received.length === 2, 'both connections to get the message');
    expect(received).toEqual([message, message]);
    expect(t.auction.notifier.notify('slv_nobody', message)).toBe(0);
  });
});

describe('solver registration and directory', () => {
  it('registers (201), lists, shows, rotates the token, and refuses bad input', async () => {
    const t = await start();
    const response = await t.request('POST', '/api/v1/solvers/register', {
      body: {
        name: 'Acme MM',
        corridors: [ALPHA_BETA_USDC, ALPHA_BETA_USDC],
        callbackUrl: 'https://acme.example/hook',
        address: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
      },
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      solverId: expect.stringMatching(/^slv_/),
      name: 'Acme MM',
      corridors: [ALPHA_BETA_USDC],
      callbackUrl: 'https://acme.example/hook',
      address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      wsToken: expect.stringMatching(/^wst_test_[0-9a-f]{48}$/),
      wsUrl: `${t.url.replace('http', 'ws')}/ws/v1/solver/stream`,
    });
    const { solverId, wsToken } = response.body;
    await t.connect(wsToken);

    for (const [body, status, code, param] of [
      [{ name: 'x', corridors: ['alpha:USDC-gamma:USDC'] }, 400, 'parameter_invalid', 'corridors.0'],
      [{ name: 'x', corridors: [] }, 400, 'parameter_invalid', 'corridors'],
      [{ name: '', corridors: [ALPHA_BETA_USDC] }, 400, 'parameter_invalid', 'name'],
      [{ name: 'x', corridors: [ALPHA_BETA_USDC], callbackUrl: 'http://acme.example/hook' }, 400, 'parameter_invalid', 'callbackUrl'],
      // Valid by RFC 3986 but not by WHATWG's parser; the documented pattern excludes it too.
      [{ name: 'x', corridors: [ALPHA_BETA_USDC], callbackUrl: 'https://t.S7.y.Ltfz.0:56130/' }, 400, 'parameter_invalid', 'callbackUrl'],
      [{ name: 'x', corridors: [ALPHA_BETA_USDC], pricing: {} }, 400, 'parameter_unknown', 'pricing'],
    ] as const) {
      const bad = await t.request('POST', '/api/v1/solvers/register', { body });
      expect(bad.status, JSON.stringify(body)).toBe(status);
      expect(bad.body.error).toMatchObject({ code, param });
    }
    await t.clock.advance(1);
    const loopback = await t.request('POST', '/api/v1/solvers/register', {
      body: { name: 'local', corridors: [ALPHA_BETA_USDC], callbackUrl: 'http://127.0.0.1:9/hook' },
    });
    expect(loopback.status).toBe(201);
    const anonymous = await t.request('POST', '/api/v1/solvers/register', { body: { name: 'x', corridors: [ALPHA_BETA_USDC] }, key: null });
    expect(anonymous.status).toBe(401);

    const one = await t.client.getSolver(solverId);
    expect(one).toMatchObject({
      solverId,
      name: 'Acme MM',
      connected: true,
      connections: 1,
      stats: { quotes: 0, fillRate: null, volume: '0' },
    });
    expect(JSON.stringify(one)).not.toContain('acme.example');
    const list = await t.client.listSolvers({ limit: 1 });
    expect(list).toMatchObject({ has_more: true, total_count: 2 });
    expect(list.data[0]!.name).toBe('local');
    const rest = await t.client.listSolvers({ limit: 1, after: list.next_cursor! });
    expect(rest.data[0]!.solverId).toBe(solverId);
    expect((await t.request('GET', '/api/v1/solvers?owned=true', { key: null })).status).toBe(401);
    expect((await t.client.listSolvers({ owned: true })).total_count).toBe(2);
    expect((await t.request('GET', '/api/v1/solvers/slv_missing')).status).toBe(404);

    const rotated = await t.client.rotateSolverToken(solverId);
    expect(rotated.wsToken).not.toBe(wsToken);
    await expect(t.connect(wsToken)).rejects.toMatchObject({ code: 'invalid_token' });
    await expect(t.connect(rotated.wsToken)).resolves.toBeInstanceOf(SolverStreamClient);
    // Another workspace cannot rotate it.
    const stranger = t.service.bootstrapWorkspace('stranger');
    const foreign = await t.request('POST', `/api/v1/solvers/${solverId}/ws-token`, { key: stranger.apiKey });
    expect(foreign.status).toBe(404);
  });
});
