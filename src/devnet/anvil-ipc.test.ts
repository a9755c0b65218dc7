/**
 * A sandbox chain listens on an IPC socket beside its HTTP port, and the JSON-RPC client over that socket answers as
 * the HTTP one does (real anvil). Scripted local servers stand in for a node that misbehaves: one that never
 * answers, one that hangs up after taking a request, one that writes garbage, and a socket that is gone.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { type Server, type Socket, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonRpcHttp, JsonRpcNoAnswer } from '../contracts/json-rpc-http.js';
import { jsonRpcIpc, jsonRpcLocal, NoAnswer } from '../contracts/json-rpc-ipc.js';
import { type AnvilProcess, startAnvilProcess } from './anvil.js';

const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';
let dir: string;
let anvil: AnvilProcess;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ipc-'));
  anvil = await startAnvilProcess({
    name: 'ipc',
    chainId: 31_997,
    port: 0,
    portFlag: '--port',
    cachePath: join(dir, 'cache'),
    mnemonic: ANVIL_MNEMONIC,
    accounts: 3,
  });
}, 30_000);

afterAll(async () => {
  await anvil?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A chain started, stopped and started again on the same cache folder (what a chain restart does). */
const restartableChain = () =>
  startAnvilProcess({
    name: 'ipc-restart',
    chainId: 31_996,
    port: 0,
    portFlag: '--port',
    cachePath: join(dir, 'restart-cache'),
    mnemonic: ANVIL_MNEMONIC,
    accounts: 1,
  });

/** A local socket server that runs `onRequest` for each request line it reads. */
async function scriptedNode(path: string, onRequest: (socket: Socket, request: { id: number; method: string }) => void) {
  const requests: string[] = [];
  const server: Server = createServer((socket) => {
    let buffered = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
        const request = JSON.parse(buffered.slice(0, end));
        buffered = buffered.slice(end + 1);
        requests.push(request.method);
        onRequest(socket, request);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return { requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe("a sandbox chain's IPC socket", () => {
  it('is in the chain cache folder and answers what the HTTP port answers, in any order, matched by id', async () => {
    expect(anvil.ipcPath).toBe(join(dir, 'cache', 'anvil.ipc'));
    const ipc = jsonRpcIpc(anvil.ipcPath!);
    const http = jsonRpcHttp(anvil.rpcUrl);
    try {
      const accounts = (await http.call('eth_accounts', [])).result as string[];
      expect(accounts).toHaveLength(3);
      expect(await ipc.call('eth_chainId', [])).toEqual({ result: '0x7cfd' });
      // Many calls in flight on one connection: each gets its own answer.
      const calls = [...accounts, ...accounts, ...accounts].map((address, i) =>
        ipc.call(i % 2 === 0 ? 'eth_getBalance' : 'eth_getTransactionCount', [address, 'latest']),
      );
      const viaHttp = [...accounts, ...accounts, ...accounts].map((address, i) =>
        http.call(i % 2 === 0 ? 'eth_getBalance' : 'eth_getTransactionCount', [address, 'latest']),
      );
      expect(await Promise.all(calls)).toEqual(await Promise.all(viaHttp));
      // Calls made while the connection is still opening share it (no listener piles up per call).
      const fresh = jsonRpcIpc(anvil.ipcPath!);
      const warnings: string[] = [];
      const onWarning = (warning: Error) => warnings.push(warning.name);
      process.on('warning', onWarning);
      try {
        const answers = await Promise.all(Array.from({ length: 30 }, () => fresh.call('eth_chainId', [])));
        expect(answers.every((answer) => answer.result === '0x7cfd')).toBe(true);
        await new Promise((resolve) => setImmediate(resolve));
        expect(warnings).toEqual([]);
      } finally {
        process.off('warning', onWarning);
        fresh.close();
      }
      // A refusal is an answer, as over HTTP: the node's error object, not a JsonRpcNoAnswer.
      const refused = await ipc.call('eth_sendRawTransaction', ['0x01']);
      expect(refused.error).toMatchObject({ code: expect.any(Number), message: expect.any(String) });
      expect(refused.error).toEqual((await http.call('eth_sendRawTransaction', ['0x01'])).error);
    } finally {
      ipc.close();
      http.close();
    }
  });

  it('fails a call with JsonRpcNoAnswer once the chain is gone, and reaches the chain again after it comes back', async () => {
    const chain = await restartableChain();
    const ipc = jsonRpcIpc(chain.ipcPath!);
    try {
      expect(await ipc.call('eth_chainId', [])).toEqual({ result: '0x7cfc' });
      await chain.stop();
      // The cache folder goes with the chain, and its socket with it.
      expect(existsSync(chain.ipcPath!)).toBe(false);
      const down = await ipc.call('eth_chainId', []).catch((error: unknown) => error);
      expect(down).toBeInstanceOf(JsonRpcNoAnswer);
      expect(down).toMatchObject({ reason: 'connection', method: 'eth_chainId', sent: false });

      const again = await restartableChain();
      try {
        expect(again.ipcPath).toBe(chain.ipcPath);
        expect(await ipc.call('eth_chainId', [])).toEqual({ result: '0x7cfc' });
      } finally {
        await again.stop();
      }
    } finally {
      ipc.close();
    }
  });
});

describe('a node that misbehaves on its socket', () => {
  it('one that never answers: the call times out', async () => {
    const path = join(dir, 'silent.ipc');
    const node = await scriptedNode(path, () => undefined);
    const ipc = jsonRpcIpc(path, { timeoutMs: 150 });
    try {
      const error = await ipc.call('eth_blockNumber', []).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'JsonRpcNoAnswer', reason: 'timeout', sent: true });
      expect(node.requests).toEqual(['eth_blockNumber']);
    } finally {
      ipc.close();
      await node.close();
    }
  });

  it('one that hangs up after taking the request: connection, and the request counts as sent', async () => {
    const path = join(dir, 'hangup.ipc');
    const node = await scriptedNode(path, (socket) => socket.destroy());
    const ipc = jsonRpcIpc(path);
    try {
      const error = await ipc.call('eth_sendRawTransaction', ['0x02']).catch((e: unknown) => e);
      expect(error).toMatchObject({ reason: 'connection', sent: true });
    } finally {
      ipc.close();
      await node.close();
    }
  });

  it('one that writes a line that is not JSON: every waiting call fails', async () => {
    const path = join(dir, 'garbage.ipc');
    const node = await scriptedNode(path, (socket, request) => {
      if (request.method === 'eth_blockNumber') socket.write('<html>oops</html>\n');
      if (request.method === 'eth_gasPrice') socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: request.id, result: '0x1' })}\n`);
    });
    const ipc = jsonRpcIpc(path, { timeoutMs: 5_000 });
    try {
      const waiting = ipc.call('eth_chainId', []).catch((e: unknown) => e);
      const garbage = ipc.call('eth_blockNumber', []).catch((e: unknown) => e);
      expect(await garbage).toMatchObject({ reason: 'connection', detail: 'the node answered a line that is not JSON' });
      expect(await waiting).toMatchObject({ reason: 'connection' });
      // The next call opens a new connection; the old one's end does not touch it.
      expect(await ipc.call('eth_gasPrice', [])).toEqual({ result: '0x1' });
    } finally {
      ipc.close();
      await node.close();
    }
  });
});

describe('jsonRpcLocal: the socket while it answers, HTTP otherwise', () => {
  it('prefers the socket; a socket that refuses sends the call over HTTP; a call the socket took is never sent twice', async () => {
    const path = join(dir, 'local.ipc');
    let behaviour: 'answer' | 'hang up' = 'answer';
    const node = await scriptedNode(path, (socket, request) => {
      if (behaviour === 'hang up') socket.destroy();
      else socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: request.id, result: 'from the socket' })}\n`);
    });
    const local = jsonRpcLocal(path, anvil.rpcUrl);
    try {
      expect(await local.call('eth_chainId', [])).toEqual({ result: 'from the socket' });

      // Taken, then the connection dropped: the node may have acted on it, so it is not sent again over HTTP.
      behaviour = 'hang up';
      const error = await local.call('eth_sendRawTransaction', ['0x02']).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NoAnswer);
      expect(error).toMatchObject({ sent: true });

      // The socket is gone: the call goes to the chain over HTTP.
      await node.close();
      rmSync(path, { force: true });
      expect(await local.call('eth_chainId', [])).toEqual({ result: '0x7cfd' });
      expect(node.requests).toEqual(['eth_chainId', 'eth_sendRawTransaction']);
    } finally {
      local.close();
    }
  });

  it('uses HTTP from the start when there is no socket, or its path is too long for a socket address', async () => {
    const missing = jsonRpcLocal(join(dir, 'none.ipc'), anvil.rpcUrl);
    const long = jsonRpcLocal(join(dir, 'x'.repeat(120), 'anvil.ipc'), anvil.rpcUrl);
    try {
      expect(await missing.call('eth_chainId', [])).toEqual({ result: '0x7cfd' });
      expect(await long.call('eth_chainId', [])).toEqual({ result: '0x7cfd' });
    } finally {
      missing.close();
      long.close();
    }
  });
});
