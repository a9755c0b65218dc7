/**
 * Solver statistics from the auction history: how often a solver was invited and answered, how fast, how often
 * it had the best price, how many of its quotes became orders, how those orders ended, and the volume won.
 */
import { toDecimalString } from './pricing.js';
import type { RfqRepository, SolverTotals } from './rfq-repository.js';
import type { SolverPerformance } from './solver-performance.js';
import type { SolverRecord } from './solver-repository.js';
import type { SolverStats } from '../../contracts/wire/auction.js';

export type { SolverStats } from '../../contracts/wire/auction.js';

const EMPTY: SolverTotals = { quotes: 0, invited: 0, responded: 0, bestQuotes: 0, wins: 0, filled: 0, failed: 0, wonVolume: 0n };
const USD_DECIMALS = 18;

export class SolverStatistics {
  constructor(
    private readonly rfqs: RfqRepository,
    private readonly performance: SolverPerformance,
  ) {}

  /** Stats of every solver that has any history, plus zeros for `solvers` without. */
  all(solvers: readonly SolverRecord[]): Map<string, SolverStats> {
    const totals = this.rfqs.totals();
    const stats = new Map<string, SolverStats>();
    for (const solver of solvers) {
      const solverTotals = totals.get(solver.id) ?? EMPTY;
      stats.set(solver.id, this.stats(solver.id, solverTotals, solverTotals.wonVolume));
    }
    return stats;
  }

  one(solver: SolverRecord): SolverStats {
    return this.all([solver]).get(solver.id)!;
  }

  /** Ranked by wins, then volume, then fill rate, then name. */
  leaderboard(solvers: readonly SolverRecord[]) {
    const stats = this.all(solvers);
    const rows = solvers.map((solver) => ({ solverId: solver.id, name: solver.name, ...stats.get(solver.id)! }));
    rows.sort(
      (a, b) =>
        b.wins - a.wins ||
        compareDecimal(b.volume, a.volume) ||
        (b.fillRate ?? -1) - (a.fillRate ?? -1) ||
        a.name.localeCompare(b.name) ||
        a.solverId.localeCompare(b.solverId),
    );
    return rows.map((row, index) => ({ rank: index + 1, ...row }));
  }

  private stats(solverId: string, totals: SolverTotals, volume: bigint): SolverStats {
    const finished = totals.filled + totals.failed;
    const latency = this.performance.medianLatency(solverId);
    return {
      quotes: totals.quotes,
      rfqsInvited: totals.invited,
      responseRate: totals.invited === 0 ? null : totals.responded / totals.invited,
      medianQuoteLatencyMs: latency === undefined ? null : Math.round(latency * 10) / 10,
      bestQuotes: totals.bestQuotes,
      wins: totals.wins,
      filled: totals.filled,
      failed: totals.failed,
      fillRate: finished === 0 ? null : totals.filled / finished,
      volume: toDecimalString(volume, USD_DECIMALS),
    };
  }
}

function compareDecimal(a: string, b: string): number {
  const scale = (text: string) => {
    const [whole, fraction = ''] = text.split('.');
    return BigInt(`${whole}${fraction.padEnd(USD_DECIMALS, '0')}`);
  };
  const x = scale(a);
  const y = scale(b);
  return x === y ? 0 : x > y ? 1 : -1;
}
