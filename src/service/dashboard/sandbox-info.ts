import { z } from 'zod';
import type { Clock, TestClock } from '../../clock/index.js';
import type { ChainInfo, Environment } from '../../contracts/deployment.js';
import type { RouteTable } from '../api/route.js';
import type { OpenApiRegistry } from '../api/openapi.js';
import { Address, ChainId, IsoTimestamp, isoTime } from '../api/wire.js';

/** A chain head probe must not hold the page: a stuck anvil answers `ok: false` after this long. */
const HEAD_TIMEOUT_MS = 1_500;

export const SandboxChainState = z.object({
  name: z.string(),
  chainId: ChainId,
  rpcUrl: z.string().meta({ description: 'JSON-RPC over HTTP (loopback in the sandbox).' }),
  wsUrl: z.string(),
  ok: z.boolean(),
  headBlock: z.number().int().nonnegative().nullable(),
  chainTime: z.number().int().nullable().meta({ description: 'Timestamp of the head block, Unix seconds.' }),
  chainTimeIso: IsoTimestamp.nullable(),
  tokens: z.array(z.object({ symbol: z.string(), address: Address, decimals: z.number().int().nonnegative() })),
  contracts: z
    .record(z.string(), Address)
    .meta({ description: 'Contract name → address on this chain (settlers, resource lock, oracles, Permit2).' }),
  error: z.string().optional(),
});

export const SandboxInfo = z.object({
  environment: z.enum(['sandbox', 'production']),
  version: z.string(),
  workspaceId: z.string().nullable().meta({ description: 'Workspace of the credential sent, if any.' }),
  clock: z.object({
    now: IsoTimestamp,
    nowMs: z.number().int(),
    kind: z.enum(['test', 'real']),
    ticking: z.boolean(),
  }),
  chains: z.array(SandboxChainState),
});

export type SandboxInfo = z.infer<typeof SandboxInfo>;
export type SandboxChainState = z.infer<typeof SandboxChainState>;

interface RpcBlock {
  number: string;
  timestamp: string;
}

/** Reads a chain's head with one JSON-RPC call; failures become `ok: false` with a short reason. */
export async function readChainHead(chain: ChainInfo, timeoutMs = HEAD_TIMEOUT_MS): Promise<SandboxChainState> {
  const base = {
    name: chain.name,
    chainId: chain.chainId,
    rpcUrl: chain.rpcUrl,
    wsUrl: chain.wsUrl,
    tokens: chain.tokens.map((token) => ({ symbol: token.symbol, address: token.address, decimals: token.decimals })),
    // A client signing orders needs the settlers' addresses; a conformance run without sandbox.json reads them here.
    contracts: { ...chain.contracts },
  };
  try {
    const response = await fetch(chain.rpcUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['latest', false] }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const answer = (await response.json()) as { result?: RpcBlock | null; error?: { message?: string } };
    if (answer.result == null) throw new Error(answer.error?.message ?? `no head block (HTTP ${response.status})`);
    const chainTime = Number.parseInt(answer.result.timestamp, 16);
    return {
      ...base,
      ok: true,
      headBlock: Number.parseInt(answer.result.number, 16),
      chainTime,
      chainTimeIso: isoTime(chainTime * 1_000),
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ...base, ok: false, headBlock: null, chainTime: null, chainTimeIso: null, error: message.slice(0, 200) };
  }
}

export interface SandboxInfoDeps {
  environment: Environment;
  version: string;
  clock: Clock;
  chains: readonly ChainInfo[];
}

/**
 * `GET /api/v1/sandbox/info`: what a sandbox client needs to watch the chains beside the service (names, ids,
 * RPC URLs, head block and chain time) and the service clock, in one answer. Sandbox only.
 */
export function mountSandboxInfoRoute(api: RouteTable, openapi: OpenApiRegistry, deps: SandboxInfoDeps): void {
  openapi.schema('SandboxInfo', SandboxInfo);
  api.route({
    method: 'get',
    path: '/sandbox/info',
    operationId: 'getSandboxInfo',
    summary: 'Chains (head block, chain time), the service clock and the caller’s workspace. Sandbox only.',
    tags: ['Sandbox'],
    auth: 'optional',
    responses: { 200: { description: 'The sandbox at this moment.', schema: SandboxInfo } },
    handler: async ({ auth }) => {
      const chains = await Promise.all(deps.chains.map((chain) => readChainHead(chain)));
      const now = deps.clock.now();
      const body: SandboxInfo = {
        environment: deps.environment,
        version: deps.version,
        workspaceId: auth?.workspaceId ?? null,
        clock: {
          now: isoTime(now),
          nowMs: now,
          kind: deps.clock.kind,
          ticking: deps.clock.kind === 'test' ? (deps.clock as TestClock).ticking : true,
        },
        chains,
      };
      return { status: 200, body };
    },
  });
}
