import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { MaintenanceError } from '../errors/api-errors.js';
import { errorHandler } from './error-handler.js';
import { requestContext } from './request-context.js';

/**
 * Error-level lines are for failures nobody planned. A 503 the service answers on purpose (a deposit signed and
 * recorded whose chain did not confirm yet, retried) is a warning: the soak's logs counted such lines as "unhandled
 * errors", which hid the real ones.
 */
describe('how a 5xx answer is logged', () => {
  async function serve(route: (app: express.Express) => void) {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const app = express();
    app.use(requestContext(pino({ level: 'info' }, sink)));
    route(app);
    app.use(errorHandler());
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { lines, url, close: () => new Promise((resolve) => server.close(resolve)) };
  }

  it('a deliberate 503 (MaintenanceError) is a warning, with its code; no error-level line', async () => {
    const s = await serve((app) =>
      app.get('/deposit', () => {
        throw new MaintenanceError({ code: 'chain_unavailable', message: 'chain 31337 did not confirm it yet; it is retried' });
      }),
    );
    try {
      const response = await fetch(`${s.url}/deposit`);
      expect(response.status).toBe(503);
      await new Promise((resolve) => setImmediate(resolve));
      expect(s.lines.filter((line) => (line.level as number) >= 50)).toEqual([]);
      expect(s.lines).toContainEqual(expect.objectContaining({ level: 40, code: 'chain_unavailable', status: 503 }));
      expect(s.lines).toContainEqual(expect.objectContaining({ level: 40, msg: 'request answered unavailable', status: 503 }));
    } finally {
      await s.close();
    }
  });

  it('an unplanned failure is still an error-level "unhandled error" and a failed request', async () => {
    const s = await serve((app) =>
      app.get('/boom', () => {
        throw new TypeError('cannot read properties of undefined');
      }),
    );
    try {
      const response = await fetch(`${s.url}/boom`);
      expect(response.status).toBe(500);
      await new Promise((resolve) => setImmediate(resolve));
      expect(s.lines).toContainEqual(expect.objectContaining({ level: 50, msg: 'unhandled error' }));
      expect(s.lines).toContainEqual(expect.objectContaining({ level: 50, msg: 'request failed', status: 500 }));
    } finally {
      await s.close();
    }
  });
});
