import { Agent, request } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { type Transport, custom } from 'viem';
import { BaseError } from '../../contracts/errors/base-error.js';

/** A JSON-RPC error as EIP-1193 providers throw it, so that viem maps it (reverts keep their `data`). */
class ProviderRpcError extends BaseError<number> {
  constructor(
    message: string,
    override readonly code: number,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/**
 * The chain gave no JSON-RPC answer at all: the connection failed, timed out or returned something that is not
 * JSON-RPC (or a sandbox fault switch dropped the call). Distinct from an answer that is an error (a revert), so
 * callers can tell "the chain is down" (503) from "the chain refuses" (4xx).
 */
export class ChainUnreachableError extends BaseError {
  override readonly name = 'ChainUnreachableError';
}

/** True when `error`, or an error it wraps (viem wraps transport errors), is a ChainUnreachableError. */
export function isChainUnreachable(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 10; depth++) {
    if (current.name === 'ChainUnreachableError') return true;
    current = (current as Error & { cause?: unknown }).cause;
  }
  return false;
}

/**
 * viem transport over node's http client with keep-alive sockets. The settlement engine makes a few JSON-RPC calls
 * per order on its hot path; `fetch` (undici, web streams) costs several times more CPU per call than a plain
 * `http.request`, and the service shares one core with everything else in a sandbox.
 */
export function keepAliveTransport(
  url: string,
  options: {
    timeoutMs?: number;
    sockets?: number;
    /** Runs before every call; may delay it or throw instead of sending it (the sandbox's RPC fault switches). */
    beforeCall?: (method: string) => Promise<void> | void;
  } = {},
): { transport: Transport; close(): void } {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  const agent = secure
    ? new HttpsAgent({ keepAlive: true, maxSockets: options.sockets ?? 16 })
    : new Agent({ keepAlive: true, maxSockets: options.sockets ?? 16 });
  const send = secure ? httpsRequest : request;
  let nextId = 1;

  const call = (method: string, params: unknown): Promise<unknown> => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: params ?? [] });
    return new Promise((resolve, reject) => {
      const req = send(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: `${target.pathname}${target.search}`,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          timeout: options.timeoutMs ?? 15_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            let parsed: { result?: unknown; error?: { code?: number; message?: string; data?: unknown } };
            try {
              parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            } catch {
              reject(new ChainUnreachableError(`${method}: HTTP ${res.statusCode ?? '?'} with a body that is not JSON`));
              return;
            }
            if (parsed.error) reject(new ProviderRpcError(parsed.error.message ?? 'error', parsed.error.code ?? -32603, parsed.error.data));
            else resolve(parsed.result ?? null);
          });
          res.on('error', (error) => reject(new ChainUnreachableError(`${method}: ${error.message}`, { cause: error })));
        },
      );
      req.on('timeout', () => req.destroy(new ChainUnreachableError(`${method}: timed out`)));
      req.on('error', (error) =>
        reject(error instanceof ChainUnreachableError ? error : new ChainUnreachableError(`${method}: ${error.message}`, { cause: error })),
      );
      req.end(body);
    });
  };

  return {
    transport: custom(
      {
        request: async ({ method, params }) => {
          await options.beforeCall?.(method);
          return call(method, params);
        },
      },
      { retryCount: 0 },
    ),
    close: () => agent.destroy(),
  };
}
