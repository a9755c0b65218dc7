import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { SolverStreamClient, type SolverOrderMessage } from '../../clients/solver-stream-client.js';
import { startSettlementHarness, type SettlementHarness } from '../../../test/support/settlement/harness.js';
import { TestSolver } from '../../../test/support/settlement/test-solver.js';
import { TestTaker } from '../../../test/support/settlement/taker.js';
import { eventually } from '../../../test/support/settlement/wait.js';

/**
 * A solver whose connection went away after it was told of an order (a replica died under it, or the message went to
 * the replica being killed) hears of the order again when it connects again, as long as the order waits for its fill:
 * the solver stream is best effort, and without this the order waited for its refund (seen in the composed sandbox).
 */
let h: SettlementHarness;
let solver: TestSolver;
const clients: SolverStreamClient[] = [];

beforeAll(async () => {
  h = await startSettlementHarness();
  // It wins the auction (the only solver) and is told of the order, but does not fill: the order stays Deposited.
  solver = new TestSolver({
    url: h.service.url,
    apiKey: h.apiKey,
    privateKey: h.manifest.accounts.solvers[0]!.privateKey,
    chains: h.manifest.chains,
    autoFill: false,
  });
  await solver.start();
}, 60_000);

afterAll(async () => {
  for (const client of clients) await client.close();
  await solver?.stop();
  await h?.stop();
});

describe('open assignments on a solver connection', () => {
  it('are sent again when the solver connects again', async () => {
    const [alpha, beta] = h.manifest.chains;
    const taker = new TestTaker(h.manifest.accounts.takers[0]!.privateKey, h.rest, h.manifest.chains);
    const { created, response } = await taker.placeOrder({
      originChainId: alpha!.chainId,
      destinationChainId: beta!.chainId,
      inputToken: alpha!.tokens.find((t) => t.symbol === 'USDC')!.address as Address,
      outputToken: beta!.tokens.find((t) => t.symbol === 'USDC')!.address as Address,
      inputAmount: '20000000000',
      lockType: 'Permit2Escrow',
    });
    const quote = response.quotes[0]!;
    expect(created.status).toBe('Deposited');
    await eventually(() => solver.assigned.get(created.orderId), 10_000, 'the first order.assigned');

    // The solver comes back on a new connection (a restarted process knows nothing of the first message).
    const { wsToken, wsUrl } = await h.rest.rotateSolverToken(solver.solverId);
    const assigned: SolverOrderMessage[] = [];
    const client = await SolverStreamClient.connect({ url: wsUrl, token: wsToken });
    clients.push(client);
    client.onOrder((message) => assigned.push(message));
    const again = await eventually(
      () => assigned.find((message) => message.type === 'order.assigned' && message.orderId === created.orderId),
      10_000,
      'order.assigned on the new connection',
    );
    expect(again).toMatchObject({ orderId: created.orderId, quoteId: quote.quoteId });
  }, 60_000);
});
