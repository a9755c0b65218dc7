import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatAError, startTestService, TEST_EPOCH, type TestService } from '../../../test/support/service/service.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.stop());

describe('sandbox clock routes', () => {
  it('GET shows the time and the next job', async () => {
    const response = await t.request('GET', '/api/v1/sandbox/clock', { key: null });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ kind: 'test', ticking: false, nowMs: TEST_EPOCH, now: new Date(TEST_EPOCH).toISOString() });
    // The platform's hourly sweep is always pending.
    expect(response.body.pendingJobs).toBeGreaterThanOrEqual(1);
    expect(response.body.nextJobAt).toBe(new Date(TEST_EPOCH + 3_600_000).toISOString());
  });

  it('advance takes a duration or seconds and runs due jobs', async () => {
    const ran: number[] = [];
    const start = t.clock.now();
    t.clock.schedule(start + 90_000, () => void ran.push(t.clock.now() - start));
    const byDuration = await t.request('POST', '/api/v1/sandbox/clock/advance', { body: { duration: '1m30s' } });
    expect(byDuration.status).toBe(200);
    expect(byDuration.body).toMatchObject({ advancedMs: 90_000, jobsRun: 1, nowMs: start + 90_000, chainTime: null });
    expect(ran).toEqual([90_000]);
    const bySeconds = await t.request('POST', '/api/v1/sandbox/clock/advance', { body: { seconds: 1.5 } });
    expect(bySeconds.body.nowMs).toBe(start + 91_500);
  });

  it.each([
    [{}, 'parameter_missing', 'duration'],
    [{ duration: '1h', seconds: 5 }, 'parameter_invalid', 'duration'],
    [{ duration: 'soon' }, 'parameter_invalid', 'duration'],
    [{ duration: '-5s' }, 'parameter_invalid', 'duration'],
    [{ duration: '400d' }, 'parameter_invalid', 'duration'],
    [{ seconds: -1 }, 'parameter_invalid', 'seconds'],
    [{ seconds: '5' }, 'parameter_invalid', 'seconds'],
    [{ minutes: 5 }, 'parameter_unknown', 'minutes'],
  ])('%j → 400 %s (%s)', async (body, code, param) => {
    const before = t.clock.now();
    const response = await t.request('POST', '/api/v1/sandbox/clock/advance', { body });
    expect(response.status).toBe(400);
    expect(formatAError(response)).toMatchObject({ code, param });
    expect(t.clock.now()).toBe(before);
  });

  it('advance needs a credential', async () => {
    const response = await t.request('POST', '/api/v1/sandbox/clock/advance', { key: null, body: { duration: '1h' } });
    expect(response.status).toBe(401);
  });
});
