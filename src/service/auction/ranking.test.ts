import { describe, expect, it } from 'vitest';
import {
  convertUnits,
  feeBps,
  maximumInput,
  minimumOutput,
  parseDecimalString,
  priceImpactBps,
  priceString,
  toDecimalString,
} from './pricing.js';
import { bestPriced, fillScore, median, rankQuotes, type RankCandidate } from './ranking.js';

const candidate = (
  solverId: string,
  outputAmount: bigint,
  latencyMs: number,
  medianLatencyMs: number,
  score: number,
  inputAmount = 1_000_000n,
): RankCandidate => ({
  solverId,
  inputAmount,
  outputAmount,
  latencyMs,
  medianLatencyMs,
  fillScore: score,
});

describe('rankQuotes', () => {
  const cheap = candidate('slv_cheap', 999_500n, 40, 45, 0.5);
  const fast = candidate('slv_fast', 999_000n, 5, 4, 0.6);
  const reliable = candidate('slv_reliable', 998_000n, 20, 20, 0.95);

  it('price: highest output first for exactInput', () => {
    expect(rankQuotes([fast, reliable, cheap], 'price', 'exactInput').map((q) => q.solverId)).toEqual([
      'slv_cheap',
      'slv_fast',
      'slv_reliable',
    ]);
  });

  it('price: lowest input first for exactOutput', () => {
    const a = candidate('a', 1_000_000n, 1, 1, 0.5, 1_000_600n);
    const b = candidate('b', 1_000_000n, 1, 1, 0.5, 1_000_300n);
    expect(rankQuotes([a, b], 'price', 'exactOutput').map((q) => q.solverId)).toEqual(['b', 'a']);
  });

  it('speed: lowest median latency first', () => {
    expect(rankQuotes([cheap, reliable, fast], 'speed', 'exactInput').map((q) => q.solverId)).toEqual([
      'slv_fast',
      'slv_reliable',
      'slv_cheap',
    ]);
  });

  it('reliability: highest smoothed fill rate first', () => {
    expect(rankQuotes([cheap, fast, reliable], 'reliability', 'exactInput').map((q) => q.solverId)).toEqual([
      'slv_reliable',
      'slv_fast',
      'slv_cheap',
    ]);
  });

  it('ties fall to output, then this answer’s latency, then solver id', () => {
    const a = candidate('slv_a', 999_000n, 30, 10, 0.5);
    const b = candidate('slv_b', 999_500n, 50, 10, 0.5);
    const c = candidate('slv_c', 999_500n, 20, 10, 0.5);
    const d = candidate('slv_d', 999_500n, 20, 10, 0.5);
    expect(rankQuotes([a, b, d, c], 'speed', 'exactInput').map((q) => q.solverId)).toEqual(['slv_c', 'slv_d', 'slv_b', 'slv_a']);
    expect(rankQuotes([a, b, d, c], 'reliability', 'exactInput').map((q) => q.solverId)).toEqual(['slv_c', 'slv_d', 'slv_b', 'slv_a']);
  });

  it('bestPriced ignores the preference', () => {
    expect(bestPriced([fast, reliable, cheap], 'exactInput')?.solverId).toBe('slv_cheap');
    expect(bestPriced([], 'exactInput')).toBeUndefined();
  });

  it('fillScore is Laplace-smoothed and median handles even counts', () => {
    expect(fillScore(0, 0)).toBe(0.5);
    expect(fillScore(9, 1)).toBeCloseTo(10 / 12);
    expect(fillScore(0, 3)).toBe(0.2);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(() => median([])).toThrow(RangeError);
  });
});

describe('pricing', () => {
  it('feeBps normalises decimals and keeps two decimals of a bp', () => {
    expect(feeBps({ inputAmount: 25_000_000_000n, inputDecimals: 6, outputAmount: 24_987_500_000n, outputDecimals: 6 })).toBe(5);
    // 25,000 USDC (6) in, 24,991.25 DAI (18) out: 3.5 bp.
    expect(
      feeBps({ inputAmount: 25_000_000_000n, inputDecimals: 6, outputAmount: 24_991_250_000_000_000_000_000n, outputDecimals: 18 }),
    ).toBe(3.5);
    expect(feeBps({ inputAmount: 1_000_000n, inputDecimals: 6, outputAmount: 1_000_100n, outputDecimals: 6 })).toBe(-1);
    expect(() => feeBps({ inputAmount: 0n, inputDecimals: 6, outputAmount: 1n, outputDecimals: 6 })).toThrow(RangeError);
  });

  it('priceImpactBps is measured against the mid price', () => {
    const trade = { inputAmount: 1_000_000n, inputDecimals: 6, outputAmount: 999_000n, outputDecimals: 6 };
    expect(priceImpactBps(trade)).toBe(10);
    expect(priceImpactBps(trade, { numerator: 9_995n, denominator: 10_000n })).toBe(5);
  });

  it('decimal strings round-trip and refuse excess precision', () => {
    expect(toDecimalString(25_000_500_000n, 6)).toBe('25000.5');
    expect(toDecimalString(7n, 6)).toBe('0.000007');
    expect(toDecimalString(-1_500_000n, 6)).toBe('-1.5');
    expect(parseDecimalString('25000.5', 6)).toBe(25_000_500_000n);
    expect(parseDecimalString('1.0000001', 6)).toBeUndefined();
    expect(parseDecimalString('01', 6)).toBeUndefined();
    expect(parseDecimalString('-1', 6)).toBeUndefined();
  });

  it('price strings, unit conversion and fee limits', () => {
    expect(priceString({ inputAmount: 1_000_000n, inputDecimals: 6, outputAmount: 999_500n, outputDecimals: 6 })).toBe('0.9995');
    expect(convertUnits(1_000_000n, 6, 18)).toBe(10n ** 18n);
    expect(convertUnits(10n ** 18n + 1n, 18, 6)).toBe(1_000_000n);
    expect(minimumOutput(1_000_000n, 6, 6, 200)).toBe(980_000n);
    expect(minimumOutput(1_000_001n, 6, 6, 200)).toBe(980_001n);
    expect(maximumInput(980_000n, 6, 6, 200)).toBe(1_000_000n);
  });
});
