import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { onFreePort } from './service-cluster.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** Listens on `port` (0: any) on loopback, like a service instance binding its port. */
function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      servers.push(server);
      resolve(server);
    });
  });
}

const portOf = (server: Server) => (server.address() as { port: number }).port;

describe('a port found free and taken before it is bound', () => {
  it('is given up for another free port, and said so', async () => {
    const squatter = await listen(0);
    const picks = [portOf(squatter), 0];
    const taken: number[] = [];
    const { port, value } = await onFreePort((free) => listen(free), {
      // The first pick is the port another process took meanwhile; the second lets the kernel choose.
      pick: async () => picks.shift()!,
      onTaken: (p) => taken.push(p),
    });
    expect(taken).toEqual([portOf(squatter)]);
    expect(port).toBe(0);
    expect(portOf(value)).not.toBe(portOf(squatter));
  });

  it('gives up after the attempts allowed, and on any other failure at once', async () => {
    const squatter = await listen(0);
    let tries = 0;
    const always = () => {
      tries += 1;
      return listen(portOf(squatter));
    };
    await expect(onFreePort(always, { pick: async () => portOf(squatter), attempts: 3 })).rejects.toThrow(/EADDRINUSE/);
    expect(tries).toBe(3);
    tries = 0;
    const refused = async () => {
      tries += 1;
      throw new Error('the store refused the schema');
    };
    await expect(onFreePort(refused, { pick: async () => 1 })).rejects.toThrow(/refused/);
    expect(tries).toBe(1);
  });
});
