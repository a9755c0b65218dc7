import type { RpcEvidence } from '../core/types.js';

/** A bare JSON-RPC call to a chain of the target, kept as evidence. */
export async function rpcCall<T>(
  url: string,
  method: string,
  params: unknown[] = [],
  chainId?: number,
): Promise<{ result?: T; error?: string; evidence: RpcEvidence }> {
  const evidence: RpcEvidence = { kind: 'rpc', url, method, params, ...(chainId === undefined ? {} : { chainId }) };
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await response.json()) as { result?: T; error?: { message?: string } };
    if (body.error) evidence.error = body.error.message ?? JSON.stringify(body.error);
    else evidence.result = body.result;
    return { ...(body.error ? { error: evidence.error } : { result: body.result as T }), evidence };
  } catch (error) {
    evidence.error = (error as Error).message;
    return { error: evidence.error, evidence };
  }
}
