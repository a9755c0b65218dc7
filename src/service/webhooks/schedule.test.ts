import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_MS, nextRetryDelay, parseRetryAfter, PROFILE_A, PROFILE_B, totalAttempts } from './schedule.js';

describe('retry schedules', () => {
  it('A: first send plus 6 retries, the last 31 h 10 m 35 s after the first send', () => {
    expect(totalAttempts(PROFILE_A)).toBe(7);
    const sum = PROFILE_A.retryDelaysMs.reduce((a, b) => a + b, 0);
    expect(sum).toBe(((31 * 60 + 10) * 60 + 35) * 1000);
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => nextRetryDelay(PROFILE_A, n))).toEqual([5e3, 30e3, 600e3, 3600e3, 21600e3, 86400e3, undefined]);
  });

  it('B: 5 attempts, immediate then 5 s, 30 s, 5 min, 1 h', () => {
    expect(totalAttempts(PROFILE_B)).toBe(5);
    expect([1, 2, 3, 4, 5].map((n) => nextRetryDelay(PROFILE_B, n))).toEqual([5e3, 30e3, 300e3, 3600e3, undefined]);
  });

  it('Retry-After lengthens a step but never shortens it, and is capped at 24 h', () => {
    expect(nextRetryDelay(PROFILE_A, 1, 60_000)).toBe(60_000);
    expect(nextRetryDelay(PROFILE_A, 3, 1_000)).toBe(600_000);
    expect(nextRetryDelay(PROFILE_A, 1, 30 * 86_400_000)).toBe(MAX_RETRY_AFTER_MS);
    expect(nextRetryDelay(PROFILE_A, 7, 1_000)).toBeUndefined();
  });

  it('parses Retry-After as seconds or as an HTTP date against the response Date', () => {
    expect(parseRetryAfter('120', null)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', null)).toBe(0);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', 'Wed, 21 Oct 2015 07:26:30 GMT')).toBe(90_000);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', null)).toBeUndefined();
    expect(parseRetryAfter('soon', 'Wed, 21 Oct 2015 07:26:30 GMT')).toBeUndefined();
    expect(parseRetryAfter('-5', null)).toBeUndefined();
    expect(parseRetryAfter(null, null)).toBeUndefined();
  });
});
