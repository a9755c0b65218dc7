import { afterEach, describe, expect, it } from 'vitest';
import { type SharedDatabase, sharedDatabase } from '../../../test/support/service/instances.js';
import { startTestService, type TestService } from '../../../test/support/service/service.js';
import type { ServiceModule } from '../module.js';

/**
 * Two service instances on one Postgres store: exactly one runs the singleton work, and when it stops (or its
 * session dies) the other takes it over, running every module's `startSingleton`.
 */
let db: SharedDatabase | undefined;
const running: TestService[] = [];

afterEach(async () => {
  for (const service of running.splice(0).reverse()) await service.stop().catch(() => undefined);
  await db?.release();
  db = undefined;
});

class Probe implements ServiceModule {
  readonly name = 'probe';
  singletonStarts = 0;
  startSingleton(): void {
    this.singletonStarts += 1;
  }
}

async function instance(probe: Probe): Promise<TestService> {
  const service = await startTestService({ databaseUrl: db!.url, databaseSchema: db!.schema, leasePollMs: 100, modules: [probe] });
  running.push(service);
  return service;
}

describe('several instances on one store', () => {
  it('one holds the singleton work; the other takes it over when the first stops, and both answer requests', async () => {
    db = await sharedDatabase();
    const firstProbe = new Probe();
    const secondProbe = new Probe();
    const first = await instance(firstProbe);
    const second = await instance(secondProbe);
    expect(first.service.instance.singleton).toBe(true);
    expect(second.service.instance.singleton).toBe(false);
    expect([firstProbe.singletonStarts, secondProbe.singletonStarts]).toEqual([1, 0]);
    // Both serve the same store: a workspace bootstrapped on the second is known to the first.
    expect((await first.request('GET', '/api/v1/health')).status).toBe(200);
    const keyOfSecond = await first.request('GET', '/api/v1/corridors', { key: second.apiKey });
    expect(keyOfSecond.status).toBe(200);

    await first.stop();
    running.splice(running.indexOf(first), 1);
    const start = Date.now();
    while (!second.service.instance.singleton && Date.now() - start < 5_000) await new Promise((r) => setTimeout(r, 20));
    expect(second.service.instance.singleton).toBe(true);
    while (secondProbe.singletonStarts === 0 && Date.now() - start < 5_000) await new Promise((r) => setTimeout(r, 20));
    expect(secondProbe.singletonStarts).toBe(1);
  });
});
