import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type SharedDatabase, sharedDatabase } from '../../../test/support/service/instances.js';
import { ALPHA_BETA_USDC, auctionChains } from '../../../test/support/auction.js';
import { startTestService, type TestService } from '../../../test/support/service/service.js';

/**
 * The spec's 5 WebSocket connections per API key hold across the instances of one store: connections are spread
 * over the instances (a cluster hands each to the next worker), so each instance's own count would allow 5 × N.
 * Driven with the `ws` package, the way a client connects.
 */
let db: SharedDatabase | undefined;
const running: TestService[] = [];
const sockets: WebSocket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  for (const service of running.splice(0).reverse()) await service.stop().catch(() => undefined);
  await db?.release();
  db = undefined;
});

async function instance(): Promise<TestService> {
  const service = await startTestService({ chains: auctionChains(), databaseUrl: db!.url, databaseSchema: db!.schema, leasePollMs: 100 });
  running.push(service);
  return service;
}

/** Connects with `token` and resolves with the first message and, when refused, the close code. */
async function connect(
  service: TestService,
  token: string,
): Promise<{ first: { type: string; error?: { code: string } }; socket: WebSocket }> {
  const socket = new WebSocket(`${service.service.wsUrl}?token=${token}`);
  sockets.push(socket);
  const first = await new Promise<{ type: string; error?: { code: string } }>((resolve, reject) => {
    socket.once('message', (data) => resolve(JSON.parse(data.toString())));
    socket.once('error', reject);
  });
  return { first, socket };
}

describe('WebSocket caps and corridor counts across instances', () => {
  it('five connections of one key over two instances: the sixth is refused on either, a freed slot is usable on the other', async () => {
    db = await sharedDatabase();
    const a = await instance();
    const b = await instance();
    const key = a.apiKey;
    const open: WebSocket[] = [];
    for (let i = 0; i < 5; i++) {
      const { first, socket } = await connect(i % 2 === 0 ? a : b, key);
      expect(first.type, JSON.stringify(first)).toBe('auth.ok');
      open.push(socket);
    }
    for (const service of [a, b]) {
      const sixth = await connect(service, key);
      expect(sixth.first).toMatchObject({ type: 'error', error: { code: 'too_many_connections' } });
    }
    // Another key has its own five.
    expect((await connect(b, b.apiKey)).first.type).toBe('auth.ok');
    // A connection closed on instance A frees a slot on instance B.
    open[0]!.close();
    await new Promise<void>((resolve) => open[0]!.once('close', () => resolve()));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await connect(b, key)).first.type).toBe('auth.ok');
  });

  it("a dead instance's connections stop counting", async () => {
    db = await sharedDatabase();
    const a = await instance();
    const b = await instance();
    for (let i = 0; i < 5; i++) expect((await connect(a, a.apiKey)).first.type).toBe('auth.ok');
    expect((await connect(b, a.apiKey)).first.type).toBe('error');
    // Instance A's bus session ends for good, as when its process dies (its rows stay behind; a killed process is
    // the failover campaign's and the CLI test's business).
    await a.service.instance.bus.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await connect(b, a.apiKey)).first.type).toBe('auth.ok');
  });

  it("a corridor's solverCount counts solvers registered through the other instance", async () => {
    db = await sharedDatabase();
    const a = await instance();
    const b = await instance();
    const count = async (service: TestService) =>
      ((await service.request('GET', '/api/v1/corridors')).body.corridors as Array<{ id: string; solverCount: number }>).find(
        (corridor) => corridor.id === ALPHA_BETA_USDC,
      )!.solverCount;
    expect(await count(b)).toBe(0);
    const registered = await a.request('POST', '/api/v1/solvers/register', { body: { name: 'Acme MM', corridors: [ALPHA_BETA_USDC] } });
    expect(registered.status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await count(b)).toBe(1);
    expect(await count(a)).toBe(1);
  });
});
