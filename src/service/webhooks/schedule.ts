/**
 * Retry schedules of webhook delivery. Each delay counts from the previous failed attempt (Svix semantics), so
 * schedule A's last retry comes 5 s + 30 s + 10 min + 1 h + 6 h + 24 h = 31 h 10 m 35 s after the first send.
 */

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

export type WebhookProfileName = 'A' | 'B';

export interface RetryProfile {
  name: WebhookProfileName;
  /** Delay before retry n (index 0 = the first retry); attempts in all = 1 + retryDelaysMs.length. */
  retryDelaysMs: readonly number[];
  /**
   * When the endpoint stops receiving: A pauses it after 5 consecutive events that exhausted every attempt;
   * B disables it after 5 consecutive failed attempts (the spec's "delivery failures", a delivery being one
   * attempt with its own X-Service-DeliveryId).
   */
  stopAfter: { count: number; counting: 'exhausted-events' | 'failed-attempts'; status: 'paused' | 'disabled' };
}

export const PROFILE_A: RetryProfile = {
  name: 'A',
  retryDelaysMs: [5 * SECOND, 30 * SECOND, 10 * MINUTE, HOUR, 6 * HOUR, 24 * HOUR],
  stopAfter: { count: 5, counting: 'exhausted-events', status: 'paused' },
};

export const PROFILE_B: RetryProfile = {
  name: 'B',
  retryDelaysMs: [5 * SECOND, 30 * SECOND, 5 * MINUTE, HOUR],
  stopAfter: { count: 5, counting: 'failed-attempts', status: 'disabled' },
};

export function retryProfile(name: WebhookProfileName): RetryProfile {
  return name === 'B' ? PROFILE_B : PROFILE_A;
}

export function totalAttempts(profile: RetryProfile): number {
  return 1 + profile.retryDelaysMs.length;
}

/** A receiver may ask for more time with Retry-After (429/503), but never for more than this. */
export const MAX_RETRY_AFTER_MS = 24 * HOUR;

/**
 * Delay before the next attempt after `attemptsMade` failed attempts, or undefined when the schedule is spent.
 * A Retry-After can push a retry later (up to 24 h) but never earlier than the schedule.
 */
export function nextRetryDelay(profile: RetryProfile, attemptsMade: number, retryAfterMs?: number): number | undefined {
  const scheduled = profile.retryDelaysMs[attemptsMade - 1];
  if (scheduled === undefined) return undefined;
  if (retryAfterMs === undefined) return scheduled;
  return Math.max(scheduled, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
}

/**
 * Retry-After of a 429/503 answer in ms: delta-seconds, or an HTTP date measured against the response's own
 * Date header (both come from the receiver's clock, which need not be ours). Undefined when absent or unusable.
 */
export function parseRetryAfter(value: string | null, responseDate: string | null): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^[0-9]{1,10}$/.test(trimmed)) return Number(trimmed) * SECOND;
  const at = Date.parse(trimmed);
  const reference = responseDate === null ? Number.NaN : Date.parse(responseDate);
  if (Number.isNaN(at) || Number.isNaN(reference)) return undefined;
  return Math.max(0, at - reference);
}
