/**
 * The sender against real receivers: what a receiver sees of one attempt, how its answers read, and that a service
 * which delivered to many receivers that came and went (new ports every scenario run, every CI job) holds no memory
 * for them afterwards.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { WebhookSender } from './sender.js';
import { signDelivery } from './signature.js';

interface Receiver {
  server: Server;
  url: string;
  seen: { headers: IncomingMessage['headers']; body: string }[];
}

async function receiver(answer: (res: ServerResponse) => void): Promise<Receiver> {
  const seen: Receiver['seen'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
      answer(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, seen };
}

const close = (r: Receiver) => new Promise((resolve) => r.server.close(resolve));

const delivery = (url: string) => ({
  url,
  secret: 'whsec_test',
  body: '{"id":"evt_1","type":"order.created"}',
  eventType: 'order.created',
  webhookId: 'wh_1',
  deliveryId: 'dlv_1',
  timestampSeconds: 1_800_000_000,
});

async function heapAfterGc(): Promise<number> {
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.collectGarbage');
  } finally {
    session.disconnect();
  }
  return process.memoryUsage().heapUsed;
}

describe('WebhookSender', () => {
  it('posts the signed body once and reads 2xx, other statuses, Retry-After and a refused connection', async () => {
    const sender = new WebhookSender({ timeoutMs: 5_000 });
    const ok = await receiver((res) => res.writeHead(204).end());
    const busy = await receiver((res) => res.writeHead(503, { 'Retry-After': '120' }).end('later'));
    try {
      expect(await sender.send(delivery(ok.url))).toMatchObject({ succeeded: true, statusCode: 204, error: null });
      expect(ok.seen).toHaveLength(1);
      const { headers, body } = ok.seen[0]!;
      expect(body).toBe(delivery(ok.url).body);
      expect(headers['content-type']).toBe('application/json');
      // One connection per attempt (docs/realtime-and-webhooks.md): nothing kept for the receiver afterwards.
      expect(headers.connection).toBe('close');
      expect(headers['x-service-event']).toBe('order.created');
      expect(headers['x-service-deliveryid']).toBe('dlv_1');
      expect(headers['x-service-timestamp']).toBe('1800000000');
      expect(headers['x-service-signature']).toBe(signDelivery('whsec_test', 1_800_000_000, body));

      expect(await sender.send(delivery(busy.url))).toMatchObject({
        succeeded: false,
        statusCode: 503,
        error: 'HTTP 503',
        retryAfterMs: 120_000,
      });
    } finally {
      await close(ok);
      await close(busy);
    }
    expect(await sender.send(delivery(ok.url))).toMatchObject({ succeeded: false, statusCode: null, error: 'connection refused' });
  });

  it('a receiver that does not answer in time is a timeout', async () => {
    const sender = new WebhookSender({ timeoutMs: 200 });
    const silent = await receiver(() => {});
    try {
      expect(await sender.send(delivery(silent.url))).toMatchObject({
        succeeded: false,
        statusCode: null,
        error: 'timeout: no answer within 0 s',
      });
    } finally {
      silent.server.closeAllConnections();
      await close(silent);
    }
  });

  it('keeps nothing for receivers that are gone: 300 of them leave the heap where it was', async () => {
    const sender = new WebhookSender({ timeoutMs: 5_000 });
    const deliverToFresh = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const r = await receiver((res) => res.writeHead(200).end('ok'));
        expect((await sender.send(delivery(r.url))).succeeded).toBe(true);
        r.server.closeAllConnections();
        await close(r);
      }
    };
    // Warm up (code loaded and compiled, lazily made tables filled) before the baseline.
    await deliverToFresh(30);
    const before = await heapAfterGc();
    await deliverToFresh(300);
    const grown = (await heapAfterGc()) - before;
    // With the global fetch this grew by about 6 MB (a connection pool per origin, kept after it closed).
    expect(grown).toBeLessThan(1.5 * 1024 * 1024);
  }, 60_000);
});
