import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Address, createPublicClient, erc20Abi, http } from 'viem';
import type { LockType, SettlementPath } from '../../clients/rest-client.js';
import type { EvidenceModule } from '../evidence/module.js';
import type { SettlementModule } from '../settlement/module.js';
import { startSettlementHarness, type SettlementHarness } from '../../../test/support/settlement/harness.js';
import { type ReferenceSolvers, type SolverEvent, startReferenceSolvers } from '../../solvers/index.js';
import { TestTaker } from '../../../test/support/settlement/taker.js';
import { eventually, waitForStatus } from '../../../test/support/settlement/wait.js';

/** The real auction and three reference solvers (real clients of the solver stream) settle every order. */
let h: SettlementHarness;
let solvers: ReferenceSolvers;
const fills = new Map<string, string>();
const claims = new Map<string, string>();
const solverErrors: SolverEvent[] = [];

beforeAll(async () => {
  h = await startSettlementHarness();
  solvers = await startReferenceSolvers({
    manifest: { ...h.manifest, api: { url: h.service.url, wsUrl: h.service.wsUrl, workspaceId: h.workspaceId, apiKeys: [h.apiKey] } },
    count: 3,
  });
  for (const solver of solvers.solvers) {
    solver.onEvent((event) => {
      if (event.type === 'filled') fills.set(event.orderId, event.txHash);
      if (event.type === 'claimed') claims.set(event.orderId, event.txHash);
      if (event.type === 'error') solverErrors.push(event);
    });
  }
}, 60_000);

afterAll(async () => {
  await solvers?.stop();
  await h?.stop();
});

function usdc() {
  const [alpha, beta] = h.manifest.chains;
  const input = alpha!.tokens.find((t) => t.symbol === 'USDC')!;
  const output = beta!.tokens.find((t) => t.symbol === 'USDC')!;
  return {
    originChainId: alpha!.chainId,
    destinationChainId: beta!.chainId,
    inputToken: input.address as Address,
    outputToken: output.address as Address,
  };
}

async function balanceOf(chainIndex: number, token: Address, owner: Address): Promise<bigint> {
  const client = createPublicClient({ transport: http(h.manifest.chains[chainIndex]!.rpcUrl) });
  return client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] });
}

const AMOUNT = 20_000_000_000n;
const cases: Array<[LockType, SettlementPath, number]> = [
  ['Permit2Escrow', 'direct', 0],
  ['EIP3009Escrow', 'direct', 1],
  ['ResourceLock', 'direct', 2],
  ['Permit2Escrow', 'compliant', 3],
  ['EIP3009Escrow', 'compliant', 4],
  ['ResourceLock', 'compliant', 0],
];

describe('full lifecycles on real chains', () => {
  it.each(cases)(
    '%s on the %s path: Deposited → Filled → Attested → Claimed',
    async (lockType, path, takerIndex) => {
      const taker = new TestTaker(h.manifest.accounts.takers[takerIndex]!.privateKey, h.rest, h.manifest.chains);
      const corridor = usdc();
      const engine = h.service.module<SettlementModule>('settlement').engine!;
      const lanesBefore = engine.relayLanes();
      if (lockType === 'ResourceLock') await taker.depositToLock(corridor.originChainId, corridor.inputToken, AMOUNT);
      const received = await balanceOf(1, corridor.outputToken, taker.address);

      const response = await taker.quote({ ...corridor, inputAmount: AMOUNT.toString(), lockType, settlementPath: path });
      const quote = response.quotes[0]!;
      expect(quote.lockType).toBe(lockType);
      const signature = await taker.sign(quote.typedData);
      let attestation: string | undefined;
      if (path === 'compliant') {
        const status = await h.rest.request<{ attestation: { hash: string } }>('GET', `/api/v1/compliance/status?address=${taker.address}`);
        attestation = status.attestation.hash;
      }
      // The compliant path needs no API key: the order belongs to the quote's workspace.
      const created = await h.rest.createOrder(
        { quoteId: quote.quoteId, signature, nonce: quote.nonce!, user: taker.address },
        { ...(attestation === undefined ? {} : { attestation }), ...(path === 'compliant' ? { apiKey: null } : {}) },
      );
      expect(created).toMatchObject({ quoteId: quote.quoteId, status: 'Deposited', settlementPath: path, destinationTxHash: null });
      expect(created.originTxHash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(Date.parse(created.fillDeadline) / 1000).toBe(response.fillDeadline);

      const detail = await waitForStatus(h.rest, created.orderId, 'Claimed');
      expect(detail).toMatchObject({
        orderId: created.orderId,
        settlementPath: path,
        originChainId: corridor.originChainId,
        destinationChainId: corridor.destinationChainId,
        inputAmount: AMOUNT.toString(),
        outputAmount: quote.outputAmount,
        originTxHash: created.originTxHash,
      });
      expect(detail.destinationTxHash).toBe(fills.get(created.orderId));
      // The solver learns its claim's hash from its receipt, possibly after the service has seen Finalised.
      expect(detail.claimTxHash).toBe(await eventually(() => claims.get(created.orderId), 5_000, 'the claim receipt'));
      expect(detail.oracleAttestationHash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(detail.settledAt).not.toBeNull();
      expect(await balanceOf(1, corridor.outputToken, taker.address)).toBe(received + BigInt(quote.outputAmount));

      const settlement = await h.rest.request<{
        state: string;
        workspaceId: string;
        timeline: { stage: string; txHash?: string; oracleHash?: string }[];
        evidenceHash: string;
        wormSequence: number;
      }>('GET', `/api/v1/workspaces/${h.workspaceId}/settlements/${created.orderId}`);
      expect(settlement.state).toBe('Settled');
      expect(settlement.workspaceId).toBe(h.workspaceId);
      expect(settlement.timeline.map((s) => s.stage)).toEqual(['rfq', 'deposited', 'filled', 'attested', 'claimed']);
      expect(settlement.timeline[2]!.txHash).toBe(detail.destinationTxHash);
      expect(settlement.timeline[3]!.txHash).toBe(detail.oracleAttestationHash);
      expect(settlement.timeline[3]!.oracleHash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(settlement.timeline[4]!.txHash).toBe(detail.claimTxHash);
      const evidence = h.service.module<EvidenceModule>('evidence');
      const head = evidence.ledger.latestForTrade(created.orderId)!;
      expect(settlement).toMatchObject({ evidenceHash: head.hash, wormSequence: head.sequence });

      const events = evidence.outbox.forOrder(created.orderId).map((e) => e.envelope);
      const checks = path === 'compliant' ? ['attestation', 'kyc', 'sanctions', 'travel_rule'] : [];
      expect(events.map((e) => e.type)).toEqual([
        'order.created',
        ...checks.map(() => 'compliance.event'),
        'order.settled',
        'compliance.event',
      ]);
      expect(events[0]).toMatchObject({
        order: {
          id: created.orderId,
          pair: 'USDC/USDC',
          side: 'buy',
          amount: (Number(quote.outputAmount) / 1e6).toString(),
          corridor: response.corridor,
          fillDeadline: response.fillDeadline,
          status: 'pending',
        },
      });
      expect(events[checks.length + 1]).toMatchObject({
        order: {
          id: created.orderId,
          originTxHash: created.originTxHash,
          destinationTxHash: detail.destinationTxHash,
          settledAt: detail.settledAt,
        },
      });
      const audit = events[events.length - 1]!.compliance as {
        orderId: string;
        checkType: string;
        result: string;
        hash: string;
        prevHash: string;
      };
      expect(audit).toMatchObject({ orderId: created.orderId, checkType: 'settlement_audit', result: 'settled' });
      const auditEntry = evidence.ledger.forTrade(created.orderId).find((e) => e.hash === audit.hash)!;
      expect(auditEntry.prevHash).toBe(audit.prevHash);
      expect(events.slice(1, 1 + checks.length).map((e) => (e.compliance as { checkType: string }).checkType)).toEqual(checks);
      expect(evidence.ledger.forTrade(created.orderId).map((e) => e.type)).toEqual([
        'order.created',
        ...checks.map(() => 'compliance.check'),
        'order.transition',
        'order.transition',
        'order.transition',
        'compliance.check',
      ]);
      expect(solverErrors).toEqual([]);

      // The relayers' send lanes (the settlement bench reports them) counted this order's relays: the deposit (escrow
      // only) on the origin, the attestation's two legs on each chain.
      const sent = (chainId: number, role: 'service' | 'oracle') => {
        const lane = (lanes: ReturnType<typeof engine.relayLanes>) => lanes.find((l) => l.chainId === chainId && l.role === role)!;
        const [before, after] = [lane(lanesBefore), lane(engine.relayLanes())];
        return { tasks: after.tasks - before.tasks, busyMs: after.busyMs - before.busyMs };
      };
      const deposits = sent(corridor.originChainId, 'service');
      expect(deposits.tasks).toBe(lockType === 'ResourceLock' ? 0 : 1);
      for (const leg of [sent(corridor.destinationChainId, 'oracle'), sent(corridor.originChainId, 'oracle')]) {
        expect(leg.tasks).toBe(1);
        expect(leg.busyMs).toBeGreaterThan(0);
      }
    },
    30_000,
  );
});

describe('settlement reads', () => {
  it("hides another workspace's settlement and pages the caller's own", async () => {
    const other = h.service.bootstrapWorkspace('Another workspace');
    const page = await h.rest.request<{
      data: { orderId: string; workspaceId: string }[];
      has_more: boolean;
      next_cursor: string | null;
      total_count: number;
    }>('GET', '/api/v1/settlements?limit=2');
    expect(page.total_count).toBeGreaterThanOrEqual(cases.length);
    expect(page.data).toHaveLength(2);
    expect(page.has_more).toBe(true);
    expect(page.data.every((s) => s.workspaceId === h.workspaceId)).toBe(true);
    const orderId = page.data[0]!.orderId;
    const rest = page.next_cursor!;
    const second = await h.rest.request<{ data: { orderId: string }[] }>('GET', `/api/v1/settlements?limit=2&after=${rest}`);
    expect(second.data.map((s) => s.orderId)).not.toContain(orderId);

    for (const [workspaceId, key] of [
      [h.workspaceId, other.apiKey],
      [other.workspaceId, other.apiKey],
    ] as const) {
      const answer = await fetch(`${h.service.url}/api/v1/workspaces/${workspaceId}/settlements/${orderId}`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      expect(answer.status).toBe(404);
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('resource_not_found');
    }
    const mine = await fetch(`${h.service.url}/api/v1/settlements`, { headers: { Authorization: `Bearer ${other.apiKey}` } });
    expect(((await mine.json()) as { total_count: number }).total_count).toBe(0);
    const anonymous = await fetch(`${h.service.url}/api/v1/settlements`);
    expect(anonymous.status).toBe(401);
    const unknown = await fetch(`${h.service.url}/api/v1/orders/ord_unknown`);
    expect(unknown.status).toBe(404);
  });
});
