import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Address, createPublicClient, encodeFunctionData, erc20Abi, http } from 'viem';
import type { LockType } from '../../clients/rest-client.js';
import { ResourceLockArtifact } from '../../contracts/artifacts/ResourceLock.js';
import { lockId } from '../../contracts/typed-data.js';
import type { EvidenceModule } from '../evidence/module.js';
import { compactLockTag } from '../../contracts/standard-order.js';
import { startSettlementHarness, type SettlementHarness } from '../../../test/support/settlement/harness.js';
import {
  type ReferenceSolver,
  type ReferenceSolvers,
  type SolverEvent,
  startReferenceSolvers,
  TransactionRevertedError,
} from '../../solvers/index.js';
import type { ChainFact } from './chain-facts.js';
import { SerialSender } from '../../../test/support/settlement/serial-sender.js';
import { TestTaker } from '../../../test/support/settlement/taker.js';
import { eventually, waitForStatus } from '../../../test/support/settlement/wait.js';

/**
 * Refunds by the keeper at `expires + 1 s` of the service clock, and the races a refund must win. One reference
 * solver, scripted per test (never fill, fill late, do not claim).
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

const AMOUNT = 12_000_000_000n;
const alpha = () => h.manifest.chains[0]!;
const beta = () => h.manifest.chains[1]!;
const usdcOf = (chain: { tokens: { symbol: string; address: string }[] }) =>
  chain.tokens.find((t) => t.symbol === 'USDC')!.address as Address;
const client = () => createPublicClient({ transport: http(alpha().rpcUrl) });

async function inputBalance(owner: Address): Promise<bigint> {
  return client().readContract({ address: usdcOf(alpha()), abi: erc20Abi, functionName: 'balanceOf', args: [owner] });
}

async function order(taker: TestTaker, lockType: LockType) {
  if (lockType === 'ResourceLock') await taker.depositToLock(alpha().chainId, usdcOf(alpha()), AMOUNT);
  const { created, response } = await taker.placeOrder({
    originChainId: alpha().chainId,
    destinationChainId: beta().chainId,
    inputToken: usdcOf(alpha()),
    outputToken: usdcOf(beta()),
    inputAmount: AMOUNT.toString(),
    lockType,
    settlementPath: 'direct',
  });
  await eventually(saw('assigned', created.orderId), 5_000, 'assignment');
  return { created, fillDeadline: response.fillDeadline, expires: response.expires };
}

function eventsOf(orderId: string): string[] {
  return h.service
    .module<EvidenceModule>('evidence')
    .outbox.forOrder(orderId)
    .map((e) => e.envelope.type);
}

describe('refunds', () => {
  it.each<LockType>(['Permit2Escrow', 'EIP3009Escrow'])(
    '%s: the keeper refunds at expires + 1 s by the clock, not a second earlier',
    async (lockType) => {
      solver.setBehaviour({ fill: 'never' });
      const taker = new TestTaker(h.manifest.accounts.takers[lockType === 'Permit2Escrow' ? 0 : 1]!.privateKey, h.rest, h.manifest.chains);
      const before = await inputBalance(taker.address);
      const { created, expires } = await order(taker, lockType);
      expect(await inputBalance(taker.address)).toBe(before - AMOUNT);

      await h.clock.advanceTo(expires * 1_000 + 999);
      await h.settlement().engine!.idle();
      // The harness clock ticks on with wall time, so on a loaded machine it can pass expires + 1 s before the order
      // is read: what must hold is that no refund was asked for before then, and that the order is still Deposited
      // if the clock has not got there by the end of the read.
      const due = (expires + 1) * 1_000;
      const status = (await h.rest.getOrder(created.orderId)).status;
      if (h.clock.now() < due) expect(status).toBe('Deposited');
      const early = h
        .settlement()
        .engine!.relays.forOrder(created.orderId)
        .filter((r) => r.kind === 'refund' && r.createdAt < due);
      expect(early).toEqual([]);

      await h.clock.advanceTo((expires + 1) * 1_000);
      const refunded = await waitForStatus(h.rest, created.orderId, 'Refunded');
      // Sent once, when the chain's next block was past expires: no refund reverted for being early.
      expect(
        h
          .settlement()
          .engine!.relays.forOrder(created.orderId)
          .map((r) => [r.kind, r.status]),
      ).toEqual([
        ['open', 'mined'],
        ['refund', 'mined'],
      ]);
      expect(refunded.refundTxHash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(await inputBalance(taker.address)).toBe(before);
      expect(eventsOf(created.orderId)).toEqual(['order.created', 'order.failed', 'compliance.event']);
      const failed = h.service.module<EvidenceModule>('evidence').outbox.forOrder(created.orderId)[1]!.envelope;
      expect(failed).toMatchObject({
        order: { id: created.orderId, status: 'failed', reason: 'fill_deadline_expired', refundTxHash: refunded.refundTxHash },
      });
      await eventually(saw('refunded', created.orderId), 5_000, 'order.refunded at the solver');

      const settlement = await h.rest.request<{ state: string; timeline: { stage: string; txHash?: string }[] }>(
        'GET',
        `/api/v1/workspaces/${h.workspaceId}/settlements/${created.orderId}`,
      );
      expect(settlement.state).toBe('Refunded');
      expect(settlement.timeline.map((s) => s.stage)).toEqual(['rfq', 'deposited', 'refunded']);
      expect(settlement.timeline[2]!.txHash).toBe(refunded.refundTxHash);
    },
    30_000,
  );

  it('ResourceLock: an unclaimed compact is Refunded at expiry without a transaction; the taker withdraws by force', async () => {
    solver.setBehaviour({ fill: 'never' });
    const taker = new TestTaker(h.manifest.accounts.takers[2]!.privateKey, h.rest, h.manifest.chains);
    const { created, expires } = await order(taker, 'ResourceLock');
    await h.clock.advanceTo((expires + 1) * 1_000);
    const refunded = await waitForStatus(h.rest, created.orderId, 'Refunded');
    // Nothing is sent for a resource lock: the compact simply can no longer be claimed.
    expect(h.settlement().engine!.relays.forOrder(created.orderId)).toEqual([]);
    expect(refunded.refundTxHash).toBeNull();
    expect(eventsOf(created.orderId)).toEqual(['order.created', 'order.failed', 'compliance.event']);

    // The documented way out: enable forced withdrawal, wait the lock's reset period (10 min), withdraw.
    const id = lockId(compactLockTag(alpha().contracts.AlwaysOkAllocator!), usdcOf(alpha()));
    const sender = new SerialSender(taker.privateKey, alpha().chainId, alpha().rpcUrl);
    const lock = alpha().contracts.ResourceLock!;
    const held = await client().readContract({
      address: lock,
      abi: ResourceLockArtifact.abi,
      functionName: 'balanceOf',
      args: [taker.address, id],
    });
    expect(held).toBeGreaterThanOrEqual(AMOUNT);
    const before = await inputBalance(taker.address);
    expect(
      (await sender.send(lock, encodeFunctionData({ abi: ResourceLockArtifact.abi, functionName: 'enableForcedWithdrawal', args: [id] })))
        .status,
    ).toBe('success');
    // The reset period is 600 s; chains trail the clock by up to a second.
    await h.clock.advance(602_000);
    const withdrawal = await sender.send(
      lock,
      encodeFunctionData({ abi: ResourceLockArtifact.abi, functionName: 'forcedWithdrawal', args: [id, taker.address, held] }),
    );
    expect(withdrawal.status).toBe('success');
    expect(await inputBalance(taker.address)).toBe(before + held);
  }, 30_000);

  it('a late fill loses to the refund: a fill after fillDeadline is never attested, the deposit goes back', async () => {
    solver.setBehaviour({ fill: 'late' });
    const taker = new TestTaker(h.manifest.accounts.takers[3]!.privateKey, h.rest, h.manifest.chains);
    const before = await inputBalance(taker.address);
    const { created, fillDeadline, expires } = await order(taker, 'Permit2Escrow');
    // The solver waits for the destination to pass the deadline, then fills naming a later one (the destination
    // cannot know the order's): the fill lands.
    await h.clock.advanceTo((fillDeadline + 3) * 1_000);
    const filled = (await eventually(saw('filled', created.orderId), 10_000, 'the late fill')) as Extract<SolverEvent, { type: 'filled' }>;
    expect(filled.timestamp).toBeGreaterThan(fillDeadline);
    await eventually(
      () => h.service.store.db.prepare("SELECT 1 FROM processed_logs WHERE kind = 'filled' AND tx_hash = ?").get(filled.txHash),
      5_000,
      'the late fill to be seen',
    );
    await h.settlement().engine!.idle();
    expect((await h.rest.getOrder(created.orderId)).status).toBe('Deposited');
    expect(
      h
        .settlement()
        .engine!.relays.forOrder(created.orderId)
        .map((r) => r.kind),
    ).toEqual(['open']);

    await h.clock.advanceTo((expires + 1) * 1_000);
    await waitForStatus(h.rest, created.orderId, 'Refunded');
    expect(await inputBalance(taker.address)).toBe(before);
    expect(events.some((e) => e.type === 'claimed' && e.orderId === created.orderId)).toBe(false);
    const transitions = h.service
      .module<EvidenceModule>('evidence')
      .ledger.forTrade(created.orderId)
      .filter((e) => e.type === 'order.transition');
    expect(transitions.map((e) => e.payload.to)).toEqual(['Refunded']);
  }, 30_000);

  it('a late claim loses to the refund: attested in time, claimed after expiry, the refund landed first', async () => {
    solver.setBehaviour({ claim: false });
    const taker = new TestTaker(h.manifest.accounts.takers[4]!.privateKey, h.rest, h.manifest.chains);
    const { created, expires } = await order(taker, 'Permit2Escrow');
    await waitForStatus(h.rest, created.orderId, 'Attested');
    await h.clock.advanceTo((expires + 1) * 1_000);
    await waitForStatus(h.rest, created.orderId, 'Refunded');
    // The solver claims now, with the fill record the chains hold: the escrow refuses, the order is refunded already.
    const stored = h.orders().orders.get(created.orderId)!;
    const fill = h
      .settlement()
      .engine!.facts.forOrder(stored.onchainOrderId)
      .find((f): f is Extract<ChainFact, { kind: 'filled' }> => f.kind === 'filled')!;
    await expect(
      solver.wallet.finalise(stored.standardOrder, 'Permit2Escrow', [{ timestamp: fill.timestamp, solver: fill.solver }]),
    ).rejects.toBeInstanceOf(TransactionRevertedError);
    await h.settlement().engine!.idle();
    expect((await h.rest.getOrder(created.orderId)).status).toBe('Refunded');
    expect(eventsOf(created.orderId)).toEqual(['order.created', 'order.failed', 'compliance.event']);
    const transitions = h.service
      .module<EvidenceModule>('evidence')
      .ledger.forTrade(created.orderId)
      .filter((e) => e.type === 'order.transition');
    expect(transitions.map((e) => e.payload.to)).toEqual(['Filled', 'Attested', 'Refunded']);
  }, 30_000);
});
