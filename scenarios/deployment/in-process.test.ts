import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScenarioTarget } from './target.js';
import { startInProcessTarget } from './in-process.js';

/**
 * A restarted service sends webhooks before its start has returned. A receiver that checks their timestamps
 * against the service's clock must get an answer in that window (it once answered 500 there, the delivery was
 * retried 5 s later and a subscriber saw `compliance.event` before `order.settled`), and the clock must not step
 * back across the restart.
 */
describe('in-process target: the service clock across a restart', () => {
  let target: ScenarioTarget;
  beforeAll(async () => {
    target = await startInProcessTarget({ solvers: 0 });
  }, 120_000);
  afterAll(async () => {
    await target?.stop();
  });

  it('answers while the service is stopped and while it starts, and never goes back', async () => {
    const host = target.service!;
    const before = await target.serviceNow();
    await host.stop();
    const stopped = await target.serviceNow();
    expect(stopped).toBeGreaterThanOrEqual(before);
    const starting = host.start();
    // While start() is on its way (before the new service is assigned), the clock still answers.
    const during = await target.serviceNow();
    expect(during).toBeGreaterThanOrEqual(stopped);
    await starting;
    const after = await target.serviceNow();
    expect(after).toBeGreaterThanOrEqual(during);
  }, 60_000);
});
