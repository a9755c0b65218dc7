/**
 * The solver wallet keeps its nonces locally and sends with one round trip. These tests check what that must not
 * break on a real devnet: a reverted transaction is reported as such and still spends its nonce, a nonce spent
 * behind the wallet's back (the same account sending from elsewhere) is picked up instead of failing the send, a
 * chain that goes away for a few seconds (its node restarting) neither loses a send nor makes it land twice, and a
 * send the node never took (killed mid-send) is sent again instead of waited for.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Address, createPublicClient, erc20Abi, http } from 'viem';
import { startSandbox, type Sandbox } from '../sandbox/sandbox.js';
import type { ChainInfo } from '../contracts/deployment.js';
import { buildStandardOrder } from '../contracts/standard-order.js';
import type { StandardOrder } from '../contracts/order.js';
import { TransactionDroppedError } from '../contracts/sync-send.js';
import { SolverWallet, TransactionRevertedError } from './solver-wallet.js';

let sandbox: Sandbox;
let origin: ChainInfo;
let destination: ChainInfo;

beforeAll(async () => {
  sandbox = await startSandbox({});
  [origin, destination] = sandbox.manifest.chains as [ChainInfo, ChainInfo];
}, 60_000);

afterAll(async () => {
  await sandbox?.stop();
});

const usdc = (chain: ChainInfo): Address => chain.tokens.find((t) => t.symbol === 'USDC')!.address;
/**
 * The chain reached through `url` (a proxy in front of it). Its IPC socket is another way to the same node, as its
 * WebSocket URL is, so it goes too: the wallet would take it around the proxy.
 */
function through(chain: ChainInfo, url: string): ChainInfo {
  const { ipcPath: _socket, ...rest } = chain;
  return { ...rest, rpcUrl: url };
}

/** An order that was never opened: claiming it reverts on chain, after the transaction was mined. */
function unopenedOrder(user: Address): StandardOrder {
  const now = Math.floor(Date.now() / 1_000);
  return buildStandardOrder(
    {
      originChain: origin,
      destinationChain: destination,
      inputToken: usdc(origin),
      outputToken: usdc(destination),
      inputAmount: 1_000_000n,
      outputAmount: 1_000_000n,
      lockType: 'Permit2Escrow',
      fillDeadline: now + 600,
      expires: now + 900,
    },
    user,
    BigInt(now),
  );
}

describe('SolverWallet sends', () => {
  it('reports a revert, spends the nonce, and recovers when another sender of the account took the next nonce', async () => {
    const key = sandbox.manifest.accounts.solvers[2]!.privateKey;
    const mine = new SolverWallet(sandbox.manifest.chains, key);
    const elsewhere = new SolverWallet(sandbox.manifest.chains, key);
    const chain = createPublicClient({ transport: http(origin.rpcUrl) });
    const nonce = () => chain.getTransactionCount({ address: mine.address, blockTag: 'pending' });
    const order = unopenedOrder(mine.address);
    const params = [{ timestamp: 1, solver: mine.identifier }];

    const start = await nonce();
    await expect(mine.finalise(order, 'Permit2Escrow', params)).rejects.toBeInstanceOf(TransactionRevertedError);
    expect(await nonce()).toBe(start + 1);
    // The same account sends from another wallet: `mine` still holds start + 1, which is now taken.
    await expect(elsewhere.finalise(order, 'Permit2Escrow', params)).rejects.toBeInstanceOf(TransactionRevertedError);
    expect(await nonce()).toBe(start + 2);
    await expect(mine.finalise(order, 'Permit2Escrow', params)).rejects.toBeInstanceOf(TransactionRevertedError);
    expect(await nonce()).toBe(start + 3);
    // And the wallet goes on from there.
    await expect(mine.finalise(order, 'Permit2Escrow', params)).rejects.toBeInstanceOf(TransactionRevertedError);
    expect(await nonce()).toBe(start + 4);
  }, 60_000);
});

/**
 * The chain's JSON-RPC behind a relay that can be away (connections refused) or lose requests: a send that never
 * reaches the node, or one whose answer is lost after the node got it.
 */
class FlakyRpc {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  /** What happens to the next eth_sendRawTransactionSync requests, first in first out. */
  readonly sends: Array<'drop-before' | 'drop-after'> = [];
  url = '';
  private port = 0;

  constructor(private readonly upstream: string) {}

  async up(): Promise<void> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', async () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const fate = body.includes('eth_sendRawTransactionSync') ? this.sends.shift() : undefined;
        if (fate === 'drop-before') return req.socket.destroy();
        const answer = await fetch(this.upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        const text = await answer.text();
        if (fate === 'drop-after') return req.socket.destroy();
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
      });
    });
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.url = `http://127.0.0.1:${this.port}`;
    this.server = server;
  }

  /** Refuses connections and cuts the open ones, as a node that stopped. */
  async down(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }
}

describe('SolverWallet across a chain outage', () => {
  it('sends once the chain is back, and a send lost on its way or on its way back lands exactly once', async () => {
    const relay = new FlakyRpc(destination.rpcUrl);
    await relay.up();
    const chains = sandbox.manifest.chains.map((chain) => (chain.chainId === destination.chainId ? through(chain, relay.url) : chain));
    const wallet = new SolverWallet(chains, sandbox.manifest.accounts.solvers[1]!.privateKey);
    const recipient = sandbox.manifest.accounts.takers[4]!.address;
    const direct = createPublicClient({ transport: http(destination.rpcUrl) });
    const balance = () => direct.readContract({ address: usdc(destination), abi: erc20Abi, functionName: 'balanceOf', args: [recipient] });
    const nonce = () => direct.getTransactionCount({ address: wallet.address });
    try {
      // The node is away when the send starts, for longer than a request's own retries last, and comes back.
      const before = await balance();
      await relay.down();
      const sent = wallet.transfer(destination.chainId, usdc(destination), recipient, 1n);
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      await relay.up();
      await sent;
      expect(await balance()).toBe(before + 1n);

      // The send never reaches the node (the node restarting as it goes out): sent again, it lands once.
      const startNonce = await nonce();
      relay.sends.push('drop-before');
      await wallet.transfer(destination.chainId, usdc(destination), recipient, 1n);
      expect(await balance()).toBe(before + 2n);
      expect(await nonce()).toBe(startNonce + 1);

      // The node mined it, and the answer was lost: its receipt says so, nothing is sent twice.
      relay.sends.push('drop-after');
      await wallet.transfer(destination.chainId, usdc(destination), recipient, 1n);
      expect(await balance()).toBe(before + 3n);
      expect(await nonce()).toBe(startNonce + 2);
    } finally {
      await relay.down();
    }
  }, 60_000);
});

/**
 * A JSON-RPC hop in front of a chain that loses the first `eth_sendRawTransactionSync` the way a node killed mid-send
 * does: the connection closes and the chain never sees the transaction. Everything else passes through.
 */
async function losingFirstSend(
  target: string,
  how: 'connection closed' | 'internal error' = 'connection closed',
): Promise<{ server: Server; url: string; lost: () => number }> {
  let lost = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (lost === 0 && body.toString().includes('eth_sendRawTransactionSync')) {
        lost += 1;
        if (how === 'internal error') {
          // What a node answers while it restarts: JSON-RPC's internal error, and the transaction never reached it.
          const { id } = JSON.parse(body.toString()) as { id: number };
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32603, message: 'internal error' } }));
          return;
        }
        req.socket.destroy();
        return;
      }
      const forward = httpRequest(target, { method: 'POST', headers: { 'content-type': 'application/json' } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, { 'content-type': 'application/json' });
        answer.pipe(res);
      });
      forward.on('error', () => res.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, lost: () => lost };
}

describe('SolverWallet after a send the chain never took', () => {
  it('takes an internal error (-32603) for a lost answer: the same transaction is sent again and lands once', async () => {
    const hop = await losingFirstSend(origin.rpcUrl, 'internal error');
    try {
      const chains = sandbox.manifest.chains.map((c) => (c.chainId === origin.chainId ? through(c, hop.url) : c));
      const wallet = new SolverWallet(chains, sandbox.manifest.accounts.solvers[1]!.privateKey);
      const chain = createPublicClient({ transport: http(origin.rpcUrl) });
      const start = await chain.getTransactionCount({ address: wallet.address, blockTag: 'pending' });
      await expect(
        wallet.finalise(unopenedOrder(wallet.address), 'Permit2Escrow', [{ timestamp: 1, solver: wallet.identifier }]),
      ).rejects.toBeInstanceOf(TransactionRevertedError);
      expect(hop.lost()).toBe(1);
      expect(await chain.getTransactionCount({ address: wallet.address, blockTag: 'pending' })).toBe(start + 1);
    } finally {
      hop.server.closeAllConnections();
      await new Promise((resolve) => hop.server.close(resolve));
    }
  }, 60_000);

  it('sends the same transaction again and reports its outcome, within seconds instead of waiting minutes', async () => {
    const hop = await losingFirstSend(origin.rpcUrl);
    try {
      const chains = sandbox.manifest.chains.map((c) => (c.chainId === origin.chainId ? through(c, hop.url) : c));
      const wallet = new SolverWallet(chains, sandbox.manifest.accounts.solvers[2]!.privateKey);
      const chain = createPublicClient({ transport: http(origin.rpcUrl) });
      const start = await chain.getTransactionCount({ address: wallet.address, blockTag: 'pending' });
      const began = Date.now();
      // Finalising an order that was never opened reverts once mined: the outcome of the one transaction sent.
      await expect(
        wallet.finalise(unopenedOrder(wallet.address), 'Permit2Escrow', [{ timestamp: 1, solver: wallet.identifier }]),
      ).rejects.toBeInstanceOf(TransactionRevertedError);
      expect(hop.lost()).toBe(1);
      expect(await chain.getTransactionCount({ address: wallet.address, blockTag: 'pending' })).toBe(start + 1);
      // Waiting for a receipt alone took viem's timeout (3 min) here: the chain never had the transaction.
      expect(Date.now() - began).toBeLessThan(15_000);
    } finally {
      hop.server.closeAllConnections();
      await new Promise((resolve) => hop.server.close(resolve));
    }
  }, 60_000);
});

describe('SolverWallet when a transaction vanishes while its send waits', () => {
  /**
   * A halted chain keeps the send waiting; the pool then forgets the transaction, as a reorganisation makes the chain
   * forget a mined one (anvil would answer the waiting send only at its 30 s timeout). `abandon` says so at once, as
   * the reference solver does when the service's `order.reorged` names its fill; without it the wallet finds out by
   * asking the node.
   */
  async function vanishing(wallet: SolverWallet, tell: (hash: `0x${string}`) => void) {
    const chain = createPublicClient({ transport: http(origin.rpcUrl) });
    const params = [{ timestamp: 1, solver: wallet.identifier }];
    const start = await chain.getTransactionCount({ address: wallet.address, blockTag: 'pending' });
    await chain.request({ method: 'evm_setAutomine', params: [false] } as never);
    let elapsed: number;
    let error: unknown;
    let hash: `0x${string}` | undefined;
    try {
      const outcome = wallet.finalise(unopenedOrder(wallet.address), 'Permit2Escrow', params).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      const began = Date.now();
      while (hash === undefined && Date.now() - began < 10_000) {
        const pool = (await chain.request({ method: 'txpool_content', params: [] } as never)) as {
          pending: Record<string, Record<string, { hash: `0x${string}` }>>;
        };
        const mine = Object.entries(pool.pending).find(([from]) => from.toLowerCase() === wallet.address.toLowerCase());
        hash = mine === undefined ? undefined : Object.values(mine[1])[0]?.hash;
        if (hash === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(hash).toBeDefined();
      await chain.request({ method: 'anvil_dropTransaction', params: [hash] } as never);
      const dropped = Date.now();
      tell(hash!);
      error = await outcome;
      elapsed = Date.now() - dropped;
      // Not sent again: the pool stays empty and the nonce unspent.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await chain.request({ method: 'txpool_status', params: [] } as never)).toMatchObject({ pending: '0x0', queued: '0x0' });
    } finally {
      await chain.request({ method: 'evm_setAutomine', params: [true] } as never);
    }
    expect(error).toBeInstanceOf(TransactionDroppedError);
    expect((error as TransactionDroppedError).hash).toBe(hash);
    expect(await chain.getTransactionCount({ address: wallet.address, blockTag: 'latest' })).toBe(start);
    // The next send reads the nonce again and lands (a revert, mined: the unopened order).
    await expect(wallet.finalise(unopenedOrder(wallet.address), 'Permit2Escrow', params)).rejects.toBeInstanceOf(TransactionRevertedError);
    expect(await chain.getTransactionCount({ address: wallet.address, blockTag: 'latest' })).toBe(start + 1);
    return elapsed;
  }

  it('gives the send up at once when told the transaction is gone, sends nothing again, and its next send takes the freed nonce', async () => {
    const wallet = new SolverWallet(sandbox.manifest.chains, sandbox.manifest.accounts.solvers[1]!.privateKey);
    const elapsed = await vanishing(wallet, (hash) => wallet.abandon(hash));
    // Asking the node would take at least 5 s (DROPPED_WATCH): this was the telling.
    expect(elapsed).toBeLessThan(3_000);
  }, 60_000);

  it('finds out by asking the node when nobody tells it: well before anvil’s 30 s', async () => {
    const wallet = new SolverWallet(sandbox.manifest.chains, sandbox.manifest.accounts.solvers[1]!.privateKey);
    const elapsed = await vanishing(wallet, () => undefined);
    expect(elapsed).toBeLessThan(15_000);
  }, 60_000);
});
