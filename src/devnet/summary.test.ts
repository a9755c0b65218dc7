import { describe, expect, it } from 'vitest';
import { grouped } from './summary.js';

describe('grouped', () => {
  it('groups digits by thousands as en-US does, for numbers and bigints', () => {
    for (const value of [0, 7, 999, 1_000, 12_345, 999_999, 1_000_000, 10_000_000_000]) {
      expect(grouped(value)).toBe(value.toLocaleString('en-US'));
    }
    expect(grouped(123_456_789_012_345_678_901n)).toBe('123,456,789,012,345,678,901');
  });
});
