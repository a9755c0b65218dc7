import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { startSettlementHarness, type SettlementHarness } from '../settlement/testing/harness.js';
import { TestSolver } from '../settlement/testing/test-solver.js';
import { TestTaker } from '../settlement/testing/taker.js';
import { waitForStatus } from '../settlement/testing/wait.js';

let h: SettlementHarness;
let solver: TestSolver;

beforeAll(async () => {
  h = await startSettlementHarness();
  solver = new TestSolver({ url: h.service.url, apiKey: h.apiKey, privateKey: h.manifest.accounts.solvers[0]!.privateKey, chains: h.manifest.chains });
  await solver.start();
}, 60_000);

afterAll(async () => {
  await solver?.stop();
  await h?.stop();
});

function corridor(symbol = 'USDC') {
  const [alpha, beta] = h.manifest.chains;
  const input = alpha!.tokens.find((t) => t.symbol === symbol)!;
  const output = beta!.tokens.find((t) => t.symbol === symbol)!;
  return { originChainId: alpha!.chainId, destinationChainId: beta!.chainId, inputToken: input.address as Address, outputToken: output.address as Address };
}

describe('order lifecycle', () => {
  it('Permit2Escrow on the direct path: Deposited → Filled → Attested → Claimed', async () => {
    const taker = new TestTaker(h.manifest.accounts.takers[0]!.privateKey, h.rest, h.manifest.chains);
    const response = await taker.quote({ ...corridor(), inputAmount: '20000000000', lockType: 'Permit2Escrow', settlementPath: 'direct' });
    const quote = response.quotes[0]!;
    const signature = await taker.sign(quote.typedData);
    const created = await h.rest.createOrder({ quoteId: quote.quoteId, signature, nonce: quote.nonce!, user: taker.address });
    expect(created.status).toBe('Deposited');
    const detail = await waitForStatus(h.rest, created.orderId, 'Claimed').catch((error) => {
      console.log(h.service.store.db.prepare('SELECT kind, key, status, chain_id, nonce, error FROM relays').all());
      console.log(h.service.store.db.prepare('SELECT chain_id, kind, block_number FROM processed_logs').all());
      throw error;
    });
    expect(detail.settledAt).not.toBeNull();
    expect(solver.errors).toEqual([]);
  }, 30_000);
});
