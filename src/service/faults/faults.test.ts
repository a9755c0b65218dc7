import { type Address, createPublicClient, erc20Abi, http, keccak256 } from 'viem';
import { InputSettlerEscrowArtifact } from '../../contracts/artifacts/InputSettlerEscrow.js';
import { bytes32ToAddress, toAbiOrder } from '../../contracts/order.js';
import type { OrdersModule } from '../orders/module.js';
import { fillPayload } from '../settlement/transactions.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callApi, startSettlementHarness, type SettlementHarness } from '../../../test/support/settlement/harness.js';
import { TestTaker } from '../../../test/support/settlement/taker.js';
import { waitForStatus } from '../../../test/support/settlement/wait.js';
import { type ReferenceSolver, type ReferenceSolvers, startReferenceSolvers } from '../../solvers/index.js';
import type { EvidenceModule } from '../evidence/module.js';

/**
 * The fault switches against real chains and a real solver: what each relay and oracle fault does to an order, the
 * service's recovery, and the API's refusals. Service faults (503, slow) are checked over plain fetch.
 */
let h: SettlementHarness;
let solvers: ReferenceSolvers;
let solver: ReferenceSolver;

beforeAll(async () => {
  h = await startSettlementHarness();
  solvers = await startReferenceSolvers({
    manifest: { ...h.manifest, api: { url: h.service.url, wsUrl: h.service.wsUrl, workspaceId: h.workspaceId, apiKeys: [h.apiKey] } },
    count: 1,
    followFaults: true,
  });
  solver = solvers.solvers[0]!;
}, 60_000);

afterAll(async () => {
  await solvers?.stop();
  await h?.stop();
});

beforeEach(async () => {
  solver.setBehaviour({});
  await call('DELETE', '/api/v1/sandbox/faults');
  await call('POST', '/api/v1/sandbox/relays/release', {});
});

const AMOUNT = 11_000_000_000n;
const alpha = () => h.manifest.chains[0]!;
const beta = () => h.manifest.chains[1]!;
const usdcOf = (chain: { tokens: { symbol: string; address: string }[] }) =>
  chain.tokens.find((t) => t.symbol === 'USDC')!.address as Address;

const call = (method: string, path: string, body?: unknown) => callApi(h, method, path, body);

/** A quote for a Permit2 escrow order from alpha to beta, and the order body the taker signed for it. */
async function signedOrder(takerIndex: number) {
  const taker = new TestTaker(h.manifest.accounts.takers[takerIndex]!.privateKey, h.rest, h.manifest.chains);
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
  return {
    taker,
    expires: response.expires,
    body: { quoteId: quote.quoteId, signature: await taker.sign(quote.typedData), nonce: quote.nonce!, user: taker.address },
  };
}

/** The same, placed: POST /orders answered 201. */
async function order(takerIndex: number) {
  const { taker, expires, body } = await signedOrder(takerIndex);
  const created = await h.rest.createOrder(body);
  return { taker, orderId: created.orderId, expires };
}

const relaysOf = (orderId: string) =>
  h
    .settlement()
    .engine!.relays.forOrder(orderId)
    .map((relay) => [relay.kind, relay.status]);

const timeline = async (orderId: string) =>
  (
    await h.rest.request<{ timeline: { stage: string }[] }>('GET', `/api/v1/workspaces/${h.workspaceId}/settlements/${orderId}`)
  ).timeline.map((stage) => stage.stage);

const ledgerTypes = (orderId: string) =>
  h.service
    .module<EvidenceModule>('evidence')
    .ledger.forTrade(orderId)
    .map((entry) => entry.type);

describe('fault switches: relays and the oracle', () => {
  it('relay.hold keeps the attestation unsent until released; then the order settles, once', async () => {
    const set = await call('POST', '/api/v1/sandbox/faults', { kind: 'relay.hold', relay: 'attestation', count: 1 });
    expect(set.status, JSON.stringify(set.body)).toBe(201);
    expect(set.body).toMatchObject({ kind: 'relay.hold', relay: 'attestation', remaining: 1, fired: 0, active: true });

    const { orderId } = await order(0);
    await waitForStatus(h.rest, orderId, 'Filled');
    await h.settlement().engine!.idle();
    // A second of clock time more: still held, nothing sent.
    await h.clock.advance(60_000);
    await h.settlement().engine!.idle();
    expect((await h.rest.getOrder(orderId)).status).toBe('Filled');
    expect(relaysOf(orderId)).toEqual([
      ['open', 'mined'],
      ['oracle.submit', 'queued'],
    ]);
    expect(await timeline(orderId)).toEqual(['rfq', 'deposited', 'filled', 'fault.held']);
    expect((await call('GET', `/api/v1/sandbox/faults/${set.body.id}`)).body).toMatchObject({ fired: 1, remaining: 0, active: false });

    const released = await call('POST', '/api/v1/sandbox/relays/release', { orderId });
    expect(released.status).toBe(200);
    expect(released.body.released).toEqual([{ relayId: expect.any(Number), orderId, faultId: set.body.id }]);
    await waitForStatus(h.rest, orderId, 'Claimed');
    await h.settlement().engine!.idle();
    expect(relaysOf(orderId)).toEqual([
      ['open', 'mined'],
      ['oracle.submit', 'mined'],
      ['oracle.receive', 'mined'],
    ]);
    expect(await timeline(orderId)).toEqual(expect.arrayContaining(['fault.held', 'fault.released', 'attested', 'claimed']));
    expect(ledgerTypes(orderId)).toEqual(expect.arrayContaining(['fault.fired', 'fault.released']));
    // A second release finds nothing held.
    expect((await call('POST', '/api/v1/sandbox/relays/release', { orderId })).body.released).toEqual([]);
    expect(h.service.module<EvidenceModule>('evidence').ledger.verify()).toMatchObject({ ok: true });
  }, 60_000);

  it('a held relay stays held across a service restart, and a release after it sends it once', async () => {
    await call('POST', '/api/v1/sandbox/faults', { kind: 'relay.hold', relay: 'attestation', count: 1 });
    const { orderId } = await order(1);
    await waitForStatus(h.rest, orderId, 'Filled');
    await h.settlement().engine!.idle();
    expect(relaysOf(orderId)).toEqual([
      ['open', 'mined'],
      ['oracle.submit', 'queued'],
    ]);
    // The decision is stored with the relay: the restarted relayer finds it queued and still leaves it alone.
    await h.restart();
    await h.settlement().engine!.idle();
    await h.clock.advance(60_000);
    await h.settlement().engine!.idle();
    expect((await h.rest.getOrder(orderId)).status).toBe('Filled');
    expect(relaysOf(orderId)).toEqual([
      ['open', 'mined'],
      ['oracle.submit', 'queued'],
    ]);
    expect((await call('POST', '/api/v1/sandbox/relays/release', { orderId })).body.released).toHaveLength(1);
    await waitForStatus(h.rest, orderId, 'Claimed');
    expect(relaysOf(orderId)).toEqual([
      ['open', 'mined'],
      ['oracle.submit', 'mined'],
      ['oracle.receive', 'mined'],
    ]);
  }, 60_000);

  it('oracle.late attests after the delay of clock time, not before', async () => {
    const set = await call('POST', '/api/v1/sandbox/faults', { kind: 'oracle.late', delay: '10m', count: 1 });
    expect(set.status).toBe(201);
    const { orderId } = await order(1);
    await waitForStatus(h.rest, orderId, 'Filled');
    await h.settlement().engine!.idle();
    const queuedAt = h
      .settlement()
      .engine!.relays.forOrder(orderId)
      .find((relay) => relay.kind === 'oracle.submit')!.createdAt;
    await h.clock.advanceTo(queuedAt + 10 * 60_000 - 1_000);
    await h.settlement().engine!.idle();
    expect((await h.rest.getOrder(orderId)).status).toBe('Filled');
    await h.clock.advanceTo(queuedAt + 10 * 60_000);
    await waitForStatus(h.rest, orderId, 'Claimed');
    expect(await timeline(orderId)).toEqual(expect.arrayContaining(['fault.delayed', 'attested', 'claimed']));
  }, 60_000);

  it('oracle.withhold drops the attestation: the fill is never proven and the taker is refunded at expiry', async () => {
    const set = await call('POST', '/api/v1/sandbox/faults', { kind: 'oracle.withhold' });
    expect(set.status).toBe(201);
    const { taker, orderId, expires } = await order(2);
    const client = createPublicClient({ transport: http(alpha().rpcUrl) });
    const balance = () =>
      client.readContract({ address: usdcOf(alpha()), abi: erc20Abi, functionName: 'balanceOf', args: [taker.address] });
    const afterDeposit = await balance();
    await waitForStatus(h.rest, orderId, 'Filled');
    await h.settlement().engine!.idle();
    expect(relaysOf(orderId)).toEqual([
      ['open', 'mined'],
      ['oracle.submit', 'dropped'],
    ]);
    await h.clock.advanceTo((expires + 1) * 1_000);
    await waitForStatus(h.rest, orderId, 'Refunded');
    expect(await balance()).toBe(afterDeposit + AMOUNT);
    expect(await timeline(orderId)).toEqual(expect.arrayContaining(['fault.dropped', 'refunded']));
  }, 60_000);

  it('relay.hold on the deposit: POST /orders answers 503 deposit_held naming the order; released, it deposits and settles', async () => {
    await call('POST', '/api/v1/sandbox/faults', { kind: 'relay.hold', relay: 'deposit', count: 1 });
    const { body } = await signedOrder(0);
    const answer = await call('POST', '/api/v1/orders', body);
    expect(answer.status).toBe(503);
    expect(answer.body.error).toMatchObject({ type: 'maintenance', code: 'deposit_held' });
    const orderId = /ord_[0-9a-z]+/.exec(answer.body.error.message)![0];
    await h.settlement().engine!.idle();
    expect(relaysOf(orderId)).toEqual([['open', 'queued']]);
    expect((await call('POST', '/api/v1/sandbox/relays/release', { orderId })).body.released).toHaveLength(1);
    await waitForStatus(h.rest, orderId, 'Claimed');
    expect(relaysOf(orderId)[0]).toEqual(['open', 'mined']);
    expect(ledgerTypes(orderId)).toEqual(expect.arrayContaining(['fault.fired', 'fault.released']));
  }, 60_000);

  it('relay.drop on the deposit: the order is Rejected and the taker’s funds never move', async () => {
    await call('POST', '/api/v1/sandbox/faults', { kind: 'relay.drop', relay: 'deposit', count: 1 });
    const { taker, body } = await signedOrder(1);
    const client = createPublicClient({ transport: http(alpha().rpcUrl) });
    const balance = () =>
      client.readContract({ address: usdcOf(alpha()), abi: erc20Abi, functionName: 'balanceOf', args: [taker.address] });
    const before = await balance();
    const answer = await call('POST', '/api/v1/orders', body);
    expect([answer.status, answer.body.error?.code]).toEqual([503, 'deposit_held']);
    const orderId = /ord_[0-9a-z]+/.exec(answer.body.error.message)![0];
    await h.settlement().engine!.idle();
    expect(relaysOf(orderId)).toEqual([['open', 'dropped']]);
    // A rejected order is not an order to the API (as when a deposit reverts): 404, and Rejected in the store.
    expect(h.orders().orders.get(orderId)?.status).toBe('Rejected');
    expect((await call('GET', `/api/v1/orders/${orderId}`)).status).toBe(404);
    expect(await balance()).toBe(before);
  }, 60_000);

  it('a scoped switch acts only on its order; a cleared switch acts on nothing new', async () => {
    const first = await order(3);
    await waitForStatus(h.rest, first.orderId, 'Claimed');
    const other = await call('POST', '/api/v1/sandbox/faults', {
      kind: 'relay.hold',
      relay: 'attestation',
      scope: { orderId: first.orderId },
    });
    expect(other.status).toBe(201);
    const second = await order(4);
    await waitForStatus(h.rest, second.orderId, 'Claimed');
    expect((await call('GET', `/api/v1/sandbox/faults/${other.body.id}`)).body.fired).toBe(0);

    const all = await call('POST', '/api/v1/sandbox/faults', { kind: 'relay.hold', relay: 'attestation' });
    expect((await call('DELETE', `/api/v1/sandbox/faults/${all.body.id}`)).body).toEqual({ cleared: 1 });
    const third = await order(0);
    await waitForStatus(h.rest, third.orderId, 'Claimed');
    expect((await call('GET', `/api/v1/sandbox/faults/${all.body.id}`)).status).toBe(404);
  }, 60_000);
});

describe('fault switches: a lying oracle', () => {
  const orderRecord = (orderId: string) => h.service.module<OrdersModule>('orders').orders.get(orderId)!;
  const taker = (index: number) => h.manifest.accounts.takers[index]!.address as Address;
  const balanceOn = (chain: typeof alpha, holder: Address) =>
    createPublicClient({ transport: http(chain().rpcUrl) }).readContract({
      address: usdcOf(chain()),
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [holder],
    });

  it('oracle.wrong-amount: the record is 1 % short, the escrow refuses to pay the real fill against it, and the order refunds', async () => {
    const set = await call('POST', '/api/v1/sandbox/faults', { kind: 'oracle.wrong-amount', count: 1 });
    expect(set.status, JSON.stringify(set.body)).toBe(201);
    const { orderId, expires } = await order(3);
    await waitForStatus(h.rest, orderId, 'Filled');
    const engine = h.settlement().engine!;
    const started = Date.now();
    while (!relaysOf(orderId).some(([kind, status]) => kind === 'oracle.receive' && status === 'mined') && Date.now() - started < 10_000) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await engine.idle();
    const record = orderRecord(orderId);
    const facts = engine.facts.forOrder(record.onchainOrderId);
    const fill = facts.find((fact) => fact.kind === 'filled')!;
    const attested = facts.find((fact) => fact.kind === 'attested')!;
    expect(fill.kind === 'filled' && attested.kind === 'attested').toBe(true);
    const truthful = keccak256(fillPayload(fill as never, record.onchainOrderId, record.standardOrder.outputs[0]!));
    // The origin chain holds a record, but of another fill description than the one that happened.
    expect(attested.kind === 'attested' && attested.dataHash).not.toBe(truthful);
    expect((await h.rest.getOrder(orderId)).status).toBe('Filled');
    expect(await timeline(orderId)).toEqual(['rfq', 'deposited', 'filled', 'fault.oracle']);
    // Rejected on chain: the solver's claim with the real fill reverts.
    const origin = createPublicClient({ transport: http(alpha().rpcUrl) });
    const solveParams = fill.kind === 'filled' ? [{ timestamp: fill.timestamp, solver: fill.solver }] : [];
    await expect(
      origin.simulateContract({
        address: alpha().contracts.inputSettlerEscrow as Address,
        abi: InputSettlerEscrowArtifact.abi,
        functionName: 'finalise',
        args: [toAbiOrder(record.standardOrder), solveParams, solveParams[0]!.solver, '0x'],
        account: bytes32ToAddress(solveParams[0]!.solver),
      }),
    ).rejects.toThrow();
    const before = await balanceOn(alpha, taker(3));
    await h.clock.advanceTo((expires + 1) * 1_000);
    await waitForStatus(h.rest, orderId, 'Refunded');
    expect(await balanceOn(alpha, taker(3))).toBe(before + AMOUNT);
  }, 60_000);

  it('oracle.lie: a fill that never happened is recorded, the solver claims, the escrow pays it and the taker gets nothing', async () => {
    const lie = await call('POST', '/api/v1/sandbox/faults', { kind: 'oracle.lie', count: 1 });
    expect(lie.status, JSON.stringify(lie.body)).toBe(201);
    const never = await call('POST', '/api/v1/sandbox/faults', { kind: 'solver.never-fill', count: 1 });
    expect(never.status).toBe(201);
    await solver.refreshFaults();
    const inputBefore = await balanceOn(alpha, taker(3));
    const outputBefore = await balanceOn(beta, taker(3));
    const { orderId } = await order(3);
    await waitForStatus(h.rest, orderId, 'Claimed');
    const engine = h.settlement().engine!;
    await engine.idle();
    const facts = engine.facts.forOrder(orderRecord(orderId).onchainOrderId);
    expect(facts.filter((fact) => fact.kind === 'filled')).toEqual([]);
    expect(facts.filter((fact) => fact.kind === 'finalised')).toHaveLength(1);
    expect(await balanceOn(alpha, taker(3))).toBe(inputBefore - AMOUNT);
    expect(await balanceOn(beta, taker(3))).toBe(outputBefore);
    expect(await timeline(orderId)).toEqual(expect.arrayContaining(['fault.oracle', 'fault.solver', 'claimed']));
    expect(await timeline(orderId)).not.toContain('filled');
    expect(ledgerTypes(orderId).filter((type) => type === 'fault.fired')).toHaveLength(2);
    expect(h.service.module<EvidenceModule>('evidence').ledger.verify()).toMatchObject({ ok: true });
  }, 60_000);
});

describe('fault switches: chains', () => {
  it('chain.rpc-drop fails the deposit broadcast once: POST /orders answers 503, the relay is retried and lands once', async () => {
    const set = await call('POST', '/api/v1/sandbox/faults', {
      kind: 'chain.rpc-drop',
      chain: alpha().chainId,
      method: 'eth_sendRawTransactionSync',
      count: 1,
    });
    expect(set.status, JSON.stringify(set.body)).toBe(201);
    expect(set.body).toMatchObject({ chainId: alpha().chainId, method: 'eth_sendRawTransactionSync' });
    const { body } = await signedOrder(2);
    const answer = await call('POST', '/api/v1/orders', body);
    expect([answer.status, answer.body.error?.code]).toEqual([503, 'chain_unavailable']);
    const orderId = /ord_[0-9a-z]+/.exec(answer.body.error.message)![0];
    await waitForStatus(h.rest, orderId, 'Claimed');
    // One deposit, sent again after the dropped answer: the same signed transaction, mined once.
    expect(relaysOf(orderId).filter(([kind]) => kind === 'open')).toEqual([['open', 'mined']]);
    expect((await call('GET', `/api/v1/sandbox/faults/${set.body.id}`)).body).toMatchObject({ fired: 1, active: false });
    expect(ledgerTypes(set.body.id)).toEqual(['fault.set', 'fault.fired']);
  }, 60_000);

  it('a dropped pre-flight answers 503 chain_unavailable with nothing recorded; the same Idempotency-Key then runs again', async () => {
    // A deposit of this shape first, so that the next one's pre-flight is the simulation at the shape's gas limit
    // (`eth_call`; the first deposit of a shape is estimated, `eth_estimateGas`).
    await waitForStatus(h.rest, (await order(3)).orderId, 'Claimed');
    await call('POST', '/api/v1/sandbox/faults', { kind: 'chain.rpc-drop', chain: alpha().chainId, method: 'eth_call', count: 1 });
    const { body } = await signedOrder(4);
    const post = () =>
      fetch(`${h.service.url}/api/v1/orders`, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.apiKey}`, 'content-type': 'application/json', 'idempotency-key': 'preflight-drop-1' },
        body: JSON.stringify(body),
      });
    const first = await post();
    const refused = (await first.json()) as { error: { code: string; message: string } };
    expect([first.status, refused.error.code]).toEqual([503, 'chain_unavailable']);
    expect(refused.error.message).toContain('nothing was recorded');
    expect(refused.error.message).not.toMatch(/ord_/);
    const second = await post();
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    const created = (await second.json()) as { orderId: string };
    // Now the key holds the 201: a third try replays it.
    const third = await post();
    expect([third.status, third.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
    expect(((await third.json()) as { orderId: string }).orderId).toBe(created.orderId);
    await waitForStatus(h.rest, created.orderId, 'Claimed');
  }, 60_000);

  it('chain.rpc-slow delays the engine’s calls to one chain; the order still settles', async () => {
    // The engine's one HTTP call to the destination per order is the oracle leg's broadcast (fills arrive as logs).
    const set = await call('POST', '/api/v1/sandbox/faults', {
      kind: 'chain.rpc-slow',
      chain: beta().chainId,
      method: 'eth_sendRawTransactionSync',
      delay: '300ms',
      count: 1,
    });
    expect(set.status).toBe(201);
    const { orderId } = await order(3);
    const filled = await waitForStatus(h.rest, orderId, 'Filled');
    const started = performance.now();
    await waitForStatus(h.rest, orderId, 'Claimed');
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    expect(filled.status).toBe('Filled');
    expect((await call('GET', `/api/v1/sandbox/faults/${set.body.id}`)).body.fired).toBe(1);
  }, 60_000);

  it('a reorg that mines the fill again at another time keeps the order Filled (no reorged stage), proves the fill as it is now, and settles once', async () => {
    const hold = await call('POST', '/api/v1/sandbox/faults', { kind: 'relay.hold', relay: 'attestation', count: 1 });
    expect(hold.status).toBe(201);
    // anvil gives the blocks a reorg mines the time of the block they fork from. The replaced blocks start 5 s after
    // that one, so the fill mined again carries an earlier time: the fill the chain records is not the one first seen,
    // and a proof of the first one would prove nothing.
    const destination = createPublicClient({ transport: http(beta().rpcUrl) });
    await destination.request({ method: 'evm_mine', params: [] } as never);
    await destination.request({ method: 'evm_increaseTime', params: [5] } as never);
    await destination.request({ method: 'evm_mine', params: [] } as never);
    const from = await destination.getBlockNumber({ cacheTime: 0 });
    const { orderId } = await order(2);
    await waitForStatus(h.rest, orderId, 'Filled');
    const fillTx = (await h.rest.getOrder(orderId)).destinationTxHash as `0x${string}`;
    const before = await destination.getTransactionReceipt({ hash: fillTx });
    const firstTime = (await destination.getBlock({ blockHash: before.blockHash })).timestamp;
    const head = await destination.getBlockNumber({ cacheTime: 0 });
    // Every transaction of the replaced blocks is mined again, in order, in the first new block.
    const again: [unknown, number][] = [];
    for (let n = from; n <= head; n++) {
      const block = await destination.getBlock({ blockNumber: n });
      for (const hash of block.transactions)
        again.push([await destination.request({ method: 'eth_getRawTransactionByHash', params: [hash] } as never), 0]);
    }
    await destination.request({ method: 'anvil_reorg', params: [Number(head - from + 1n), again] } as never);
    const after = await destination.getTransactionReceipt({ hash: fillTx });
    expect(after.status).toBe('success');
    expect(after.blockHash).not.toBe(before.blockHash);
    expect((await destination.getBlock({ blockHash: after.blockHash })).timestamp).toBeLessThan(firstTime);
    await h.settlement().engine!.idle();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await h.settlement().engine!.idle();
    expect((await h.rest.getOrder(orderId)).status).toBe('Filled');
    expect(await timeline(orderId)).toEqual(['rfq', 'deposited', 'filled', 'fault.held']);
    await call('POST', '/api/v1/sandbox/relays/release', { orderId });
    await waitForStatus(h.rest, orderId, 'Claimed');
    // The held leg was rebuilt for the fill as mined again, so it landed at once: no proof of the vanished fill sent.
    const legs = h
      .settlement()
      .engine!.relays.forOrder(orderId)
      .filter((relay) => relay.kind === 'oracle.submit');
    expect(legs.map((relay) => relay.status)).toEqual(['mined']);
    expect(ledgerTypes(orderId).filter((type) => type === 'order.transition')).toHaveLength(3);
  }, 60_000);

  it('a reorg done outside the service (anvil_reorg) that takes a processed fill away sends the order back to Deposited; it refunds at expiry', async () => {
    // The attestation is held so the fill is processed but not carried to the origin chain yet.
    const hold = await call('POST', '/api/v1/sandbox/faults', { kind: 'relay.hold', relay: 'attestation', count: 1 });
    expect(hold.status).toBe(201);
    const { taker, orderId, expires } = await order(1);
    await waitForStatus(h.rest, orderId, 'Filled');
    const fillTx = (await h.rest.getOrder(orderId)).destinationTxHash as `0x${string}`;
    const destination = createPublicClient({ transport: http(beta().rpcUrl) });
    const fillBlock = (await destination.getTransactionReceipt({ hash: fillTx })).blockNumber;
    const head = await destination.getBlockNumber();
    // Anyone may reorganise a devnet chain: the service must notice from the heads alone.
    await destination.request({ method: 'anvil_reorg', params: [Number(head - fillBlock + 1n), []] } as never);
    await waitForStatus(h.rest, orderId, 'Deposited');
    expect(await destination.getTransactionReceipt({ hash: fillTx }).catch(() => null)).toBeNull();
    const stages = (
      await h.rest.request<{ timeline: { stage: string; txHash?: string }[] }>(
        'GET',
        `/api/v1/workspaces/${h.workspaceId}/settlements/${orderId}`,
      )
    ).timeline;
    expect(stages.map((stage) => stage.stage)).toEqual(['rfq', 'deposited', 'filled', 'fault.held', 'reorged']);
    expect(stages.at(-1)!.txHash).toBe(fillTx);
    expect((await h.rest.getOrder(orderId)).destinationTxHash ?? null).toBeNull();
    // Released, the held oracle leg finds no fill to prove: nothing reaches the origin chain, nothing is paid.
    await call('POST', '/api/v1/sandbox/relays/release', { orderId });
    await h.settlement().engine!.idle();
    const origin = createPublicClient({ transport: http(alpha().rpcUrl) });
    const balance = () =>
      origin.readContract({ address: usdcOf(alpha()), abi: erc20Abi, functionName: 'balanceOf', args: [taker.address] });
    const afterDeposit = await balance();
    await h.clock.advanceTo((expires + 1) * 1_000);
    await waitForStatus(h.rest, orderId, 'Refunded');
    expect(await balance()).toBe(afterDeposit + AMOUNT);
    expect(relaysOf(orderId).filter(([kind]) => kind === 'oracle.receive')).toEqual([]);
    const ledger = ledgerTypes(orderId);
    expect(ledger.filter((type) => type === 'order.transition')).toHaveLength(3);
    expect(h.service.module<EvidenceModule>('evidence').ledger.verify()).toMatchObject({ ok: true });
  }, 60_000);

  it('a reorg that takes a relayed attestation away: it is relayed again at once, from the nonce the chain has now', async () => {
    // No claim: the origin chain's last transaction of the order is the attestation the service relayed there.
    solver.setBehaviour({ claim: false });
    const { orderId } = await order(3);
    await waitForStatus(h.rest, orderId, 'Attested');
    const leg = h
      .settlement()
      .engine!.relays.forOrder(orderId)
      .find((relay) => relay.kind === 'oracle.receive' && relay.status === 'mined')!;
    const origin = createPublicClient({ transport: http(alpha().rpcUrl) });
    const landed = await origin.getTransactionReceipt({ hash: leg.txHash! });
    const sent = () => origin.getTransactionCount({ address: leg.account, blockTag: 'latest' });
    const before = await sent();
    const head = await origin.getBlockNumber({ cacheTime: 0 });
    const began = Date.now();
    // The blocks from the attestation's on are replaced by empty ones (what a node restarted from an older saved
    // state does too): the relayer's next nonce is one past what the chain has now.
    await origin.request({ method: 'anvil_reorg', params: [Number(head - landed.blockNumber + 1n), []] } as never);
    expect(await sent()).toBe(before - 1);
    // Signed past the gap, the attestation would wait in the pool for a nonce that never comes, until the send
    // timed out (15 s), and every later relay of that account with it.
    while ((await sent()) < before && Date.now() - began < 30_000) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await sent()).toBe(before);
    expect(Date.now() - began).toBeLessThan(8_000);
    await waitForStatus(h.rest, orderId, 'Attested');
    solver.setBehaviour({});
  }, 60_000);

  it('chain.halt stops the destination chain: the fill waits in its pool, its time stands still; when the halt ends the order settles', async () => {
    const destination = createPublicClient({ transport: http(beta().rpcUrl) });
    const set = await call('POST', '/api/v1/sandbox/faults', { kind: 'chain.halt', chain: beta().chainId, for: '1m' });
    expect(set.status, JSON.stringify(set.body)).toBe(201);
    expect(set.body).toMatchObject({ kind: 'chain.halt', chainId: beta().chainId, fired: 1, active: true });
    expect(await destination.request({ method: 'anvil_getAutomine' } as never)).toBe(false);
    const head = await destination.getBlock({ blockTag: 'latest' });
    const { orderId } = await order(0);
    // The solver has sent its fill; nothing is mined while the chain is halted.
    const started = Date.now();
    while (Date.now() - started < 5_000) {
      const pending = (await destination.request({ method: 'txpool_status' } as never)) as { pending: string };
      if (Number(pending.pending) > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(Number(((await destination.request({ method: 'txpool_status' } as never)) as { pending: string }).pending)).toBeGreaterThan(0);
    expect((await h.rest.getOrder(orderId)).status).toBe('Deposited');
    // Clock time passes, but not for the halted chain.
    await h.clock.advance(30_000);
    const stillHead = await destination.getBlock({ blockTag: 'latest' });
    expect([stillHead.number, stillHead.timestamp]).toEqual([head.number, head.timestamp]);
    expect((await h.rest.getOrder(orderId)).status).toBe('Deposited');
    // The halt's minute ends: the pool is mined and the order goes on.
    await h.clock.advance(31_000);
    await waitForStatus(h.rest, orderId, 'Claimed');
    expect(await destination.request({ method: 'anvil_getAutomine' } as never)).toBe(true);
    expect((await call('GET', `/api/v1/sandbox/faults/${set.body.id}`)).body).toMatchObject({ fired: 1, active: false });
    const entries = h.service
      .module<EvidenceModule>('evidence')
      .ledger.forTrade(set.body.id)
      .map((entry) => [entry.type, (entry.payload as { action?: string }).action ?? null]);
    expect(entries).toEqual([
      ['fault.set', null],
      ['fault.fired', 'halt'],
      ['fault.released', 'resume'],
    ]);
  }, 60_000);

  it('chain.restart is refused 409 by a service that does not run next to the sandbox’s chains', async () => {
    const refused = await call('POST', '/api/v1/sandbox/faults', { kind: 'chain.restart', chain: beta().chainId });
    expect([refused.status, refused.body.error?.code, refused.body.error?.param]).toEqual([409, 'chain_restart_unavailable', 'kind']);
    expect((await call('POST', '/api/v1/sandbox/faults', { kind: 'chain.restart' })).body.error).toMatchObject({ param: 'chain' });
    expect((await call('POST', '/api/v1/sandbox/faults', { kind: 'chain.restart', chain: beta().chainId, down: '2m' })).status).toBe(400);
  });

  it('service.restart is refused 409 by a service the sandbox does not run itself; nothing is set', async () => {
    const refused = await call('POST', '/api/v1/sandbox/faults', { kind: 'service.restart', down: '1s' });
    expect([refused.status, refused.body.error?.code, refused.body.error?.param]).toEqual([409, 'service_restart_unavailable', 'kind']);
    expect((await call('POST', '/api/v1/sandbox/faults', { kind: 'service.restart', down: '2m' })).status).toBe(400);
    const listed = (await call('GET', '/api/v1/sandbox/faults')).body as unknown as { data: { kind: string }[] };
    expect(listed.data.filter((fault) => fault.kind === 'service.restart')).toEqual([]);
  });

  it('chain.halt until cleared: DELETE resumes block production at once', async () => {
    const destination = createPublicClient({ transport: http(beta().rpcUrl) });
    const set = await call('POST', '/api/v1/sandbox/faults', { kind: 'chain.halt', chain: beta().chainId });
    expect(set.status).toBe(201);
    expect(await destination.request({ method: 'anvil_getAutomine' } as never)).toBe(false);
    expect((await call('DELETE', `/api/v1/sandbox/faults/${set.body.id}`)).status).toBe(200);
    expect(await destination.request({ method: 'anvil_getAutomine' } as never)).toBe(true);
    // A chain is required; count does not apply to a halt.
    expect((await call('POST', '/api/v1/sandbox/faults', { kind: 'chain.halt' })).body.error).toMatchObject({ param: 'chain' });
    expect((await call('POST', '/api/v1/sandbox/faults', { kind: 'chain.halt', chain: beta().chainId, count: 1 })).status).toBe(400);
  }, 30_000);

  it('chain.reorg takes the next processed fill away before the oracle carries it; the order refunds, the solver is not paid', async () => {
    const set = await call('POST', '/api/v1/sandbox/faults', { kind: 'chain.reorg', count: 1 });
    expect(set.status, JSON.stringify(set.body)).toBe(201);
    expect(set.body).toMatchObject({ kind: 'chain.reorg', depth: null, remaining: 1 });
    const { orderId, expires } = await order(2);
    // Filled lasts only until the new heads arrive: wait for the stage that says it was taken back.
    const started = Date.now();
    while (!(await timeline(orderId)).includes('reorged') && Date.now() - started < 15_000) await new Promise((r) => setTimeout(r, 50));
    await h.settlement().engine!.idle();
    expect((await h.rest.getOrder(orderId)).status).toBe('Deposited');
    expect(await timeline(orderId)).toEqual(['rfq', 'deposited', 'filled', 'fault.reorg', 'reorged']);
    expect((await call('GET', `/api/v1/sandbox/faults/${set.body.id}`)).body).toMatchObject({ fired: 1, active: false });
    await h.clock.advanceTo((expires + 1) * 1_000);
    await waitForStatus(h.rest, orderId, 'Refunded');
    expect(relaysOf(orderId).filter(([kind]) => kind === 'oracle.receive')).toEqual([]);
    expect(ledgerTypes(orderId)).toEqual(expect.arrayContaining(['fault.fired', 'order.transition']));
    // The next order is not touched: the switch is spent.
    const next = await order(0);
    await waitForStatus(h.rest, next.orderId, 'Claimed');
  }, 60_000);

  it('refuses chain faults the service cannot place', async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ kind: 'chain.rpc-drop', chain: 999 }, 'parameter_invalid', 'chain'],
      [{ kind: 'chain.rpc-slow' }, 'parameter_missing', 'delay'],
      [{ kind: 'chain.rpc-drop', method: 'not a method' }, 'parameter_invalid', 'method'],
      [{ kind: 'chain.rpc-drop', scope: { orderId: 'ord_x' } }, 'parameter_unknown', 'scope'],
      [{ kind: 'relay.hold', relay: 'refund', chain: alpha().chainId }, 'parameter_unknown', 'chain'],
    ];
    for (const [body, code, param] of cases) {
      const answer = await call('POST', '/api/v1/sandbox/faults', body);
      expect([answer.status, answer.body.error?.code, answer.body.error?.param], JSON.stringify(body)).toEqual([400, code, param]);
    }
  });
});

describe('fault switches: solvers', () => {
  it('solver.never-fill: the reference solver claims the firing, never fills, and the order refunds at expiry', async () => {
    const set = await call('POST', '/api/v1/sandbox/faults', { kind: 'solver.never-fill', scope: { solverId: solver.solverId }, count: 1 });
    expect(set.status, JSON.stringify(set.body)).toBe(201);
    await solver.refreshFaults();
    const { orderId, expires } = await order(0);
    await eventuallyFired(set.body.id, 1);
    await h.clock.advanceTo((expires + 1) * 1_000);
    await waitForStatus(h.rest, orderId, 'Refunded');
    expect(await timeline(orderId)).toEqual(['rfq', 'deposited', 'fault.solver', 'refunded']);
    expect(ledgerTypes(orderId)).toContain('fault.fired');
    // Spent: the next order is filled as usual.
    const next = await order(1);
    await waitForStatus(h.rest, next.orderId, 'Claimed');
  }, 60_000);

  it('solver.vanish: the winner drops its connection without filling; the order refunds at expiry and the solver comes back', async () => {
    const set = await call('POST', '/api/v1/sandbox/faults', { kind: 'solver.vanish', count: 1 });
    expect(set.status, JSON.stringify(set.body)).toBe(201);
    await solver.refreshFaults();
    const { orderId, expires } = await order(0);
    await eventuallyFired(set.body.id, 1);
    // Gone from the service's side too: its connection count for the solver falls to zero.
    const started = Date.now();
    let connections = -1;
    while (Date.now() - started < 2_000) {
      connections = (await call('GET', `/api/v1/solvers/${solver.solverId}`)).body.connections;
      if (connections === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(connections).toBe(0);
    await h.clock.advanceTo((expires + 1) * 1_000);
    await waitForStatus(h.rest, orderId, 'Refunded');
    expect(await timeline(orderId)).toEqual(['rfq', 'deposited', 'fault.solver', 'refunded']);
    // Back after its 3 s away; the next order it wins is filled.
    while (!solver.connected && Date.now() - started < 10_000) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(solver.connected).toBe(true);
    const next = await order(1);
    await waitForStatus(h.rest, next.orderId, 'Claimed');
  }, 60_000);

  it('solver.fill-short: a 90 % fill lands but is not the order’s output; the order refunds and the taker keeps both', async () => {
    const set = await call('POST', '/api/v1/sandbox/faults', { kind: 'solver.fill-short', count: 1 });
    await solver.refreshFaults();
    const taker = h.manifest.accounts.takers[2]!.address as Address;
    const destination = createPublicClient({ transport: http(beta().rpcUrl) });
    const received = () => destination.readContract({ address: usdcOf(beta()), abi: erc20Abi, functionName: 'balanceOf', args: [taker] });
    const before = await received();
    const { orderId, expires } = await order(2);
    await eventuallyFired(set.body.id, 1);
    // The short fill lands on the destination; the service does not count it as the order's fill.
    const started = Date.now();
    while ((await received()) === before && Date.now() - started < 10_000) await new Promise((resolve) => setTimeout(resolve, 50));
    const quoted = (await h.rest.getOrder(orderId)) as unknown as { outputAmount: string };
    // 90 % of what the order asked for, to the taker: a fill, but not this order's output.
    expect(await received()).toBe(before + (BigInt(quoted.outputAmount) * 9n) / 10n);
    await h.settlement().engine!.idle();
    expect((await h.rest.getOrder(orderId)).status).toBe('Deposited');
    await h.clock.advanceTo((expires + 1) * 1_000);
    await waitForStatus(h.rest, orderId, 'Refunded');
    expect(await timeline(orderId)).toEqual(['rfq', 'deposited', 'fault.solver', 'refunded']);
  }, 60_000);

  it('solver.fill-twice: the second fill reverts on chain; the order settles once', async () => {
    const set = await call('POST', '/api/v1/sandbox/faults', { kind: 'solver.fill-twice', count: 1 });
    await solver.refreshFaults();
    const refused: string[] = [];
    const off = solver.onEvent((event) => {
      if (event.type === 'skipped' && event.reason.startsWith('second fill refused')) refused.push(event.orderId);
    });
    const { orderId } = await order(3);
    await eventuallyFired(set.body.id, 1);
    await waitForStatus(h.rest, orderId, 'Claimed');
    off();
    expect(refused).toEqual([orderId]);
    expect(
      h.service
        .module<EvidenceModule>('evidence')
        .outbox.forOrder(orderId)
        .filter((e) => e.envelope.type === 'order.settled'),
    ).toHaveLength(1);
  }, 60_000);

  it('a firing is refused 409 fault_not_firing when spent, scoped to another solver, or not a solver fault', async () => {
    const other = await call('POST', '/api/v1/sandbox/faults', { kind: 'solver.decline', scope: { solverId: 'slv_someoneelse' } });
    const fire = (id: string, body: Record<string, unknown>) => call('POST', `/api/v1/sandbox/faults/${id}/firings`, body);
    expect((await fire(other.body.id, { solverId: solver.solverId })).body.error).toMatchObject({ code: 'fault_not_firing' });
    const once = await call('POST', '/api/v1/sandbox/faults', { kind: 'solver.silent', count: 1 });
    expect((await fire(once.body.id, { solverId: solver.solverId, rfqId: 'rfq_x' })).body).toEqual({
      faultId: once.body.id,
      fired: 1,
      remaining: 0,
    });
    expect((await fire(once.body.id, { solverId: solver.solverId })).status).toBe(409);
    const relay = await call('POST', '/api/v1/sandbox/faults', { kind: 'relay.hold', relay: 'refund' });
    expect((await fire(relay.body.id, { solverId: solver.solverId })).status).toBe(409);
    // An order no one has: 404 naming it (was a 500: the firing's stage named a missing order).
    const open = await call('POST', '/api/v1/sandbox/faults', { kind: 'solver.silent' });
    const unknownOrder = await fire(open.body.id, { solverId: solver.solverId, orderId: 'ord_0' });
    expect([unknownOrder.status, unknownOrder.body.error?.code, unknownOrder.body.error?.param]).toEqual([
      404,
      'resource_not_found',
      'orderId',
    ]);
    expect((await call('GET', `/api/v1/sandbox/faults/${open.body.id}`)).body.fired).toBe(0);
    await call('DELETE', `/api/v1/sandbox/faults/${open.body.id}`);
    expect((await fire(once.body.id, { solverId: 'not-an-id' })).body.error).toMatchObject({
      code: 'parameter_invalid',
      param: 'solverId',
    });
  });
});

async function eventuallyFired(faultId: string, fired: number): Promise<void> {
  const started = Date.now();
  while (Date.now() - started < 10_000) {
    if ((await call('GET', `/api/v1/sandbox/faults/${faultId}`)).body.fired === fired) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`fault ${faultId} did not fire ${fired} time(s)`);
}

describe('fault switches: service faults and the API', () => {
  it('service.maintenance answers 503 maintenance in the route’s format, for its count; the fault routes stay open', async () => {
    const set = await call('POST', '/api/v1/sandbox/faults', { kind: 'service.maintenance', route: 'GET /api/v1/corridors', count: 2 });
    expect(set.status).toBe(201);
    for (let i = 0; i < 2; i++) {
      const down = await call('GET', '/api/v1/corridors');
      expect(down.status).toBe(503);
      expect(down.body.error).toMatchObject({ type: 'maintenance', code: 'maintenance' });
      expect(down.body.error.message).toContain(set.body.id);
    }
    expect((await call('GET', '/api/v1/corridors')).status).toBe(200);
    // Other methods and routes were never touched.
    expect((await call('GET', '/api/v1/health')).status).toBe(200);

    // A maintenance switch on everything cannot lock the switches themselves away.
    const everything = await call('POST', '/api/v1/sandbox/faults', { kind: 'service.maintenance', route: '/api/' });
    expect(everything.status).toBe(201);
    expect((await call('GET', '/api/v1/health')).status).toBe(503);
    expect((await call('GET', '/api/v1/sandbox/faults')).status).toBe(200);
    expect((await call('DELETE', '/api/v1/sandbox/faults')).status).toBe(200);
    expect((await call('GET', '/api/v1/health')).status).toBe(200);
  });

  it('service.slow delays the answer by its wall-clock delay', async () => {
    await call('POST', '/api/v1/sandbox/faults', { kind: 'service.slow', route: 'GET /api/v1/corridors', delay: '400ms', count: 1 });
    const started = performance.now();
    expect((await call('GET', '/api/v1/corridors')).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(400);
  });

  it('refuses incomplete or contradictory switches, naming the parameter', async () => {
    const cases: Array<[Record<string, unknown>, number, string, string]> = [
      [{ kind: 'relay.hold' }, 400, 'parameter_missing', 'relay'],
      [{ kind: 'relay.delay', relay: 'refund' }, 400, 'parameter_missing', 'delay'],
      [{ kind: 'oracle.withhold', relay: 'refund' }, 400, 'parameter_unknown', 'relay'],
      [{ kind: 'service.maintenance' }, 400, 'parameter_missing', 'route'],
      [{ kind: 'service.slow', route: '/api/v1/quotes', delay: '2m' }, 400, 'parameter_invalid', 'delay'],
      [{ kind: 'service.slow', route: '/api/v1/quotes', delay: '61s' }, 400, 'parameter_invalid', 'delay'],
      [{ kind: 'service.maintenance', route: '/api/v1/quotes', scope: { corridor: 'x' } }, 400, 'parameter_unknown', 'scope.corridor'],
      [{ kind: 'relay.drop', relay: 'payout' }, 400, 'parameter_invalid', 'relay'],
      [{ kind: 'chain.melt' }, 400, 'parameter_invalid', 'kind'],
      [{ kind: 'relay.hold', relay: 'refund', count: 0 }, 400, 'parameter_invalid', 'count'],
      [{ kind: 'relay.delay', relay: 'refund', delay: 'soon' }, 400, 'parameter_invalid', 'delay'],
    ];
    for (const [body, status, code, param] of cases) {
      const answer = await call('POST', '/api/v1/sandbox/faults', body);
      expect([answer.status, answer.body.error?.code, answer.body.error?.param], JSON.stringify(body)).toEqual([status, code, param]);
    }
    expect((await call('GET', '/api/v1/sandbox/faults/flt_nothere')).status).toBe(404);
    expect((await call('DELETE', '/api/v1/sandbox/faults/flt_nothere')).status).toBe(404);
    const anonymous = await fetch(`${h.service.url}/api/v1/sandbox/faults`);
    expect(anonymous.status).toBe(401);
  });
});
