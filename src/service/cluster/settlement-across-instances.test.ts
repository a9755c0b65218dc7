import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { RestClient } from '../../clients/rest-client.js';
import { TestClock } from '../../clock/index.js';
import { type ReferenceSolver, type ReferenceSolvers, type SolverEvent, startReferenceSolvers } from '../../solvers/index.js';
import { type SharedDatabase, sharedDatabase } from '../../../test/support/service/instances.js';
import { type SettlementHarness, startSettlementHarness } from '../../../test/support/settlement/harness.js';
import { TestTaker } from '../../../test/support/settlement/taker.js';
import { eventually, waitForStatus } from '../../../test/support/settlement/wait.js';
import { createService, type Service } from '../app.js';
import type { EvidenceModule } from '../evidence/module.js';
import type { OrdersModule } from '../orders/module.js';
import type { ChainFact } from '../settlement/chain-facts.js';
import type { SettlementModule } from '../settlement/module.js';

/**
 * Two service instances on one Postgres store and the same real chains. Instance A holds the singleton work (it
 * signs every relay); orders sent to instance B are recorded there and their deposits sent by A. When A stops, B
 * takes the work over and settles what A left, from the store and the chains.
 */
let db: SharedDatabase;
let h: SettlementHarness;
let b: Service;
let solvers: ReferenceSolvers;
let solver: ReferenceSolver;
const events: SolverEvent[] = [];

const AMOUNT = 11_000_000_000n;
let takerIndex = 0;

beforeAll(async () => {
  db = await sharedDatabase();
  const shared = { databaseUrl: db.url, databaseSchema: db.schema, leasePollMs: 200 };
  h = await startSettlementHarness({ service: shared });
  b = await createService({
    environment: 'sandbox',
    chains: h.manifest.chains,
    clock: new TestClock({ ticking: true, start: h.clock.now() }),
    logger: { level: process.env.SETTLEMENT_LOG ?? 'silent' },
    settlement: {
      serviceRelayer: { privateKey: h.manifest.accounts.serviceRelayer[0]!.privateKey },
      oracleRelayer: { privateKey: h.manifest.accounts.oracleRelayer[0]!.privateKey },
    },
    ...shared,
  });
  solvers = await startReferenceSolvers({
    manifest: { ...h.manifest, api: { url: h.service.url, wsUrl: h.service.wsUrl, workspaceId: h.workspaceId, apiKeys: [h.apiKey] } },
    count: 1,
  });
  solver = solvers.solvers[0]!;
  solver.onEvent((event) => events.push(event));
}, 90_000);

afterAll(async () => {
  await solvers?.stop();
  await b?.stop();
  await h?.stop();
  await db?.release();
});

const restOf = (service: Service) => new RestClient({ baseUrl: service.url, apiKey: h.apiKey });
const usdcOf = (chain: { tokens: { symbol: string; address: string }[] }) =>
  chain.tokens.find((t) => t.symbol === 'USDC')!.address as Address;

/** A quote from instance A (the solver is connected there), signed by a taker. */
async function signedOrder() {
  const [alpha, beta] = h.manifest.chains as [(typeof h.manifest.chains)[0], (typeof h.manifest.chains)[0]];
  const taker = new TestTaker(h.manifest.accounts.takers[takerIndex++ % 5]!.privateKey, restOf(h.service), h.manifest.chains);
  const response = await taker.quote({
    originChainId: alpha.chainId,
    destinationChainId: beta.chainId,
    inputToken: usdcOf(alpha),
    outputToken: usdcOf(beta),
    inputAmount: AMOUNT.toString(),
    lockType: 'Permit2Escrow',
    settlementPath: 'direct',
  });
  const quote = response.quotes[0]!;
  return { quoteId: quote.quoteId, signature: await taker.sign(quote.typedData), nonce: quote.nonce!, user: taker.address };
}

function assertSettledOnce(service: Service, orderId: string): void {
  const evidence = service.module<EvidenceModule>('evidence');
  expect(evidence.outbox.forOrder(orderId).map((e) => e.envelope.type)).toEqual(['order.created', 'order.settled', 'compliance.event']);
  const engine = service.module<SettlementModule>('settlement').engine!;
  expect(engine.relays.forOrder(orderId).filter((r) => r.kind === 'open')).toHaveLength(1);
  expect(evidence.ledger.verify().ok).toBe(true);
}

describe('settlement across instances', () => {
  it('an order sent to the instance without the singleton work: its deposit is signed by the holder, it settles', async () => {
    expect(h.service.instance.singleton).toBe(true);
    expect(b.instance.singleton).toBe(false);
    const created = await restOf(b).createOrder(await signedOrder());
    // The answer of instance B is the deposit's outcome, which instance A sent.
    expect(created.status).toBe('Deposited');
    await waitForStatus(restOf(b), created.orderId, 'Claimed', 20_000);
    assertSettledOnce(b, created.orderId);
  }, 40_000);

  it('the holder stops mid-flight: the other instance takes the work over and settles what it left', async () => {
    solver.setBehaviour({ claim: false, fillDelayMs: 300 });
    const created = await restOf(b).createOrder(await signedOrder());
    expect(created.status).toBe('Deposited');
    await h.stopService();
    await eventually(() => b.instance.singleton || undefined, 5_000, 'instance B to take the singleton work over');
    // The solver filled while A went away; B's watchers catch up and its oracle relayer carries the fill.
    await eventually(() => events.find((e) => e.type === 'filled' && 'orderId' in e && e.orderId === created.orderId), 10_000, 'the fill');
    await waitForStatus(restOf(b), created.orderId, 'Attested', 20_000);
    const stored = b.module<OrdersModule>('orders').orders.get(created.orderId)!;
    const fill = b
      .module<SettlementModule>('settlement')
      .engine!.facts.forOrder(stored.onchainOrderId)
      .find((f): f is Extract<ChainFact, { kind: 'filled' }> => f.kind === 'filled')!;
    await solver.wallet.finalise(stored.standardOrder, 'Permit2Escrow', [{ timestamp: fill.timestamp, solver: fill.solver }]);
    await waitForStatus(restOf(b), created.orderId, 'Claimed', 20_000);
    assertSettledOnce(b, created.orderId);
  }, 60_000);
});
