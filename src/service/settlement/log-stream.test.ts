import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { type Address, createPublicClient, type Hex, http, type PublicClient } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { ANVIL_MNEMONIC } from '../../devnet/accounts.js';
import { type AnvilProcess, startAnvilProcess } from '../../devnet/anvil.js';
import { LogStream, type RpcLog } from './log-stream.js';

/**
 * The log stream against a real anvil, seen through a loopback relay that can lose head notifications the way a
 * node does when it replaces a block before announcing it.
 */
let anvil: AnvilProcess;
let client: PublicClient;
let cacheDir: string;
/** A contract whose every call emits one LOG0 (PUSH1 0 PUSH1 0 LOG0 STOP). */
const EMITTER: Address = '0x00000000000000000000000000000000000e0117';
let sender: Address;

beforeAll(async () => {
  cacheDir = mkdtempSync(join(tmpdir(), 'log-stream-'));
  anvil = await startAnvilProcess({
    name: 'log-stream',
    chainId: 31_999,
    port: 0,
    portFlag: '--port',
    cachePath: cacheDir,
    mnemonic: ANVIL_MNEMONIC,
    accounts: 1,
  });
  client = createPublicClient({ transport: http(anvil.rpcUrl) });
  await client.request({ method: 'anvil_setCode', params: [EMITTER, '0x60006000a000'] } as never);
  sender = ((await client.request({ method: 'eth_accounts' } as never)) as Address[])[0]!;
}, 30_000);

afterAll(async () => {
  await anvil?.stop();
  if (cacheDir !== undefined) rmSync(cacheDir, { recursive: true, force: true });
});

/**
 * A WebSocket relay to anvil that leaves out the first head notification of each block number in `dropHeads`, and
 * every one from `dropAllFrom` on.
 */
async function lossyRelay(
  dropHeads: Set<number>,
  dropAllFrom = Number.POSITIVE_INFINITY,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  server.on('connection', (downstream) => {
    const upstream = new WebSocket(anvil.wsUrl);
    const pending: string[] = [];
    upstream.on('open', () => {
      for (const message of pending.splice(0)) upstream.send(message);
    });
    downstream.on('message', (raw) => {
      if (upstream.readyState === WebSocket.OPEN) upstream.send(raw.toString());
      else pending.push(raw.toString());
    });
    upstream.on('message', (raw) => {
      const text = raw.toString();
      const message = JSON.parse(text) as { params?: { result?: { number?: Hex; parentHash?: Hex } } };
      const head = message.params?.result;
      if (head?.parentHash !== undefined && head.number !== undefined) {
        if (Number(head.number) >= dropAllFrom || dropHeads.delete(Number(head.number))) return;
      }
      downstream.send(text);
    });
    downstream.on('close', () => upstream.close());
    upstream.on('close', () => downstream.close());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of server.clients) socket.terminate();
        server.close(() => resolve());
      }),
  };
}

async function emit(): Promise<{ block: number; hash: Hex }> {
  const hash = (await client.request({ method: 'eth_sendTransaction', params: [{ from: sender, to: EMITTER }] } as never)) as Hex;
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  return { block: Number(receipt.blockNumber), hash: receipt.blockHash };
}

async function until(condition: () => boolean, ms: number, what: string): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A stream over `wsUrl` from `fromBlock`, recording what it delivers and the forks it reports. */
function watch(wsUrl: string, fromBlock: number) {
  const delivered: RpcLog[] = [];
  const forks: number[] = [];
  const stream = new LogStream({
    chainId: 31_999,
    wsUrl,
    client,
    addresses: [EMITTER],
    fromBlock,
    deliver: async (logs) => {
      delivered.push(...logs);
    },
    reorged: async (forkBlock) => {
      forks.push(forkBlock);
    },
    logger: pino({ level: 'silent' }),
  });
  return { stream, delivered, forks };
}

async function blockHash(block: number): Promise<Hex> {
  const found = (await client.request({ method: 'eth_getBlockByNumber', params: [`0x${block.toString(16)}`, false] })) as { hash: Hex };
  return found.hash;
}

/** Replaces the head block (the one `mined` is in) with an empty one, and expects the stream to report the fork below it. */
async function expectReorgReported(mined: { block: number; hash: Hex }, forks: readonly number[]): Promise<void> {
  await client.request({ method: 'anvil_reorg', params: [1, []] } as never);
  expect(await blockHash(mined.block)).not.toBe(mined.hash);
  await until(() => forks.length > 0, 5_000, 'the reorg to be reported');
  expect(forks).toEqual([mined.block - 1]);
}

describe('LogStream reorg detection', () => {
  it('finds a reorg that replaces a delivered log’s block although that block’s head notification never came', async () => {
    const head = Number(await client.request({ method: 'eth_blockNumber' }));
    // Block head+1 is empty and its head is heard; block head+2 carries the log, and its head is lost on the way,
    // as anvil loses it when a fault replaces the block right away.
    const relay = await lossyRelay(new Set([head + 2]));
    const { stream, delivered, forks } = watch(relay.url, head + 1);
    try {
      await stream.start();
      await client.request({ method: 'anvil_mine', params: ['0x1'] } as never);
      // The head arrives over the socket a moment after the block: give it time, then let the stream finish.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await stream.idle();
      const mined = await emit();
      expect(mined.block).toBe(head + 2);
      await until(() => delivered.length === 1, 5_000, 'the log to be delivered');
      expect(delivered[0]!.blockHash).toBe(mined.hash);
      // Replace the log's block with an empty one: the log is gone, and the new block's parent is the block the
      // stream heard. Only the log's block hash tells the stream that its block was replaced.
      await expectReorgReported(mined, forks);
    } finally {
      await stream.stop();
      await relay.close();
    }
  }, 30_000);

  it('finds a reorg that replaces the block of a log it read from history (a service that just started never heard that head)', async () => {
    const mined = await emit();
    // The stream starts after the log's block: it reads the log with eth_getLogs and hears only later heads.
    const { stream, delivered, forks } = watch(anvil.wsUrl, mined.block);
    try {
      await stream.start();
      expect(delivered.map((log) => log.blockHash)).toEqual([mined.hash]);
      await expectReorgReported(mined, forks);
    } finally {
      await stream.stop();
    }
  }, 30_000);

  it('finds a reorg it heard nothing of when told to look again from the first replaced block', async () => {
    const head = Number(await client.request({ method: 'eth_blockNumber' }));
    // No head notification from the log's block on, the replacing blocks' included: only the log's block hash is kept.
    const relay = await lossyRelay(new Set(), head + 1);
    const { stream, delivered, forks } = watch(relay.url, head + 1);
    try {
      await stream.start();
      const mined = await emit();
      expect(mined.block).toBe(head + 1);
      await until(() => delivered.length === 1, 5_000, 'the log to be delivered');
      await client.request({ method: 'anvil_mine', params: ['0x2'] } as never);
      await stream.idle();
      // Replace the log's block and the two after it.
      await client.request({ method: 'anvil_reorg', params: [3, []] } as never);
      expect(await blockHash(mined.block)).not.toBe(mined.hash);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await stream.idle();
      expect(forks).toEqual([]);
      // The head alone does not show it (neither it nor its parent was kept); the replaced block does.
      await stream.recheck(mined.block);
      expect(forks).toEqual([mined.block - 1]);
      // Looking again finds nothing more.
      await stream.recheck(mined.block);
      expect(forks).toEqual([mined.block - 1]);
    } finally {
      await stream.stop();
      await relay.close();
    }
  }, 30_000);

  it('reports nothing while the chain only grows', async () => {
    const head = Number(await client.request({ method: 'eth_blockNumber' }));
    const { stream, delivered, forks } = watch(anvil.wsUrl, head + 1);
    try {
      await stream.start();
      for (let i = 0; i < 3; i += 1) await emit();
      await client.request({ method: 'anvil_mine', params: ['0x3'] } as never);
      await until(() => delivered.length === 3, 5_000, 'three logs to be delivered');
      await new Promise((resolve) => setTimeout(resolve, 200));
      await stream.idle();
      expect(forks).toEqual([]);
    } finally {
      await stream.stop();
    }
  }, 30_000);
});
