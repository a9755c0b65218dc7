/**
 * The reference solvers' transport must fail the way viem's `http` transport does, since the wallet tells an outage
 * (retry while the node is away) from a refusal (nonce too low, fee cap: act on it) by those errors. A scripted
 * loopback node answers each case; the same calls through viem's own `http` transport are the reference.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BaseError, createPublicClient, http, RpcRequestError, TimeoutError, type Transport } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { solverTransport } from './rpc-transport.js';
import { isTransportError } from './solver-wallet.js';

type Script = (req: IncomingMessage, body: { id: number; method: string }, res: ServerResponse) => void;
let script: Script;
let hits = 0;
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      hits += 1;
      script(req, JSON.parse(raw), res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const json = (res: ServerResponse, status: number, value: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
};

/** The error a call fails with, through one transport. */
async function failure(transport: Transport, method = 'eth_sendRawTransaction'): Promise<unknown> {
  const client = createPublicClient({ transport });
  return client.request({ method, params: ['0x00'] } as never).then(
    () => expect.unreachable('the call succeeded'),
    (error: unknown) => error,
  );
}

function refusal(error: unknown): RpcRequestError | undefined {
  const found = error instanceof BaseError ? error.walk((e) => e instanceof RpcRequestError) : null;
  return found instanceof RpcRequestError ? found : undefined;
}

describe('solverTransport', () => {
  it('answers results, and sends credentials in the URL as basic auth', async () => {
    let auth: string | undefined;
    script = (req, body, res) => {
      auth = req.headers.authorization;
      json(res, 200, { jsonrpc: '2.0', id: body.id, result: '0x2a' });
    };
    const client = createPublicClient({ transport: solverTransport(url).transport });
    expect(await client.getChainId()).toBe(42);
    const withUser = createPublicClient({ transport: solverTransport(url.replace('http://', 'http://ann:s%40cret@')).transport });
    await withUser.getChainId();
    expect(auth).toBe(`Basic ${Buffer.from('ann:s@cret').toString('base64')}`);
  });

  it('fails a refusal as viem does: an RpcRequestError with the node’s code and message, and no retry', async () => {
    script = (_req, body, res) => json(res, 200, { jsonrpc: '2.0', id: body.id, error: { code: -32003, message: 'nonce too low' } });
    hits = 0;
    const ours = await failure(solverTransport(url, { retryCount: 0 }).transport);
    expect(hits).toBe(1);
    const theirs = await failure(http(url, { retryCount: 0 }));
    expect(refusal(ours)?.details).toBe('nonce too low');
    expect(refusal(ours)?.code).toBe(-32003);
    expect(refusal(ours)?.details).toBe(refusal(theirs)?.details);
    expect((ours as Error).constructor).toBe((theirs as Error).constructor);
    expect(isTransportError(ours)).toBe(false);
  });

  it('retries an internal error (-32603) as viem does, and the wallet reads it as an outage', async () => {
    script = (_req, body, res) => json(res, 200, { jsonrpc: '2.0', id: body.id, error: { code: -32603, message: 'node restarting' } });
    hits = 0;
    const ours = await failure(solverTransport(url, { retryCount: 2 }).transport);
    expect(hits).toBe(3);
    expect(isTransportError(ours)).toBe(true);
  });

  it('fails a node that is not there, or answers no JSON, as an outage (HttpRequestError)', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const gone = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await failure(solverTransport(gone, { retryCount: 0 }).transport);
    expect(isTransportError(refused)).toBe(true);
    expect(isTransportError(await failure(http(gone, { retryCount: 0 })))).toBe(true);

    script = (_req, _body, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>bad gateway</html>');
    };
    const proxy = await failure(solverTransport(url, { retryCount: 0 }).transport);
    expect(isTransportError(proxy)).toBe(true);
    expect(refusal(proxy)).toBeUndefined();
  });

  it('fails a node that does not answer in time with a TimeoutError', async () => {
    script = () => undefined; // never answers
    const slow = await failure(solverTransport(url, { retryCount: 0, timeoutMs: 150 }).transport);
    expect(slow).toBeInstanceOf(BaseError);
    expect((slow as BaseError).walk((e) => e instanceof TimeoutError)).toBeInstanceOf(TimeoutError);
    expect(isTransportError(slow)).toBe(true);
  });
});
