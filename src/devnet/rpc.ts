import { BaseError } from '../contracts/errors/base-error.js';
import { type JsonRpcAnswer, JsonRpcNoAnswer, jsonRpcHttp } from '../contracts/json-rpc-http.js';

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

export function createRpcClient(url: string): RpcClient {
  const rpc = jsonRpcHttp(url, { sockets: 4, timeoutMs: 30_000 });

  async function call<T>(method: string, params: readonly unknown[] = [], options: { timeoutMs?: number } = {}): Promise<T> {
    let answer: JsonRpcAnswer;
    try {
      answer = await rpc.call(method, params, options);
    } catch (error) {
      throw error instanceof JsonRpcNoAnswer ? new RpcError(method, error.detail) : error;
    }
    if (answer.error !== undefined) throw new RpcError(method, answer.error.message, answer.error.code);
    return answer.result as T;
  }

  return { url, call, close: () => rpc.close() };
}

export const toQuantity = (value: bigint | number): `0x${string}` => `0x${value.toString(16)}`;
export const fromQuantity = (value: string): bigint => BigInt(value);
