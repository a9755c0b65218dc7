import { HttpRequestError, RpcRequestError, TimeoutError, type Transport, custom } from 'viem';
import { JsonRpcNoAnswer } from '../contracts/json-rpc-http.js';
import { jsonRpcLocal } from '../contracts/json-rpc-ipc.js';

/** A solver's JSON-RPC transport to one chain, and the sockets it keeps. */
export interface SolverTransport {
  transport: Transport;
  close(): void;
}

/**
 * The reference solvers' transport to a chain: JSON-RPC over node's http client with keep-alive sockets
 * (`jsonRpcHttp`, a third of `fetch`'s CPU per call), failing with the errors viem's `http` transport raises, which
 * the wallet's outage and refusal handling reads: no answer is an `HttpRequestError` (a `TimeoutError` after the
 * timeout), an error answer an `RpcRequestError` with the node's code, message and data. Retries are viem's, as
 * over `http` (`retryCount`, 3 by default). With `ipcPath` (a sandbox's own chain, on this machine) the calls go
 * over the chain's IPC socket while it answers (`jsonRpcLocal`), failing the same way.
 */
export function solverTransport(
  url: string,
  options: { timeoutMs?: number; retryCount?: number; ipcPath?: string | undefined } = {},
): SolverTransport {
  const rpc = jsonRpcLocal(options.ipcPath, url, { timeoutMs: options.timeoutMs ?? 10_000 });
  const transport = custom(
    {
      async request({ method, params }) {
        const body = { method, params };
        let answer: Awaited<ReturnType<typeof rpc.call>>;
        try {
          answer = await rpc.call(method, params);
        } catch (error) {
          if (!(error instanceof JsonRpcNoAnswer)) throw error;
          if (error.reason === 'timeout') throw new TimeoutError({ body, url });
          throw new HttpRequestError({
            body,
            url,
            details: error.message,
            ...(error.status === undefined ? {} : { status: error.status }),
            ...(error.cause instanceof Error ? { cause: error.cause } : {}),
          });
        }
        if (answer.error !== undefined) throw new RpcRequestError({ body, error: answer.error, url });
        return answer.result;
      },
    },
    { retryCount: options.retryCount ?? 3 },
  );
  return { transport, close: () => rpc.close() };
}
