import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Address } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { platformMigrations, Store } from '../store/index.js';
import { auctionMigrations } from './migrations.js';
import { normalise } from './pricing.js';
import { type RfqRecord, RfqRepository, type SolverTotals } from './rfq-repository.js';

/**
 * The solver statistics are running totals kept with every change (GET /solvers and the leaderboard read them
 * without scanning the auction history). They must equal what the history says, and a store written before they
 * existed gets them filled from its history.
 */
const folder = mkdtempSync(join(tmpdir(), 'solver-stats-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const USDC: Address = '0x00000000000000000000000000000000000000aa';

function rfq(id: string, decimals: number): RfqRecord {
  return {
    id,
    workspaceId: null,
    requestId: null,
    corridor: 'alpha-beta-usdc',
    originChainId: 31_337,
    destinationChainId: 31_338,
    inputToken: USDC,
    outputToken: USDC,
    inputDecimals: decimals,
    outputDecimals: decimals,
    pair: 'USDC/USDC',
    side: 'sell',
    swapType: 'exactInput',
    amount: 1_000_000n,
    preference: 'price',
    lockType: 'Permit2Escrow',
    settlementPath: 'direct',
    user: null,
    attestation: null,
    fillDeadline: 2_000_000_000,
    expires: 2_000_000_100,
    status: 'quoted',
    respondBy: 0,
    quoteExpiresAt: 10_000,
    eventId: `evt_${id}`,
    createdAt: 0,
    closedAt: null,
  };
}

/** What the history says, summed the way the statistics were before they were kept (the old queries). */
function fromHistory(store: Store): Map<string, SolverTotals> {
  const totals = new Map<string, SolverTotals>();
  const entry = (solverId: string) => {
    let value = totals.get(solverId);
    if (value === undefined) {
      value = { quotes: 0, invited: 0, responded: 0, bestQuotes: 0, wins: 0, filled: 0, failed: 0, wonVolume: 0n };
      totals.set(solverId, value);
    }
    return value;
  };
  for (const row of store.db
    .prepare(
      `SELECT solver_id, COUNT(*) AS quotes, COALESCE(SUM(best_price), 0) AS best, COUNT(CASE WHEN status = 'accepted' THEN 1 END) AS wins,
         COUNT(CASE WHEN outcome = 'filled' THEN 1 END) AS filled, COUNT(CASE WHEN outcome = 'failed' THEN 1 END) AS failed
       FROM quotes GROUP BY solver_id`,
    )
    .all() as Array<Record<string, number | string>>)
    Object.assign(entry(String(row.solver_id)), {
      quotes: Number(row.quotes),
      bestQuotes: Number(row.best),
      wins: Number(row.wins),
      filled: Number(row.filled),
      failed: Number(row.failed),
    });
  for (const row of store.db
    .prepare(
      `SELECT solver_id, COUNT(*) AS invited, COUNT(CASE WHEN outcome IN ('quoted', 'declined') THEN 1 END) AS responded
       FROM rfq_invitations GROUP BY solver_id`,
    )
    .all() as Array<Record<string, number | string>>)
    Object.assign(entry(String(row.solver_id)), { invited: Number(row.invited), responded: Number(row.responded) });
  for (const row of store.db
    .prepare(
      `SELECT q.solver_id, q.input_amount, r.input_decimals FROM quotes q JOIN rfqs r ON r.id = q.rfq_id WHERE q.status = 'accepted'`,
    )
    .all() as Array<Record<string, number | string>>)
    entry(String(row.solver_id)).wonVolume += normalise(BigInt(row.input_amount!), Number(row.input_decimals));
  return totals;
}

/**
 * A little auction history: RFQs in 6- and 18-decimal tokens, each with quotes of some solvers, invitations of all
 * (quoted, declined, silent, rejected), some quotes accepted (twice for one RFQ: refused), outcomes recorded (twice
 * for one order: counted once), and amounts past 2^64 in 18-decimal units.
 */
function writeHistory(store: Store, rfqs: RfqRepository, rounds: number, prefix: string): void {
  const solvers = ['slv_a', 'slv_b', 'slv_c'];
  for (let i = 0; i < rounds; i += 1) {
    const id = `rfq_${prefix}${i}`;
    const decimals = i % 3 === 0 ? 18 : 6;
    store.transaction(() => {
      rfqs.insertRfq(rfq(id, decimals));
      const quoting = solvers.slice(0, 1 + (i % 3));
      for (const [rank, solverId] of quoting.entries())
        rfqs.insertQuote({
          id: `qt_${prefix}${i}_${solverId}`,
          rfqId: id,
          solverId,
          rank: rank + 1,
          bestPrice: rank === 0,
          inputAmount: decimals === 18 ? 123n * 10n ** 21n + BigInt(i) : 1_000_000n * BigInt(i + 1),
          outputAmount: 1n,
          feeBps: 0,
          priceImpactBps: 0,
          latencyMs: 5,
          confidence: 1,
          createdAt: 0,
          expiresAt: 10_000,
        });
      const outcomes = ['quoted', 'declined', 'silent', 'rejected'] as const;
      for (const [n, solverId] of solvers.entries())
        rfqs.insertInvitation({
          rfqId: id,
          solverId,
          outcome: quoting.includes(solverId) ? 'quoted' : outcomes[(i + n) % 4]!,
          reason: null,
          latencyMs: null,
        });
    });
    if (i % 2 === 0) {
      const winner = solvers[i % 3 === 0 ? 0 : 1]!;
      const orderId = `ord_${prefix}${i}`;
      store.transaction(() => {
        expect(rfqs.accept(`qt_${prefix}${i}_${winner}`, orderId, 1_000)).toBe(true);
        // One order per RFQ: a second acceptance is refused and counts nothing.
        expect(rfqs.accept(`qt_${prefix}${i}_${winner}`, `${orderId}x`, 1_000)).toBe(false);
      });
      if (i % 4 === 0) {
        store.transaction(() => {
          expect(rfqs.setOutcome(orderId, i % 8 === 0 ? 'filled' : 'failed', 2_000)).toBe(true);
          expect(rfqs.setOutcome(orderId, 'filled', 2_001)).toBe(false);
        });
      }
    }
  }
  // A quote that expired unaccepted counts as a quote and nothing more.
  store.transaction(() => rfqs.expireAllDue(20_000));
}

describe('solver statistics kept as running totals', () => {
  it('equal the history they summarise, after quotes, invitations, acceptances, refusals and outcomes', () => {
    const store = Store.open({ path: ':memory:', migrations: [platformMigrations, auctionMigrations] });
    try {
      const rfqs = new RfqRepository(store);
      writeHistory(store, rfqs, 24, 'a');
      const kept = rfqs.totals();
      expect(kept).toEqual(fromHistory(store));
      expect(kept.get('slv_a')!.wonVolume).toBeGreaterThan(2n ** 64n);
      expect(kept.get('slv_a')!.filled + kept.get('slv_a')!.failed + kept.get('slv_b')!.filled + kept.get('slv_b')!.failed).toBe(6);
    } finally {
      store.close();
    }
  });

  it('a store written before they were kept gets them from its history when it opens, and keeps them from there', () => {
    const path = join(folder, 'before.sqlite');
    const migrations = [platformMigrations, auctionMigrations];
    const first = Store.open({ path, migrations });
    writeHistory(first, new RfqRepository(first), 12, 'b');
    // As a store of the version before: no running totals and no record of their migration.
    first.db.exec('DROP TABLE solver_stats');
    first.db.prepare('DELETE FROM schema_migrations WHERE id = ?').run('auction/003_solver_stats');
    first.close();

    const second = Store.open({ path, migrations });
    try {
      const rfqs = new RfqRepository(second);
      expect(rfqs.totals()).toEqual(fromHistory(second));
      writeHistory(second, rfqs, 12, 'c');
      expect(rfqs.totals()).toEqual(fromHistory(second));
    } finally {
      second.close();
    }
  });
});
