import { createTestClient, http, publicActions } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock, type ChainTime } from '../../clock/index.js';
import type { ChainInfo } from '../../contracts/deployment.js';
import { startTestAnvil, type TestAnvil } from '../../../test/support/service/anvil.js';
import { formatAError, sampleChains, startTestService, type TestService } from '../../../test/support/service/service.js';

/** The devnet's chain-time hook, done for real on anvil: time offset, then a mined block. */
function anvilChainTime(anvils: TestAnvil[]): ChainTime & { clients: ReturnType<typeof client>[] } {
  const clients = anvils.map(client);
  return {
    clients,
    async advance(seconds: number) {
      for (const c of clients) {
        await c.increaseTime({ seconds });
        await c.mine({ blocks: 1 });
      }
    },
    async now() {
      return Number((await clients[0]!.getBlock()).timestamp);
    },
  };
}

function client(anvil: TestAnvil) {
  return createTestClient({ mode: 'anvil', transport: http(anvil.rpcUrl) }).extend(publicActions);
}

function chainsFor(anvils: TestAnvil[]): ChainInfo[] {
  return sampleChains().map((chain, i) => ({
    ...chain,
    chainId: anvils[i]!.chainId,
    rpcUrl: anvils[i]!.rpcUrl,
    wsUrl: anvils[i]!.wsUrl,
  }));
}

describe('health and the clock against real chains', () => {
  let anvils: TestAnvil[];
  let t: TestService;
  let chainTime: ReturnType<typeof anvilChainTime>;

  beforeAll(async () => {
    anvils = await Promise.all([startTestAnvil(31_337_001), startTestAnvil(31_337_002)]);
    chainTime = anvilChainTime(anvils);
    // As in the sandbox, the service clock starts at the chains' time.
    const chainNow = Number((await chainTime.clients[0]!.getBlock()).timestamp);
    t = await startTestService({ chains: chainsFor(anvils), chainTime, clock: new TestClock({ start: chainNow * 1_000 }) });
  });
  afterAll(async () => {
    await t?.stop();
    await Promise.all((anvils ?? []).map((anvil) => anvil.stop()));
  });

  it('health is 200 when the store and every chain answer', async () => {
    const response = await t.request('GET', '/api/v1/health', { key: null });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ ok: true, environment: 'sandbox', version: 'v1', store: { ok: true } });
    expect(response.body.chains).toHaveLength(2);
    for (const chain of response.body.chains) {
      expect(chain.ok).toBe(true);
      expect(typeof chain.latencyMs).toBe('number');
    }
    expect(Number.isInteger(response.body.uptimeSeconds)).toBe(true);
  });

  it('advancing 31 h moves every chain with the service clock, job by job, in time order', async () => {
    const start = t.clock.now();
    const observed: Array<{ due: number; chains: number[] }> = [];
    for (const offset of [31 * 3_600_000, 5_000, 3_600_000, 30_000]) {
      const due = start + offset;
      t.clock.schedule(due, async () => {
        const chains = await Promise.all(chainTime.clients.map(async (c) => Number((await c.getBlock()).timestamp)));
        observed.push({ due, chains });
      });
    }
    const response = await t.request('POST', '/api/v1/sandbox/clock/advance', { body: { duration: '31h' } });
    expect(response.status).toBe(200);
    expect(response.body.jobsRun).toBeGreaterThanOrEqual(4);
    expect(response.body.advancedMs).toBe(31 * 3_600_000);
    expect(observed.map((o) => o.due - start)).toEqual([5_000, 30_000, 3_600_000, 31 * 3_600_000]);
    for (const { due, chains } of observed) {
      for (const seconds of chains) {
        // Each chain stands at the job's time when it runs (anvil also ticks with the wall clock meanwhile).
        expect(seconds).toBeGreaterThanOrEqual(Math.floor(due / 1_000));
        expect(seconds).toBeLessThanOrEqual(Math.floor(due / 1_000) + 10);
      }
    }
    expect(response.body.chainTime).toBeGreaterThanOrEqual(Math.floor((start + 31 * 3_600_000) / 1_000));
    const clock = await t.request('GET', '/api/v1/sandbox/clock', { key: null });
    expect(clock.body.nowMs).toBe(start + 31 * 3_600_000);
  });

  it('a chain answering another chain id is unhealthy (503, same shape)', async () => {
    const stranger = await startTestAnvil(999);
    const service = await startTestService({
      chains: [{ ...sampleChains()[0]!, chainId: 31_337_001, rpcUrl: stranger.rpcUrl }],
    });
    try {
      const response = await service.request('GET', '/api/v1/health', { key: null });
      expect(response.status).toBe(503);
      expect(response.body.ok).toBe(false);
      expect(response.body.chains[0]).toMatchObject({ ok: false, error: 'answers chain id 999' });
    } finally {
      await service.stop();
      await stranger.stop();
    }
  });

  it('a stopped chain makes health 503, and an advance that cannot move it 503 chain_unavailable', async () => {
    await anvils[1]!.stop();
    const health = await t.request('GET', '/api/v1/health', { key: null });
    expect(health.status).toBe(503);
    expect(health.body).toMatchObject({ ok: false, store: { ok: true } });
    expect(health.body.chains.map((c: { ok: boolean }) => c.ok)).toEqual([true, false]);
    expect(typeof health.body.chains[1].error).toBe('string');

    const advance = await t.request('POST', '/api/v1/sandbox/clock/advance', { body: { seconds: 10 } });
    expect(advance.status).toBe(503);
    expect(formatAError(advance)).toMatchObject({ type: 'maintenance', code: 'chain_unavailable' });
  });
});

describe('health without chains', () => {
  it('is 200 with an empty chain list and 503 once the store is gone', async () => {
    const t = await startTestService();
    try {
      const ok = await t.request('GET', '/api/v1/health', { key: null });
      expect(ok.status).toBe(200);
      expect(ok.body.chains).toEqual([]);
      t.service.store.close();
      const down = await t.request('GET', '/api/v1/health', { key: null });
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ ok: false, store: { ok: false } });
      const keyed = await t.request('GET', '/api/v1/sandbox/keys');
      expect(keyed.status).toBe(503);
      expect(formatAError(keyed)).toMatchObject({ type: 'maintenance', code: 'store_unavailable' });
    } finally {
      await t.stop();
    }
  });
});
