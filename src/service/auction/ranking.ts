/**
 * Orders the quotes of one RFQ best first. Every quote of an RFQ is in the same two tokens, so amounts compare
 * directly; the preference only changes which criterion comes first.
 */

import type { Preference, SwapType } from '../../contracts/wire/enums.js';

export type { Preference, SwapType } from '../../contracts/wire/enums.js';

export interface RankCandidate {
  solverId: string;
  inputAmount: bigint;
  outputAmount: bigint;
  /** How long this answer took, from broadcast to receipt (ms, monotonic wall time). */
  latencyMs: number;
  /** Median of the solver's recent answer latencies, this one included. */
  medianLatencyMs: number;
  /** Smoothed fill rate in (0, 1); see `fillScore`. */
  fillScore: number;
}

/**
 * Laplace-smoothed fill rate: (filled + 1) / (finished + 2). A new solver starts at 0.5 instead of 0 or 1, and a
 * long record weighs more than a single lucky fill.
 */
export function fillScore(filled: number, failed: number): number {
  return (filled + 1) / (filled + failed + 2);
}

/** Negative when `a` is the better price for the taker. */
export function comparePrice(a: RankCandidate, b: RankCandidate, swapType: SwapType): number {
  if (swapType === 'exactInput') return a.outputAmount === b.outputAmount ? 0 : a.outputAmount > b.outputAmount ? -1 : 1;
  return a.inputAmount === b.inputAmount ? 0 : a.inputAmount < b.inputAmount ? -1 : 1;
}

function tieBreak(a: RankCandidate, b: RankCandidate, swapType: SwapType): number {
  return comparePrice(a, b, swapType) || a.latencyMs - b.latencyMs || (a.solverId < b.solverId ? -1 : a.solverId > b.solverId ? 1 : 0);
}

/**
 * Best first. `price`: the taker's amount (output for exactInput, input for exactOutput); `speed`: the solver's
 * median latency; `reliability`: the solver's smoothed fill rate. Ties fall to price, then this answer's latency,
 * then the solver id (so a ranking is reproducible).
 */
export function rankQuotes<T extends RankCandidate>(candidates: readonly T[], preference: Preference, swapType: SwapType): T[] {
  const primary = (a: T, b: T): number => {
    switch (preference) {
      case 'price':
        return 0;
      case 'speed':
        return a.medianLatencyMs - b.medianLatencyMs;
      case 'reliability':
        return b.fillScore - a.fillScore;
    }
  };
  return [...candidates].sort((a, b) => primary(a, b) || tieBreak(a, b, swapType));
}

/** The best-priced candidate regardless of preference (the quote the RFQ clears at; see uccpBps). */
export function bestPriced<T extends RankCandidate>(candidates: readonly T[], swapType: SwapType): T | undefined {
  let best: T | undefined;
  for (const candidate of candidates) {
    if (best === undefined || tieBreak(candidate, best, swapType) < 0) best = candidate;
  }
  return best;
}

/** Median of a non-empty list. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median of nothing');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
