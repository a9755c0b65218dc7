import { type IncomingMessage, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** What the REST client reads of an HTTP answer: the part of a fetch `Response` it uses. */
export interface HttpAnswer {
  readonly ok: boolean;
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
}

export interface HttpCall {
  method: string;
  headers: Record<string, string>;
  body?: string | undefined;
  signal: AbortSignal;
}

/** One HTTP request; it fails as `fetch` does (a `TypeError` "fetch failed" with the cause, or the signal's reason). */
export type HttpTransport = (url: string, call: HttpCall) => Promise<HttpAnswer>;

/** A caller's own `fetch` (a recording wrapper, another runtime's), as a transport. */
export function fetchTransport(fetcher: typeof fetch): HttpTransport {
  return (url, call) => fetcher(url, call);
}

/**
 * HTTP through node's own client and its keep-alive agents. `fetch` (undici: web streams, a `Request` and a
 * `Response` per call) costs the caller's thread 2–3 times the CPU of `http.request` per small JSON exchange, and a
 * taker's order is two of them (quote, order). Fails the way fetch fails, so callers that read fetch's errors (a
 * `TypeError` "fetch failed" whose cause has the system code; a `TimeoutError` from `AbortSignal.timeout`) read
 * these the same. Unlike fetch it follows no redirects and asks for no compression: an API answers JSON as it is.
 */
export const nodeHttpTransport: HttpTransport = (url, call) => {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : target.protocol === 'http:' ? httpRequest : undefined;
  if (send === undefined)
    return Promise.reject(new TypeError('fetch failed', { cause: new Error(`unsupported protocol ${target.protocol}`) }));
  return exchange(send, target, call, true);
};

function exchange(send: typeof httpRequest, target: URL, call: HttpCall, mayRetry: boolean): Promise<HttpAnswer> {
  if (call.signal.aborted) return Promise.reject(call.signal.reason);
  return new Promise<HttpAnswer>((resolve, reject) => {
    const headers: Record<string, string | number> = { ...call.headers };
    if (call.body !== undefined) headers['content-length'] = Buffer.byteLength(call.body);
    const req = send(target, { method: call.method, headers });
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      call.signal.removeEventListener('abort', onAbort);
      reject(error);
    };
    const onAbort = () => {
      fail(call.signal.reason);
      req.destroy();
    };
    call.signal.addEventListener('abort', onAbort, { once: true });
    let answered = false;
    req.on('error', (error: NodeJS.ErrnoException) => {
      // A kept-alive connection the server closed as this request went out (its idle timeout): the request never
      // reached it, so it goes once more on a new connection, as node's documentation advises.
      if (mayRetry && !answered && !settled && req.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) {
        settled = true;
        call.signal.removeEventListener('abort', onAbort);
        exchange(send, target, call, false).then(resolve, reject);
        return;
      }
      fail(new TypeError('fetch failed', { cause: error }));
    });
    req.on('response', (res: IncomingMessage) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (error) => fail(new TypeError('fetch failed', { cause: error })));
      res.on('end', () => {
        if (settled) return;
        settled = true;
        call.signal.removeEventListener('abort', onAbort);
        const text = Buffer.concat(chunks).toString('utf8');
        const status = res.statusCode ?? 0;
        resolve({
          ok: status >= 200 && status < 300,
          status,
          headers: {
            get(name) {
              const value = res.headers[name.toLowerCase()];
              return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
            },
          },
          text: () => Promise.resolve(text),
        });
      });
    });
    req.end(call.body);
  });
}
