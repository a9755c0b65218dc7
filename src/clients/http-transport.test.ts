import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeHttpTransport } from './http-transport.js';
import { ApiRequestError, RestClient } from './rest-client.js';

const servers: (Server | NetServer)[] = [];
/** Connections the raw servers accepted: a kept-alive one would hold `close` open until the client's pool drops it. */
const sockets = new Set<Socket>();
afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  for (const server of servers.splice(0)) {
    if ('closeAllConnections' in server) server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function listen<T extends Server | NetServer>(server: T): Promise<string> {
  servers.push(server);
  server.on('connection', (socket: Socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}`;
}

/** Answers what it was sent: method, path, the headers asked about, and the body. */
function echo(req: IncomingMessage, res: ServerResponse) {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
  req.on('end', () => {
    res.writeHead(req.url === '/missing' ? 404 : 200, { 'content-type': 'application/json', 'x-request-id': 'req_echo' });
    res.end(
      JSON.stringify({
        method: req.method,
        url: req.url,
        authorization: req.headers.authorization ?? null,
        contentLength: req.headers['content-length'] ?? null,
        body,
      }),
    );
  });
}

const call = (method: string, body?: string, timeoutMs = 5_000) => ({
  method,
  headers: { Accept: 'application/json', Authorization: 'Bearer k', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
  body,
  signal: AbortSignal.timeout(timeoutMs),
});

describe('the REST client over node http', () => {
  it('sends the method, headers and body (with its length in bytes) and reads status, headers and text', async () => {
    const url = await listen(createHttpServer(echo));
    const body = JSON.stringify({ note: 'déjà vu' });
    const answer = await nodeHttpTransport(`${url}/api/v1/orders?x=1`, call('POST', body));
    expect(answer.ok).toBe(true);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('X-Request-Id')).toBe('req_echo');
    expect(answer.headers.get('x-absent')).toBeNull();
    expect(JSON.parse(await answer.text())).toEqual({
      method: 'POST',
      url: '/api/v1/orders?x=1',
      authorization: 'Bearer k',
      contentLength: String(Buffer.byteLength(body)),
      body,
    });
    const missing = await nodeHttpTransport(`${url}/missing`, call('GET'));
    expect([missing.ok, missing.status]).toEqual([false, 404]);
  });

  it('reuses one connection for requests one after another', async () => {
    const server = createHttpServer(echo);
    const url = await listen(server);
    let connections = 0;
    server.on('connection', () => (connections += 1));
    for (let i = 0; i < 5; i++) await (await nodeHttpTransport(`${url}/n/${i}`, call('GET'))).text();
    expect(connections).toBe(1);
  });

  it('fails as fetch fails: no server is a TypeError "fetch failed" with the system code, no answer in time is a TimeoutError', async () => {
    const closed = await listen(createHttpServer(echo));
    const server = servers.pop()!;
    await new Promise((resolve) => server.close(resolve));
    const refused = await nodeHttpTransport(`${closed}/`, call('GET')).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TypeError);
    expect((refused as Error).message).toBe('fetch failed');
    expect(((refused as Error).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
    // What fetch gives for the same two failures, so that callers reading one read the other.
    const fetched = await fetch(`${closed}/`).catch((error: unknown) => error);
    expect([(fetched as Error).name, (fetched as Error).message]).toEqual([(refused as Error).name, (refused as Error).message]);

    const silent = await listen(createHttpServer(() => undefined));
    const late = await nodeHttpTransport(`${silent}/`, call('GET', undefined, 100)).catch((error: unknown) => error);
    expect((late as Error).name).toBe('TimeoutError');
    const lateFetch = await fetch(`${silent}/`, { signal: AbortSignal.timeout(100) }).catch((error: unknown) => error);
    expect((lateFetch as Error).name).toBe('TimeoutError');
  });

  it('fails at once, as fetch does, when the connection drops in the middle of an answer', async () => {
    const url = await listen(
      createHttpServer((req, res) => {
        res.writeHead(200, { 'content-length': '100' });
        res.write('0123456789');
        setTimeout(() => req.socket.destroy(), 20);
      }),
    );
    // A request left waiting would end at its timeout, as a TimeoutError.
    const cut = await nodeHttpTransport(`${url}/`, call('GET', undefined, 10_000)).catch((error: unknown) => error);
    expect(cut).toBeInstanceOf(TypeError);
    expect((cut as Error).message).toBe('fetch failed');
    expect(((cut as Error).cause as NodeJS.ErrnoException).code).toBe('ECONNRESET');
  });

  it('sends a request again, once, when the kept-alive connection it went out on was closed under it', async () => {
    // A raw server: answers the first request on a connection with keep-alive, resets the connection on the second
    // (a server whose idle timeout closed it as the request arrived), and answers on a new connection.
    const seen: string[] = [];
    const server = createNetServer((socket: Socket) => {
      let requests = 0;
      socket.on('data', (data: Buffer) => {
        const line = data.toString('latin1').split('\r\n')[0]!;
        requests += 1;
        seen.push(`${requests}:${line}`);
        if (requests === 2) {
          socket.resetAndDestroy();
          return;
        }
        const body = JSON.stringify({ line });
        socket.write(
          `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: keep-alive\r\n\r\n${body}`,
        );
      });
    });
    const url = await listen(server);
    expect(JSON.parse(await (await nodeHttpTransport(`${url}/first`, call('GET'))).text())).toEqual({ line: 'GET /first HTTP/1.1' });
    const second = await nodeHttpTransport(`${url}/second`, call('POST', '{}'));
    expect(JSON.parse(await second.text())).toEqual({ line: 'POST /second HTTP/1.1' });
    expect(seen).toEqual(['1:GET /first HTTP/1.1', '2:POST /second HTTP/1.1', '1:POST /second HTTP/1.1']);

    // A new connection reset under a request is not tried again: the request may have been taken.
    const resetting = createNetServer((socket: Socket) => socket.on('data', () => socket.resetAndDestroy()));
    const resetUrl = await listen(resetting);
    const reset = await nodeHttpTransport(`${resetUrl}/`, call('POST', '{}')).catch((error: unknown) => error);
    expect(((reset as Error).cause as NodeJS.ErrnoException).code).toBe('ECONNRESET');
  });

  it('is what RestClient uses unless given a fetch, with the same answers and errors either way', async () => {
    const url = await listen(createHttpServer(echo));
    const viaHttp = new RestClient({ baseUrl: url, apiKey: 'k' });
    const viaFetch = new RestClient({ baseUrl: url, apiKey: 'k', fetch });
    for (const client of [viaHttp, viaFetch]) {
      expect(await client.request('POST', '/api/v1/quotes', { a: 1 })).toMatchObject({
        method: 'POST',
        body: '{"a":1}',
        authorization: 'Bearer k',
      });
      const error = await client.request('GET', '/missing').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiRequestError);
      expect([(error as ApiRequestError).status, (error as ApiRequestError).requestId]).toEqual([404, 'req_echo']);
    }
  });
});
