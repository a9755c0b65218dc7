import { type Address, type Hex, createPublicClient, decodeFunctionData, http } from 'viem';
import { OutputOracleArtifact } from '../../contracts/artifacts/OutputOracle.js';
import { Contract, Interface, JsonRpcProvider, keccak256 as ethersKeccak, zeroPadValue } from 'ethers';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { INPUT_ORACLE_ABI } from '../../../test/interop/upstream-oif.js';
import { callApi, startSettlementHarness, type SettlementHarness } from '../../../test/support/settlement/harness.js';
import { TestTaker } from '../../../test/support/settlement/taker.js';
import { waitForStatus } from '../../../test/support/settlement/wait.js';
import { type ReferenceSolvers, startReferenceSolvers } from '../../solvers/index.js';
import type { EvidenceModule } from '../evidence/module.js';
import type { RelayRecord } from './relay-repository.js';
import { fillPayload, oracleSubmitCalldata } from './transactions.js';

/**
 * Oracle legs queued together on one account go in one transaction (`submit` and `receiveAttestation` take a list
 * of payloads), and each leg is recorded as if it had gone alone. A fault switch holds the legs of several orders so
 * that they are queued together when it releases them.
 */
let h: SettlementHarness;
let solvers: ReferenceSolvers;

beforeAll(async () => {
  h = await startSettlementHarness();
  solvers = await startReferenceSolvers({
    manifest: { ...h.manifest, api: { url: h.service.url, wsUrl: h.service.wsUrl, workspaceId: h.workspaceId, apiKeys: [h.apiKey] } },
    count: 1,
  });
}, 60_000);

afterAll(async () => {
  await solvers?.stop();
  await h?.stop();
});

beforeEach(async () => {
  await call('DELETE', '/api/v1/sandbox/faults');
  await call('POST', '/api/v1/sandbox/relays/release', {});
});

const AMOUNT = 11_000_000_000n;
const alpha = () => h.manifest.chains[0]!;
const beta = () => h.manifest.chains[1]!;
const usdcOf = (chain: { tokens: { symbol: string; address: string }[] }) =>
  chain.tokens.find((t) => t.symbol === 'USDC')!.address as Address;

const call = (method: string, path: string, body?: unknown) => callApi(h, method, path, body);

async function order(takerIndex: number): Promise<string> {
  const taker = new TestTaker(h.manifest.accounts.takers[takerIndex]!.privateKey, h.rest, h.manifest.chains);
  const { created } = await taker.placeOrder({
    originChainId: alpha().chainId,
    destinationChainId: beta().chainId,
    inputToken: usdcOf(alpha()),
    outputToken: usdcOf(beta()),
    inputAmount: AMOUNT.toString(),
    lockType: 'Permit2Escrow',
    settlementPath: 'direct',
  });
  return created.orderId;
}

/** Places `count` orders whose oracle legs a fault switch holds, and waits until each is Filled and held. */
async function heldOrders(count: number): Promise<string[]> {
  const set = await call('POST', '/api/v1/sandbox/faults', { kind: 'relay.hold', relay: 'attestation', count });
  expect(set.status, JSON.stringify(set.body)).toBe(201);
  const orderIds: string[] = [];
  for (let i = 0; i < count; i++) {
    const orderId = await order(i);
    await waitForStatus(h.rest, orderId, 'Filled');
    orderIds.push(orderId);
  }
  await h.settlement().engine!.idle();
  for (const orderId of orderIds) expect(legs(orderId, 'oracle.submit').map((r) => r.status)).toEqual(['queued']);
  return orderIds;
}

const legs = (orderId: string, kind: RelayRecord['kind']) =>
  h
    .settlement()
    .engine!.relays.forOrder(orderId)
    .filter((relay) => relay.kind === kind);

const receiptOf = (chain: { rpcUrl: string }, hash: Hex) =>
  createPublicClient({ transport: http(chain.rpcUrl) }).getTransactionReceipt({ hash });

function assertSettledOnce(orderId: string): void {
  const evidence = h.service.module<EvidenceModule>('evidence');
  expect(evidence.outbox.forOrder(orderId).map((e) => e.envelope.type)).toEqual(['order.created', 'order.settled', 'compliance.event']);
}

describe('oracle legs share a transaction', () => {
  it('three legs released together go as one submit and one receiveAttestation; each order settles once', async () => {
    const orderIds = await heldOrders(3);
    const released = await call('POST', '/api/v1/sandbox/relays/release', {});
    expect(released.body.released).toHaveLength(3);
    for (const orderId of orderIds) await waitForStatus(h.rest, orderId, 'Claimed');
    await h.settlement().engine!.idle();

    for (const kind of ['oracle.submit', 'oracle.receive'] as const) {
      const relays = orderIds.map((orderId) => legs(orderId, kind));
      for (const relay of relays) expect(relay.map((r) => r.status)).toEqual(['mined']);
      const hashes = new Set(relays.map(([relay]) => relay!.txHash));
      expect(hashes.size, `${kind}: one transaction for the three legs`).toBe(1);
      const chain = kind === 'oracle.submit' ? beta() : alpha();
      const receipt = await receiptOf(chain, [...hashes][0]!);
      expect(receipt.status).toBe('success');
      // One event per payload: OutputAttested on the destination; OutputProven and AttestationRecorded on the origin.
      expect(receipt.logs).toHaveLength(kind === 'oracle.submit' ? 3 : 6);
      expect(new Set(relays.map(([relay]) => relay!.nonce)).size).toBe(1);
    }
    // Read as an outside OIF client would (ethers, upstream's human-readable ABI): the shared submit carried the three
    // fill descriptions, and the origin's input oracle holds each of them as proven.
    const [submit] = legs(orderIds[0]!, 'oracle.submit');
    const destination = new JsonRpcProvider(beta().rpcUrl);
    const origin = new JsonRpcProvider(alpha().rpcUrl);
    try {
      const sent = await destination.getTransaction(submit!.txHash!);
      const parsed = new Interface(['function submit(address proofSource, bytes[] payloads)']).parseTransaction({ data: sent!.data });
      const payloads = parsed!.args[1] as string[];
      expect(payloads).toHaveLength(3);
      const inputOracle = new Contract(alpha().contracts.InputOracle!, INPUT_ORACLE_ABI, origin);
      for (const payload of payloads) {
        const proven = await inputOracle.isProven!(
          beta().chainId,
          zeroPadValue(beta().contracts.OutputOracle!, 32),
          zeroPadValue(beta().contracts.OutputSettler!, 32),
          ethersKeccak(payload),
        );
        expect(proven).toBe(true);
      }
    } finally {
      destination.destroy();
      origin.destroy();
    }
    for (const orderId of orderIds) assertSettledOnce(orderId);
    expect(h.service.module<EvidenceModule>('evidence').ledger.verify()).toMatchObject({ ok: true });
  }, 90_000);

  it('a batch the oracle refuses (one leg proves a fill that never happened) is sent again leg by leg: the honest leg lands, the false one reverts alone and is asked for again', async () => {
    const [honest, tampered] = await heldOrders(2);
    const engine = h.settlement().engine!;
    const record = h.orders().orders.get(tampered!)!;
    const output = record.standardOrder.outputs[0]!;
    const fake = fillPayload({ solver: `0x${'ab'.repeat(32)}`, timestamp: 1 }, record.onchainOrderId, output);
    const [queued] = legs(tampered!, 'oracle.submit');
    h.service.store.transaction(() => engine.relays.replaceData(queued!.id, oracleSubmitCalldata(output, fake).data, Date.now()));

    await call('POST', '/api/v1/sandbox/relays/release', {});
    await waitForStatus(h.rest, honest!, 'Claimed');
    await waitForStatus(h.rest, tampered!, 'Claimed');
    await engine.idle();

    const [honestSubmit] = legs(honest!, 'oracle.submit');
    const tamperedSubmits = legs(tampered!, 'oracle.submit');
    expect(honestSubmit!.status).toBe('mined');
    // The false leg reverted on its own (its own transaction, not the honest one's), and its second attempt carried
    // the fill the settler recorded.
    expect(tamperedSubmits.map((r) => [r.key.includes('#'), r.status])).toEqual([
      [false, 'reverted'],
      [true, 'mined'],
    ]);
    expect(tamperedSubmits[0]!.txHash).not.toBe(honestSubmit!.txHash);
    // The transaction that carried both legs was mined and reverted, from the nonce just before the first single one.
    const client = createPublicClient({ transport: http(beta().rpcUrl) });
    const batchNonce = Math.min(honestSubmit!.nonce!, tamperedSubmits[0]!.nonce!) - 1;
    const from = Number(honestSubmit!.blockNumber) - 4;
    let batch: { hash: Hex; input: Hex } | undefined;
    for (let n = Math.max(0, from); n <= Number(honestSubmit!.blockNumber); n++) {
      const block = await client.getBlock({ blockNumber: BigInt(n), includeTransactions: true });
      batch ??= block.transactions.find((tx) => tx.from.toLowerCase() === honestSubmit!.account.toLowerCase() && tx.nonce === batchNonce);
    }
    expect(batch, 'the shared transaction').toBeDefined();
    expect((await receiptOf(beta(), batch!.hash)).status).toBe('reverted');
    const { args } = decodeFunctionData({ abi: OutputOracleArtifact.abi, data: batch!.input });
    expect(args[1]).toHaveLength(2);
    for (const orderId of [honest!, tampered!]) assertSettledOnce(orderId);
    expect(h.service.module<EvidenceModule>('evidence').ledger.verify()).toMatchObject({ ok: true });
  }, 90_000);
});
