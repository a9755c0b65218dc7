/**
 * The solver wallet keeps its nonces locally and sends with one round trip. These tests check what that must not
 * break on a real devnet: a reverted transaction is reported as such and still spends its nonce, and a nonce spent
 * behind the wallet's back (the same account sending from elsewhere) is picked up instead of failing the send.
 */
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
