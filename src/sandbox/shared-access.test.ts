import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RestClient } from '../clients/rest-client.js';
import { startWhenServiceAnswers } from './shared-access.js';

/** A stand-in for a load balancer in front of the service: answers `status` to the first `failures` requests. */
function balancer(failures: number, status: number): Promise<{ server: Server; url: string; seen: () => number }> {
  let seen = 0;
  const server = createServer((_request, response) => {
    seen += 1;
    const failing = seen <= failures;
    response.writeHead(failing ? status : 200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(failing ? { error: { code: 'bad_gateway', message: 'no backend' } } : { corridors: [{ id: 'c1' }] }));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen: () => seen }),
    ),
  );
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('the solvers role waits for the service behind a load balancer', () => {
  it('tries again while the balancer answers 502, then starts', async () => {
    const lb = await balancer(2, 502);
    servers.push(lb.server);
    const retries: string[] = [];
    const corridors = await startWhenServiceAnswers(
      () => new RestClient({ baseUrl: lb.url, apiKey: 'k' }).corridors(),
      10_000,
      (why) => retries.push(why),
    );
    expect(corridors.map((c) => c.id)).toEqual(['c1']);
    expect(lb.seen()).toBe(3);
    expect(retries).toHaveLength(2);
    expect(retries[0]).toMatch(/the service does not answer yet \(GET \/api\/v1\/corridors → 502 bad_gateway/);
  });

  it('tries again while nothing listens on the service port, then starts once it does', async () => {
    const lb = await balancer(0, 502);
    const { port } = lb.server.address() as AddressInfo;
    await new Promise((resolve) => lb.server.close(resolve));
    const retries: string[] = [];
    const started = startWhenServiceAnswers(
      () => new RestClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'k' }).corridors(),
      10_000,
      (why) => retries.push(why),
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const again = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ corridors: [{ id: 'c2' }] }));
    });
    servers.push(again);
    await new Promise<void>((resolve) => again.listen(port, '127.0.0.1', resolve));
    expect((await started).map((c) => c.id)).toEqual(['c2']);
    expect(retries.length).toBeGreaterThanOrEqual(1);
  });

  it('gives up at the deadline with the last failure, and throws any other refusal at once', async () => {
    const down = await balancer(1_000, 503);
    servers.push(down.server);
    await expect(
      startWhenServiceAnswers(
        () => new RestClient({ baseUrl: down.url, apiKey: 'k' }).corridors(),
        1_200,
        () => undefined,
      ),
    ).rejects.toThrow(/503/);
    expect(down.seen()).toBeGreaterThanOrEqual(2);

    const refusing = await balancer(1_000, 401);
    servers.push(refusing.server);
    const retries: string[] = [];
    await expect(
      startWhenServiceAnswers(
        () => new RestClient({ baseUrl: refusing.url, apiKey: 'k' }).corridors(),
        10_000,
        (why) => retries.push(why),
      ),
    ).rejects.toThrow(/401/);
    expect(refusing.seen()).toBe(1);
    expect(retries).toEqual([]);
  });
});
