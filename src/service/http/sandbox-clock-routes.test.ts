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

  it.each(['400d', '366d 1ms', '8173787834508'])(
    'a duration of %s (over 366 days) → 422 advance_too_long, documented on the operation',
    async (duration) => {
      const before = t.clock.now();
      const response = await t.request('POST', '/api/v1/sandbox/clock/advance', { body: { duration } });
      expect(response.status).toBe(422);
      expect(formatAError(response)).toMatchObject({ code: 'advance_too_long', param: 'duration' });
      expect(t.clock.now()).toBe(before);
      const document = (await t.request('GET', '/api/v1/openapi.json', { key: null })).body;
      expect(Object.keys(document.paths['/api/v1/sandbox/clock/advance'].post.responses)).toContain('422');
    },
  );

  it('the document states the rules behind the 400s above: exactly one of duration and seconds, the duration syntax', async () => {
    const document = (await t.request('GET', '/api/v1/openapi.json', { key: null })).body;
    const request = document.components.schemas.ClockAdvanceRequest;
    expect(request.oneOf).toEqual([{ required: ['duration'] }, { required: ['seconds'] }]);
    const duration = new RegExp(request.properties.duration.pattern);
    for (const text of ['31h', '1h 30m', '1.5H', '500ms', '90', ' 2d ']) expect(duration.test(text), text).toBe(true);
    for (const text of ['', 'soon', '-5s', '5m s', '٣s']) expect(duration.test(text), text).toBe(false);
    expect((await t.request('POST', '/api/v1/sandbox/clock/advance', { body: { duration: '' } })).status).toBe(400);
  });

  it('advance needs a credential', async () => {
    const response = await t.request('POST', '/api/v1/sandbox/clock/advance', { key: null, body: { duration: '1h' } });
    expect(response.status).toBe(401);
  });

  it('accepts fractional seconds at millisecond resolution', async () => {
    const before = t.clock.now();
    const response = await t.request('POST', '/api/v1/sandbox/clock/advance', { body: { seconds: 0.0015 } });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ advancedMs: 2, nowMs: before + 2 });
  });

  it('unknown advance ids answer 404 with param advanceId; malformed ones 400', async () => {
    const unknown = await t.request('GET', '/api/v1/sandbox/clock/advances/adv_0');
    expect(unknown.status).toBe(404);
    expect(formatAError(unknown)).toMatchObject({ param: 'advanceId' });
    const malformed = await t.request('DELETE', '/api/v1/sandbox/clock/advances/nope');
    expect(malformed.status).toBe(400);
    expect(formatAError(malformed)).toMatchObject({ param: 'advanceId' });
  });
});

describe('long clock advances', () => {
  const DAY = 86_400_000;
  let slow: TestService;
  const jumps: number[] = [];
  beforeAll(async () => {
    // Chains that take 40 ms to move per jump (anvil takes a few ms): 1,000 due jobs outlast the 200 ms answer window.
    slow = await startTestService({
      clockAdvanceAnswerMs: 200,
      chainTime: {
        advance: async (seconds) => {
          jumps.push(seconds);
          await new Promise((resolve) => setTimeout(resolve, 40));
        },
      },
    });
  });
  afterAll(() => slow.stop());

  it('366 days with only periodic jobs due is one jump and answers 200', async () => {
    jumps.length = 0;
    const started = performance.now();
    const response = await slow.request('POST', '/api/v1/sandbox/clock/advance', { body: { duration: '366d' } });
    expect(response.status).toBe(200);
    expect(response.body.advancedMs).toBe(366 * DAY);
    // The hourly sweep ran once at the end of the jump instead of 8,784 times.
    expect(jumps).toEqual([366 * 86_400]);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('answers 202 with a Location when the advance outlasts the answer window; GET reports progress, DELETE cancels', async () => {
    const start = slow.clock.now();
    for (let i = 1; i <= 1_000; i += 1) slow.clock.schedule(start + i * 60_000, () => undefined, { name: 'test.due' });
    const response = await slow.request('POST', '/api/v1/sandbox/clock/advance', { body: { duration: '30d' } });
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({ status: 'running', requestedMs: 30 * DAY, result: null });
    const location = response.headers.get('location');
    expect(location).toBe(`/api/v1/sandbox/clock/advances/${response.body.id}`);
    const progress = await slow.request('GET', location!);
    expect(progress.status).toBe(200);
    expect(progress.body.status).toBe('running');
    expect(Date.parse(progress.body.now)).toBeGreaterThan(start);
    const cancelled = await slow.request('DELETE', location!);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    const stoppedAt = slow.clock.now();
    expect(stoppedAt).toBeLessThan(start + 30 * DAY);
    // The clock is free again: another advance runs, and the cancelled one cannot be cancelled twice.
    const again = await slow.request('DELETE', location!);
    expect(again.status).toBe(409);
    expect(formatAError(again)).toMatchObject({ code: 'advance_not_running', param: 'advanceId' });
    const next = await slow.request('POST', '/api/v1/sandbox/clock/advance', { body: { seconds: 1 } });
    expect([200, 202]).toContain(next.status);
  }, 60_000);
});
