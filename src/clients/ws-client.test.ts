import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EvidenceModule } from '../service/evidence/module.js';
import { startTestService, type TestService } from '../../test/support/service/service.js';
import { TakerStreamClient, TakerStreamError } from './ws-client.js';

describe('TakerStreamClient against the real taker stream', () => {
  let t: TestService;
  const clients: TakerStreamClient[] = [];

  beforeEach(async () => {
    t = await startTestService();
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.close();
    await t.stop();
  });

  const publish = (orderId: string) => {
    const { outbox } = t.service.module<EvidenceModule>('evidence');
    return outbox.commit(() =>
      outbox.append({
        workspaceId: t.workspaceId,
        type: 'order.created',
        generation: 'A',
        orderId,
        data: { order: { id: orderId } },
        at: t.clock.now(),
      }),
    ).envelope;
  };
  const connect = async (options: Partial<Parameters<typeof TakerStreamClient.connect>[0]> = {}) => {
    const client = await TakerStreamClient.connect({ url: t.service.wsUrl, token: t.apiKey, ...options });
    clients.push(client);
    return client;
  };

  it('authenticates either way and reports the environment', async () => {
    for (const authMethod of ['message', 'query'] as const) {
      const client = await connect({ authMethod });
      expect(client.environment).toBe('sandbox');
      expect(client.workspaceId).toBe(t.workspaceId);
    }
    await expect(TakerStreamClient.connect({ url: t.service.wsUrl, token: 'svc_test_nope_00', reconnect: false })).rejects.toMatchObject({
      code: 'invalid_api_key',
    });
  });

  it('answers pings by itself, so the server keeps it connected', async () => {
    const client = await connect();
    for (let i = 0; i < 3; i++) {
      await t.clock.advance(30_000);
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    expect(client.connected).toBe(true);
  });

  it('rejects a bad subscription with the server error', async () => {
    const client = await connect();
    const error = await client.subscribe({ topics: ['nope'] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TakerStreamError);
    expect(error).toMatchObject({ code: 'topic_invalid', error: { param: 'topics.0' } });
    const missing = await client.subscribe({ topics: ['orders:*'], cursor: 'evt_missing' }).catch((e: unknown) => e);
    expect(missing).toMatchObject({ code: 'cursor_not_found' });
  });

  it('reconnects after a drop and resumes from its last event: nothing lost, nothing twice', async () => {
    const client = await connect({ reconnect: { initialDelayMs: 20, maxDelayMs: 100 } });
    await client.subscribe({ topics: ['orders:*'] });
    const first = publish('ord_1');
    expect((await client.nextEvent()).id).toBe(first.id);

    const reconnected = new Promise<void>((resolve) => client.on((m) => m.type === 'reconnected' && resolve()));
    client.socket!.terminate();
    const whileDown = [publish('ord_2'), publish('ord_3')];
    await reconnected;
    const live = publish('ord_4');
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await client.nextEvent()).id);
    expect(ids).toEqual([...whileDown.map((e) => e.id), live.id]);
    await expect(client.nextEvent(undefined, 100)).rejects.toMatchObject({ code: 'timeout' });
    expect(client.lastEventId).toBe(live.id);
  });

  it('replays by cursor on request', async () => {
    const events = [publish('ord_a'), publish('ord_b'), publish('ord_c')];
    const client = await connect();
    const result = await client.subscribe({ topics: ['orders:*'], cursor: events[0]!.id });
    expect(result.replay).toEqual({ replayed: 2, truncated: false, cursor: events[2]!.id });
    expect((await client.nextEvent()).id).toBe(events[1]!.id);
    expect((await client.nextEvent()).id).toBe(events[2]!.id);
  });
});
