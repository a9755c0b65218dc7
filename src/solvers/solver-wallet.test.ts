/**
 * The solver wallet keeps its nonces locally and sends with one round trip. These tests check what that must not
 * break on a real devnet: a reverted transaction is reported as such and still spends its nonce, and a nonce spent
 * behind the wallet's back (the same account sending from elsewhere) is picked up instead of failing the send, and a
 * send the node never took (killed mid-send) is sent again instead of waited for.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Address, createPublicClient, http } from 'viem';
import { startSandbox, type Sandbox } from '../sandbox/sandbox.js';
import type { ChainInfo } from '../contracts/deployment.js';
import { buildStandardOrder } from '../contracts/standard-order.js';
import type { StandardOrder } from '../contracts/order.js';
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
 * A JSON-RPC hop in front of a chain that loses the first `eth_sendRawTransactionSync` the way a node killed mid-send
 * does: the connection closes and the chain never sees the transaction. Everything else passes through.
 */
async function losingFirstSend(target: string): Promise<{ server: Server; url: string; lost: () => number }> {
  let lost = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (lost === 0 && body.toString().includes('eth_sendRawTransactionSync')) {
        lost += 1;
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
  it('sends the same transaction again and reports its outcome, within seconds instead of waiting minutes', async () => {
    const hop = await losingFirstSend(origin.rpcUrl);
    try {
      const chains = sandbox.manifest.chains.map((c) => (c.chainId === origin.chainId ? { ...c, rpcUrl: hop.url } : c));
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
