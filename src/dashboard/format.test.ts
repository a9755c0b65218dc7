import { describe, expect, it } from 'vitest';
import { formatAge, formatAmount, formatClock, formatUnits, parseTime, shortHash, shortId } from './format.js';

describe('format', () => {
  it('writes token amounts exactly, beyond 2^53', () => {
    expect(formatUnits('25000000000', 6)).toBe('25,000');
    expect(formatUnits('1', 6)).toBe('0.000001');
    expect(formatUnits('1234567891', 6)).toBe('1,234.567891');
    expect(formatUnits('123456789012345678901234567890', 18)).toBe('123,456,789,012.345678…');
    expect(formatUnits('0', 6)).toBe('0');
    expect(formatUnits('42', 0)).toBe('42');
    expect(formatUnits('not a number', 6)).toBe('not a number');
    expect(formatAmount('25000000000', { symbol: 'USDC', decimals: 6 })).toBe('25,000 USDC');
    expect(formatAmount('25000000000', undefined)).toBe('25000000000');
    expect(formatAmount(undefined, { symbol: 'USDC', decimals: 6 })).toBe('—');
  });

  it('writes ages as people read them', () => {
    expect(formatAge(0)).toBe('0 s');
    expect(formatAge(59_999)).toBe('59 s');
    expect(formatAge(60_000)).toBe('1 min');
    expect(formatAge(3_600_000)).toBe('1 h');
    expect(formatAge(3_600_000 + 12 * 60_000)).toBe('1 h 12 min');
    expect(formatAge(86_400_000)).toBe('1 d');
    expect(formatAge(31 * 3_600_000)).toBe('1 d 7 h');
    expect(formatAge(-5_000)).toBe('-5 s');
    expect(formatAge(-500)).toBe('0 s');
    expect(formatAge(Number.NaN)).toBe('—');
  });

  it('writes clock times in UTC and shortens hashes and ids', () => {
    expect(formatClock(Date.UTC(2030, 0, 1, 0, 0, 5))).toBe('2030-01-01 00:00:05 UTC');
    expect(formatClock(undefined)).toBe('—');
    expect(shortHash(`0x${'ab'.repeat(32)}`)).toBe('0xabab…abab');
    expect(shortHash('0x1234')).toBe('0x1234');
    expect(shortId('ord_abcdefghijklmnopqrstuvwx')).toBe('ord_abcdef…vwx');
    expect(shortId('ord_short')).toBe('ord_short');
  });

  it('reads ISO times, Unix seconds and milliseconds', () => {
    expect(parseTime('2030-01-01T00:00:00.000Z')).toBe(Date.UTC(2030, 0, 1));
    expect(parseTime(1_893_456_000)).toBe(Date.UTC(2030, 0, 1));
    expect(parseTime('1893456000')).toBe(Date.UTC(2030, 0, 1));
    expect(parseTime(Date.UTC(2030, 0, 1))).toBe(Date.UTC(2030, 0, 1));
    expect(parseTime('yesterday')).toBeUndefined();
    expect(parseTime(null)).toBeUndefined();
  });
});
