import { BaseError } from '../../src/contracts/errors/base-error.js';
/** Wall-time polling for things that happen over sockets and chains (never for business time: that is the clock). */
export interface EventuallyOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

export class TimeoutError extends BaseError {
  override readonly name = 'TimeoutError';
}

/**
 * Calls `probe` until it returns something other than `undefined`/`false`, or the time is up. The last value (or
 * error) of a probe that never succeeded is kept, so a caller can explain what it saw.
 */
export async function eventually<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  options: EventuallyOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const intervalMs = options.intervalMs ?? 15;
  const started = Date.now();
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value as T;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() - started >= timeoutMs) {
      const cause = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new TimeoutError(`timed out after ${timeoutMs} ms waiting for ${what}${cause}`);
    }
    await sleep(intervalMs);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
