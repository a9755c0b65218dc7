import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { startTestService } from '../../../test/support/service/service.js';

/**
 * A fault switch's deliberate 503 is logged as a firing (warn, with a `fault` field), never as an "unhandled error"
 * or a failed request: those lines are kept for real failures, and a log full of expected ones hides them.
 */
describe('fault firings in the service log', () => {
  it('a service.maintenance 503 is a warning naming its switch; no error-level line', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const t = await startTestService({ logger: pino({ level: 'info' }, sink) });
    try {
      const set = await t.request('POST', '/api/v1/sandbox/faults', {
        body: {
          kind: 'service.maintenance',
          route: 'GET /api/v1/corridors',
          count: 1,
        },
      });
      expect(set.status).toBe(201);
      const faultId = (set.body as { id: string }).id;
      const refused = await t.request('GET', '/api/v1/corridors');
      expect(refused.status).toBe(503);
      const requestId = refused.headers.get('x-request-id');
      await new Promise((resolve) => setImmediate(resolve));
      const mine = lines.filter((line) => line.requestId === requestId);
      expect(mine).toContainEqual(
        expect.objectContaining({
          level: 40,
          msg: 'fault fired',
          code: 'maintenance',
          fault: { id: faultId, kind: 'service.maintenance' },
        }),
      );
      expect(mine).toContainEqual(expect.objectContaining({ level: 40, status: 503, fault: { id: faultId, kind: 'service.maintenance' } }));
      expect(lines.filter((line) => (line.level as number) >= 50)).toEqual([]);
      // Spent: the next call is answered, and logged as an ordinary request.
      expect((await t.request('GET', '/api/v1/corridors')).status).toBe(200);
    } finally {
      await t.stop();
    }
  });
});
