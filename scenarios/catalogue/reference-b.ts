import type { ScenarioContext } from '../core/context.js';
import { defineScenario } from '../core/scenario.js';
import { expectEqual, expectThat } from '../core/errors.js';
import { verifyEntries, type LedgerEntry } from '../../src/contracts/ledger/chain.js';
import { accept, advanceClockTo, after, check, expectOrder, rfq, setSolvers, type AcceptAnswer } from '../steps/index.js';
import { refunded, settled, withSolverFault } from './timelines.js';

const B_CHANNELS = ['rfq.*', 'quote.*', 'settlement.*', 'audit.recorded'];

/** Reference B's sequence of one trade: the RFQ, one `quote.received` per quote, then acceptance and the outcome. */
function bSequence(context: ScenarioContext, rfqName: string, outcome: 'settlement.complete' | 'settlement.failed'): string[] {
  const quotes = context.quote(rfqName).response.quotes.length;
  return [
    'rfq.created',
    ...Array.from({ length: quotes }, () => 'quote.received'),
    'quote.accepted',
    'settlement.pending',
    outcome,
    'audit.recorded',
  ];
}

interface SettlementB {
  status: string;
  orderStatus: string;
  escrow: { status: string; releaseTxHash: string | null; refundTxHash: string | null };
  proof: { status: string; verified: boolean };
  settlementHash: string | null;
  error: string | null;
  evidence: { hash: string; sequence: number };
}

interface AuditTrail {
  entries: Array<LedgerEntry & { neighbours?: unknown }>;
  head: { hash: string };
  verification: { selfCheck: { ok: boolean } };
}

/** The audit trail verifies from its own entries, and its last entry is the one `audit.recorded` announced. */
function auditTrailVerifies(order: string) {
  return check(`the audit trail of ${order} verifies and ends with the announced entry`, async (context) => {
    const accepted = context.value<AcceptAnswer>(order);
    const trail = await context.rest.request<AuditTrail>('GET', `/api/v1/audit/${accepted.settlementId}`);
    const entries = trail.entries.map(({ neighbours: _neighbours, ...entry }) => entry as LedgerEntry);
    const verdict = verifyEntries(entries);
    expectThat(verdict.ok && trail.verification.selfCheck.ok, `audit trail entries do not verify: ${verdict.invalid.join(', ')}`);
    const announced = context.streams
      .flatMap((stream) => stream.events())
      .find((e) => e.type === 'audit.recorded' && e.orderId === accepted.orderId)?.body.audit as { hash: string } | undefined;
    expectEqual(entries[entries.length - 1]?.hash, announced?.hash, 'last audit entry vs audit.recorded');
    return `${entries.length} entries, ${entries.map((e) => e.type).join(', ')}`;
  });
}

const actors = {
  takers: ['alice'],
  streams: { b: { channels: B_CHANNELS }, a: { topics: ['orders:*'] } },
  webhooks: { hook: { events: B_CHANNELS } },
} as const;

/** A trade through Reference B's routes, seen through both generations' events, its settlement view and audit trail. */
export const referenceBSuccess = defineScenario({
  name: 'reference-b-success',
  title: 'Reference B: rfq → accept → settlement complete; the B sequence on WebSocket and webhooks, A events too, audit trail verified',
  tags: ['reference-b', 'success'],
  requires: { referenceB: true },
  actors,
  steps: [
    rfq('r', { taker: 'alice' }),
    accept('t', { rfq: 'r' }),
    expectOrder('t', (context) => ({
      ...settled('t', { webhooks: false })(context),
      ws: { b: bSequence(context, 'r', 'settlement.complete'), a: ['order.created', 'order.settled', 'compliance.event'] },
      webhooks: bSequence(context, 'r', 'settlement.complete'),
    })),
    check('the settlement reads complete: escrow released, proof verified, settlement hash = the claim', async (context) => {
      const accepted = context.value<AcceptAnswer>('t');
      const settlement = await context.rest.request<SettlementB>('GET', `/api/v1/settlements/${accepted.settlementId}`);
      const order = await context.rest.getOrder(accepted.orderId);
      expectEqual(
        {
          status: settlement.status,
          orderStatus: settlement.orderStatus,
          escrow: settlement.escrow.status,
          proof: settlement.proof.status,
          hash: settlement.settlementHash,
        },
        { status: 'complete', orderStatus: 'Claimed', escrow: 'released', proof: 'verified', hash: order.claimTxHash as string },
        'settlement',
      );
    }),
    auditTrailVerifies('t'),
    accept('again', { rfq: 'r', expectError: { status: 409, code: 'ALREADY_ACCEPTED' } }),
  ],
});

/** The winning solver never fills: Reference B's failure sequence, the escrow refunded, the trail closed. */
export const referenceBFailure = defineScenario({
  name: 'reference-b-failure',
  title: 'Reference B: accepted, never filled → settlement.failed at expiry; escrow refunded; failure sequence on both channels',
  tags: ['reference-b', 'refund', 'clock'],
  requires: { referenceB: true, testClock: true },
  actors: { ...actors, solvers: [{ fill: 'never' }, { fill: 'never' }, { fill: 'never' }] },
  steps: [
    rfq('r', { taker: 'alice' }),
    accept('t', { rfq: 'r' }),
    advanceClockTo('2 s past expiry', after('r', 'expires', 2)),
    expectOrder('t', (context) => ({
      ...withSolverFault(refunded('t', { webhooks: false }))(context),
      ws: { b: bSequence(context, 'r', 'settlement.failed'), a: ['order.created', 'order.failed', 'compliance.event'] },
      webhooks: bSequence(context, 'r', 'settlement.failed'),
    })),
    check('the settlement reads failed: escrow refunded, settlement hash = the refund, error fill_deadline_expired', async (context) => {
      const accepted = context.value<AcceptAnswer>('t');
      const settlement = await context.rest.request<SettlementB>('GET', `/api/v1/settlements/${accepted.settlementId}`);
      expectEqual(
        { status: settlement.status, escrow: settlement.escrow.status, error: settlement.error, hash: settlement.settlementHash },
        { status: 'failed', escrow: 'refunded', error: 'fill_deadline_expired', hash: settlement.escrow.refundTxHash },
        'settlement',
      );
      expectThat(settlement.settlementHash !== null, 'a refunded escrow settlement has no settlement hash');
    }),
    auditTrailVerifies('t'),
    setSolvers({}),
  ],
});
