import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Address, createPublicClient, http } from 'viem';
import type { OrderStatus } from '../../clients/rest-client.js';
import type { EvidenceModule } from '../evidence/module.js';
import { startSettlementHarness, type SettlementHarness } from '../../../test/support/settlement/harness.js';
import { type ReferenceSolver, type ReferenceSolvers, type SolverEvent, startReferenceSolvers } from '../../solvers/index.js';
import type { ChainFact } from './chain-facts.js';
import { TestTaker } from '../../../test/support/settlement/taker.js';
import { eventually, waitForStatus } from '../../../test/support/settlement/wait.js';

/**
 * The service is stopped between steps and a new one starts on the same SQLite file and the same chains: every
 * order still reaches its terminal state, exactly once (one terminal event, one terminal ledger transition, one
 * deposit on chain).
 */
let h: SettlementHarness;
let solvers: ReferenceSolvers;
let solver: ReferenceSolver;
const events: SolverEvent[] = [];

beforeAll(async () => {
  h = await startSettlementHarness();
  solvers = await startReferenceSolvers({
    manifest: { ...h.manifest, api: { url: h.service.url, wsUrl: h.service.wsUrl, workspaceId: h.workspaceId, apiKeys: [h.apiKey] } },
    count: 1,
  });
  solver = solvers.solvers[0]!;
  solver.onEvent((event) => events.push(event));
}, 60_000);

afterAll(async () => {
  await solvers?.stop();
  await h?.stop();
});

beforeEach(() => solver.setBehaviour({}));

const saw = (type: SolverEvent['type'], orderId: string) => () =>
  events.find((e) => e.type === type && 'orderId' in e && e.orderId === orderId);

const AMOUNT = 11_000_000_000n;
let takerIndex = 0;
const alpha = () => h.manifest.chains[0]!;
const beta = () => h.manifest.chains[1]!;
const usdcOf = (chain: { tokens: { symbol: string; address: string }[] }) =>
  chain.tokens.find((t) => t.symbol === 'USDC')!.address as Address;

async function signedOrder() {
  const taker = new TestTaker(h.manifest.accounts.takers[takerIndex++ % 5]!.privateKey, h.rest, h.manifest.chains);
  const response = await taker.quote({
    originChainId: alpha().chainId,
    destinationChainId: beta().chainId,
    inputToken: usdcOf(alpha()),
    outputToken: usdcOf(beta()),
    inputAmount: AMOUNT.toString(),
    lockType: 'Permit2Escrow',
    settlementPath: 'direct',
  });
  const quote = response.quotes[0]!;
  const body = { quoteId: quote.quoteId, signature: await taker.sign(quote.typedData), nonce: quote.nonce!, user: taker.address };
  return { body, expires: response.expires };
}

/** The order and its fill record as the service knows them (what `order.attested` tells the solver). */
function claimInputs(orderId: string) {
  const stored = h.orders().orders.get(orderId)!;
  const fill = h
    .settlement()
    .engine!.facts.forOrder(stored.onchainOrderId)
    .find((f): f is Extract<ChainFact, { kind: 'filled' }> => f.kind === 'filled')!;
  return { order: stored.standardOrder, solveParams: [{ timestamp: fill.timestamp, solver: fill.solver }] };
}

function assertExactlyOnce(orderId: string, terminal: Extract<OrderStatus, 'Claimed' | 'Refunded'>): void {
  const evidence = h.service.module<EvidenceModule>('evidence');
  const events = evidence.outbox.forOrder(orderId).map((e) => e.envelope.type);
  const last = terminal === 'Claimed' ? 'order.settled' : 'order.failed';
  expect(events).toEqual(['order.created', last, 'compliance.event']);
  const transitions = evidence.ledger
    .forTrade(orderId)
    .filter((e) => e.type === 'order.transition')
    .map((e) => e.payload.to);
  expect(transitions.filter((to) => to === terminal)).toHaveLength(1);
  expect(new Set(transitions).size).toBe(transitions.length);
  const engine = h.settlement().engine!;
  expect(engine.relays.forOrder(orderId).filter((r) => r.kind === 'open')).toHaveLength(1);
  const order = h.orders().orders.get(orderId)!;
  const opens = h.service.store.db
    .prepare("SELECT COUNT(*) AS n FROM processed_logs WHERE kind = 'opened' AND onchain_order_id = ?")
    .get(order.onchainOrderId.toLowerCase()) as {
    n: number;
  };
  expect(opens.n).toBe(1);
  expect(evidence.ledger.verify().ok).toBe(true);
}

describe('restarts between steps', () => {
  it('stopped after Deposited; the solver fills while it is down; the new service catches up and settles', async () => {
    solver.setBehaviour({ fillDelayMs: 400 });
    const { body } = await signedOrder();
    const created = await h.rest.createOrder(body);
    await h.stopService();
    await eventually(saw('filled', created.orderId), 5_000, 'the fill while the service is down');
    await h.startService();
    await waitForStatus(h.rest, created.orderId, 'Claimed', 20_000);
    assertExactlyOnce(created.orderId, 'Claimed');
  }, 30_000);

  it('stopped after Attested; the solver claims while it is down; Finalised is read on restart', async () => {
    solver.setBehaviour({ claim: false });
    const { body } = await signedOrder();
    const created = await h.rest.createOrder(body);
    await waitForStatus(h.rest, created.orderId, 'Attested');
    const stored = claimInputs(created.orderId);
    await h.stopService();
    expect(await solver.wallet.finalise(stored.order, 'Permit2Escrow', stored.solveParams)).toMatch(/^0x[0-9a-f]{64}$/);
    await h.startService();
    await waitForStatus(h.rest, created.orderId, 'Claimed');
    assertExactlyOnce(created.orderId, 'Claimed');
  }, 30_000);

  it('stopped before expiry; the chains pass expires while it is down; the keeper is re-scheduled from the store', async () => {
    solver.setBehaviour({ fill: 'never' });
    const { body, expires } = await signedOrder();
    const created = await h.rest.createOrder(body);
    await h.stopService();
    const chainNow = Math.max(...(await h.sandbox.chainTime()).map((c) => c.timestamp));
    await h.sandbox.advanceTime(expires + 2 - chainNow);
    await h.startService();
    await waitForStatus(h.rest, created.orderId, 'Refunded');
    assertExactlyOnce(created.orderId, 'Refunded');
  }, 30_000);

  it('restarted again and again while orders settle: each reaches Claimed exactly once', async () => {
    const orders = await Promise.all([signedOrder(), signedOrder(), signedOrder()]);
    const created = [];
    for (const { body } of orders) created.push(await h.rest.createOrder(body));
    for (let i = 0; i < 4; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5 + i * 7));
      await h.restart();
    }
    for (const order of created) {
      await waitForStatus(h.rest, order.orderId, 'Claimed', 20_000);
      assertExactlyOnce(order.orderId, 'Claimed');
    }
  }, 60_000);

  it('stopped while its deposit is signed and recorded but not mined: the new service finds it on chain', async () => {
    const rpc = createPublicClient({ transport: http(alpha().rpcUrl) });
    const { body } = await signedOrder();
    await rpc.request({ method: 'evm_setAutomine' as 'eth_chainId', params: [false] as unknown as undefined });
    const answer = h.rest.createOrder(body).catch((error: Error) => error);
    const relay = await eventually(
      () =>
        h.service.store.db.prepare("SELECT order_id, tx_hash FROM relays WHERE kind = 'open' AND status = 'sent'").get() as
          | { order_id: string; tx_hash: string }
          | undefined,
      5_000,
      'the signed deposit to be recorded',
    );
    await h.stopService();
    await rpc.request({ method: 'evm_setAutomine' as 'eth_chainId', params: [true] as unknown as undefined });
    await rpc.request({ method: 'evm_mine' as 'eth_chainId' });
    expect((await answer) instanceof Error).toBe(true);
    await h.startService();
    const detail = await waitForStatus(h.rest, relay.order_id, 'Claimed');
    expect(detail.originTxHash).toBe(relay.tx_hash);
    assertExactlyOnce(relay.order_id, 'Claimed');
  }, 30_000);

  it('stopped while its deposit is signed and recorded but never reached the chain: it is sent once, as recorded', async () => {
    const rpc = createPublicClient({ transport: http(alpha().rpcUrl) });
    const { body } = await signedOrder();
    await rpc.request({ method: 'evm_setAutomine' as 'eth_chainId', params: [false] as unknown as undefined });
    const answer = h.rest.createOrder(body).catch((error: Error) => error);
    const relay = await eventually(
      () =>
        h.service.store.db.prepare("SELECT order_id, tx_hash FROM relays WHERE kind = 'open' AND status = 'sent'").get() as
          | { order_id: string; tx_hash: string }
          | undefined,
      5_000,
      'the signed deposit to be recorded',
    );
    await h.stopService();
    // The crash lost the transaction before any block took it.
    await rpc.request({ method: 'anvil_dropAllTransactions' as 'eth_chainId' });
    await rpc.request({ method: 'evm_setAutomine' as 'eth_chainId', params: [true] as unknown as undefined });
    expect((await answer) instanceof Error).toBe(true);
    await h.startService();
    const detail = await waitForStatus(h.rest, relay.order_id, 'Claimed');
    expect(detail.originTxHash).toBe(relay.tx_hash);
    assertExactlyOnce(relay.order_id, 'Claimed');
  }, 30_000);
});
