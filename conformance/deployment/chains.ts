import type { Evidence } from '../core/types.js';
import type { HttpClient } from '../wire/http.js';
import type { SandboxFileChain } from './sandbox-file.js';

/**
 * The chains a target names about itself, for a caller without its sandbox.json: `GET /api/v1/sandbox/info`
 * (names, chain ids, RPC URLs, tokens and contract addresses). `--rpc CHAINID=URL` replaces an RPC URL the
 * caller cannot reach (a loopback URL inside a container, a private node) with one it can.
 */
export interface NamedChains {
  chains: SandboxFileChain[];
  /** Workspace of the API key, when the target tells it. */
  workspaceId?: string;
  evidence?: Evidence;
  /** Why no chains were found. */
  reason?: string;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

export async function chainsNamedByTarget(http: HttpClient, apiPrefix: string, apiKey: string | undefined): Promise<NamedChains> {
  const response = await http
    .request({
      method: 'GET',
      path: `${apiPrefix}/sandbox/info`,
      ...(apiKey === undefined ? {} : { auth: apiKey }),
      label: 'discovery: chains (sandbox info)',
    })
    .catch(() => undefined);
  if (response === undefined || response.status !== 200 || !isObject(response.json))
    return { chains: [], reason: `GET ${apiPrefix}/sandbox/info answered ${response?.status ?? 'nothing'}` };
  const body = response.json;
  const chains: SandboxFileChain[] = [];
  for (const entry of Array.isArray(body.chains) ? body.chains : []) {
    if (!isObject(entry) || typeof entry.chainId !== 'number' || typeof entry.rpcUrl !== 'string') continue;
    chains.push({
      name: typeof entry.name === 'string' ? entry.name : String(entry.chainId),
      chainId: entry.chainId,
      rpcUrl: entry.rpcUrl,
      ...(typeof entry.wsUrl === 'string' ? { wsUrl: entry.wsUrl } : {}),
      contracts: isObject(entry.contracts) ? (entry.contracts as Record<string, `0x${string}`>) : {},
      tokens: Array.isArray(entry.tokens) ? (entry.tokens as SandboxFileChain['tokens']) : [],
    });
  }
  return {
    chains,
    ...(typeof body.workspaceId === 'string' ? { workspaceId: body.workspaceId } : {}),
    evidence: response.evidence,
    ...(chains.length === 0 ? { reason: `GET ${apiPrefix}/sandbox/info names no chains` } : {}),
  };
}

/** `CHAINID=URL` → [chain id, URL]; throws a message for anything else. */
export function parseRpcOverride(value: string): [number, string] {
  const at = value.indexOf('=');
  const chainId = Number(value.slice(0, at));
  const url = value.slice(at + 1);
  if (at <= 0 || !Number.isSafeInteger(chainId) || chainId <= 0 || !/^(https?|wss?):\/\//.test(url))
    throw new Error(`--rpc takes CHAINID=URL (e.g. 11155111=https://rpc.sepolia.example), got ${JSON.stringify(value)}`);
  return [chainId, url];
}

/**
 * The chains with the caller's RPC URLs in place of the target's own. A chain's IPC socket (`ipcPath`) is another
 * way to the node the target named, so an overridden chain drops it: nothing may reach the chain around the URL.
 */
export function withRpcOverrides(chains: readonly SandboxFileChain[], overrides: ReadonlyMap<number, string>): SandboxFileChain[] {
  return chains.map((chain) => {
    const url = overrides.get(chain.chainId);
    if (url === undefined) return chain;
    const { ipcPath: _socket, ...rest } = chain as SandboxFileChain & { ipcPath?: string };
    return { ...rest, rpcUrl: url };
  });
}
