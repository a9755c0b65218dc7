import { Agent, request } from 'node:http';
import { BaseError } from '../contracts/errors/base-error.js';

/**
 * A minimal JSON-RPC client for talking to our own anvils. Start-up is on the hot path of `sandbox up`, and
 * loading viem costs more than everything this module does; engineers driving contracts use viem instead.
 */
export class RpcError extends BaseError {
  override name = 'RpcError';
  readonly rpcCode: number | undefined;
  readonly method: string;

  constructor(method: string, message: string, rpcCode?: number) {
    super(`${method}: ${message}`);
    this.method = method;
    this.rpcCode = rpcCode;
  }
}

export interface RpcClient {
  readonly url: string;
  call<T = unknown>(method: string, params?: readonly unknown[], options?: { timeoutMs?: number }): Promise<T>;
  close(): void;
}

interface JsonRpcResponse {
  result?: unknown;
  error?: { code?: number; message?: string };
}

export function createRpcClient(url: string): RpcClient {
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  const target = new URL(url);
  let nextId = 1;

  function call<T>(method: string, params: readonly unknown[] = [], options: { timeoutMs?: number } = {}): Promise<T> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params });
    return new Promise<T>((resolve, reject) => {
      const req = request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          timeout: options.timeoutMs ?? 30_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            let parsed: JsonRpcResponse;
            try {
              parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonRpcResponse;
            } catch {
              reject(new RpcError(method, `HTTP ${res.statusCode ?? '?'} with a body that is not JSON`));
              return;
            }
            if (parsed.error) reject(new RpcError(method, parsed.error.message ?? 'error', parsed.error.code));
            else resolve(parsed.result as T);
          });
          res.on('error', (error) => reject(new RpcError(method, error.message)));
        },
      );
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.on('error', (error) => reject(new RpcError(method, error.message)));
      req.end(body);
    });
  }

  return { url, call, close: () => agent.destroy() };
}

export const toQuantity = (value: bigint | number): `0x${string}` => `0x${value.toString(16)}`;
export const fromQuantity = (value: string): bigint => BigInt(value);
