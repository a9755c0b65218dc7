import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from './duration.js';

describe('parseDuration', () => {
  it.each([
    ['31h', 31 * 3_600_000],
    ['1h30m', 5_400_000],
    ['1h 30m', 5_400_000],
    ['90s', 90_000],
    ['500ms', 500],
    ['2d', 172_800_000],
    ['1w', 604_800_000],
    ['1.5h', 5_400_000],
    ['31h10m35s', 112_235_000],
    ['45', 45_000],
    ['0s', 0],
  ])('%s → %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 'h', '-5s', '10x', '1h-', 'ten minutes', '5 s s', '1e3s'])('rejects %j', (text) => {
    expect(() => parseDuration(text)).toThrow(RangeError);
  });
});

describe('formatDuration', () => {
  it('prints the largest units first', () => {
    expect(formatDuration(112_235_000)).toBe('1d 7h 10m 35s');
    expect(formatDuration(0)).toBe('0s');
    expect(formatDuration(1_500)).toBe('1s 500ms');
  });
});
