import { BaseError } from '../../src/contracts/errors/base-error.js';
/**
 * Requests that ride out a service restart: a connection refused or cut while the service is down is retried
 * until it answers, up to a wall-time deadline. Only transport failures are retried; an HTTP answer, whatever its
 * status, is returned to the caller.
 */
export interface WireAnswer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

export class ServiceUnreachable extends BaseError {
  override readonly name = 'ServiceUnreachable';
}

/** fetch failed before any HTTP answer: refused, reset, closed mid-response, timed out. */
export function isTransportFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return true;
  return error instanceof TypeError && /fetch failed|terminated|other side closed|socket/i.test(`${error.message} ${String(error.cause)}`);
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface SendOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Give up after this much wall time without an answer (default 60 s). */
  deadlineMs?: number;
  /** Per attempt (default 20 s). */
  timeoutMs?: number;
  /** Called before each retry (the caller may count them). */
  onRetry?: (error: unknown) => void;
}

export async function send(baseUrl: () => string, method: string, path: string, options: SendOptions = {}): Promise<WireAnswer> {
  const deadline = Date.now() + (options.deadlineMs ?? 60_000);
  for (;;) {
    try {
      const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
      if (options.body !== undefined) headers['Content-Type'] = 'application/json';
      const response = await fetch(`${baseUrl()}${path}`, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: AbortSignal.timeout(options.timeoutMs ?? 20_000),
      });
      const text = await response.text();
      let json: unknown;
      try {
        json = text === '' ? undefined : JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: response.status, headers: response.headers, text, json };
    } catch (error) {
      if (!isTransportFailure(error)) throw error;
      if (Date.now() > deadline) throw new ServiceUnreachable(`${method} ${path}: no answer within the deadline (${String(error)})`);
      options.onRetry?.(error);
      await sleep(100);
    }
  }
}

export function errorCode(answer: WireAnswer): string | undefined {
  const error = (answer.json as { error?: { code?: unknown } } | undefined)?.error;
  return typeof error?.code === 'string' ? error.code : undefined;
}
