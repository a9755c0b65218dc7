import { type Transport, custom } from 'viem';
import { BaseError } from '../../contracts/errors/base-error.js';
import { type JsonRpcAnswer, JsonRpcNoAnswer } from '../../contracts/json-rpc-http.js';
import { jsonRpcLocal } from '../../contracts/json-rpc-ipc.js';

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
 * viem transport over node's http client with keep-alive sockets (`jsonRpcHttp`), or over the node's IPC socket
 * when it has one on this machine (`jsonRpcLocal`): the settlement engine makes a few JSON-RPC calls per order on
 * its hot path, and the service shares one core with everything else in a sandbox.
 */
export function keepAliveTransport(
  url: string,
  options: {
    timeoutMs?: number;
    sockets?: number;
    /** The node's IPC socket (a sandbox's own chain): used while it answers, `url` otherwise. */
    ipcPath?: string | undefined;
    /** Runs before every call; may delay it or throw instead of sending it (the sandbox's RPC fault switches). */
    beforeCall?: (method: string) => Promise<void> | void;
  } = {},
): { transport: Transport; close(): void } {
  const rpc = jsonRpcLocal(options.ipcPath, url, options);
  const call = async (method: string, params: unknown): Promise<unknown> => {
    let answer: JsonRpcAnswer;
    try {
      answer = await rpc.call(method, params);
    } catch (error) {
      if (!(error instanceof JsonRpcNoAnswer)) throw error;
      throw new ChainUnreachableError(error.message, error.cause === undefined ? {} : { cause: error.cause });
    }
    if (answer.error !== undefined) throw new ProviderRpcError(answer.error.message, answer.error.code, answer.error.data);
    return answer.result;
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
    close: () => rpc.close(),
  };
}
