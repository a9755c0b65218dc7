/**
 * Each solver's track record as ranking needs it on every auction: recent answer latencies and finished-order
 * outcomes. Loaded from the store on first use, then kept current in memory (this process is the only writer).
 */
import { fillScore, median } from './ranking.js';
import type { RfqRepository } from './rfq-repository.js';

export const LATENCY_HISTORY = 100;

interface Record {
  latencies: number[];
  filled: number;
  failed: number;
}

export class SolverPerformance {
  private readonly records = new Map<string, Record>();

  constructor(
    private readonly repo: RfqRepository,
    private readonly historySize: number = LATENCY_HISTORY,
  ) {}

  /** Median of the solver's last answers, plus `pending` (this auction's answer) when given; undefined when none. */
  medianLatency(solverId: string, pending?: number): number | undefined {
    const latencies = this.record(solverId).latencies;
    const values = pending === undefined ? latencies : [...latencies.slice(-(this.historySize - 1)), pending];
    return values.length === 0 ? undefined : median(values);
  }

  recordLatency(solverId: string, latencyMs: number): void {
    const latencies = this.record(solverId).latencies;
    latencies.push(latencyMs);
    if (latencies.length > this.historySize) latencies.splice(0, latencies.length - this.historySize);
  }

  outcomes(solverId: string): { filled: number; failed: number } {
    const { filled, failed } = this.record(solverId);
    return { filled, failed };
  }

  /** Raw fill rate over finished orders; null before the first. */
  fillRate(solverId: string): number | null {
    const { filled, failed } = this.record(solverId);
    return filled + failed === 0 ? null : filled / (filled + failed);
  }

  fillScore(solverId: string): number {
    const { filled, failed } = this.record(solverId);
    return fillScore(filled, failed);
  }

  /**
   * Counts an outcome the store has just recorded. A record not loaded yet (the first event of this solver since
   * the process started) is read from the store, which already holds this outcome: counting it again would put the
   * ranking's rate apart from the stats the API reports, for as long as the process lives.
   */
  recordOutcome(solverId: string, outcome: 'filled' | 'failed'): void {
    if (!this.records.has(solverId)) {
      this.record(solverId);
      return;
    }
    const record = this.record(solverId);
    if (outcome === 'filled') record.filled += 1;
    else record.failed += 1;
  }

  private record(solverId: string): Record {
    let record = this.records.get(solverId);
    if (record === undefined) {
      const { filled, failed } = this.repo.outcomeCounts(solverId);
      record = { latencies: this.repo.recentLatencies(solverId, this.historySize).reverse(), filled, failed };
      this.records.set(solverId, record);
    }
    return record;
  }
}
