import { describe, expect, it } from 'vitest';
import { compareTimeline, formatTimelineDiff, type ObservedTimeline, timelineMatches } from './timeline.js';

const format = { amount: (_field: 'input' | 'output', value: bigint) => value.toString() };
const seen: ObservedTimeline = {
  status: 'Claimed',
  stages: ['rfq', 'deposited', 'filled', 'attested', 'claimed'],
  ws: { live: ['order.created', 'order.settled', 'compliance.event'], other: ['order.created'] },
  webhooks: { hook: ['order.created'] },
  chain: ['Open', 'OutputFilled', 'AttestationRecorded', 'Finalised'],
  ledger: undefined,
  balances: { input: -100n, output: 99n },
};

describe('timeline comparison', () => {
  it('matches what it names and ignores what it does not', () => {
    const rows = compareTimeline(
      { status: 'Claimed', chain: ['Open', 'OutputFilled', 'AttestationRecorded', 'Finalised'], balances: { input: -100n } },
      seen,
      format,
    );
    expect(rows.map((r) => r.verdict)).toEqual(['ok', 'ok', 'ok']);
    expect(timelineMatches(rows)).toBe(true);
  });

  it('applies a list to every stream, or names streams one by one', () => {
    const all = compareTimeline({ ws: ['order.created', 'order.settled', 'compliance.event'] }, seen, format);
    expect(all.map((r) => [r.field, r.verdict])).toEqual([
      ['ws live', 'ok'],
      ['ws other', 'differs'],
    ]);
    const one = compareTimeline({ ws: { other: ['order.created'] } }, seen, format);
    expect(timelineMatches(one)).toBe(true);
  });

  it('prints expected against seen and marks the lines that differ; unreadable channels are skipped, not failed', () => {
    const rows = compareTimeline({ status: 'Refunded', ledger: ['order.created'], balances: { output: 0n } }, seen, format);
    expect(timelineMatches(rows)).toBe(false);
    const text = formatTimelineDiff('order o', rows);
    expect(text).toContain('✗ status');
    expect(text).toMatch(/Refunded\s+Claimed/);
    expect(text).toContain('· ledger');
    expect(text).toContain('(not observable from here)');
    expect(text).toMatch(/✗ balance output\s+0\s+99/);
  });
});
