import { performance } from 'node:perf_hooks';
import { createPublicClient, http, type PublicClient } from 'viem';
import type { ChainInfo, Environment } from '../../contracts/deployment.js';
import type { Store } from '../store/store.js';

export interface ChainHealth {
  name: string;
  chainId: number;
  ok: boolean;
  latencyMs: number | null;
  error?: string;
}

export interface HealthReport {
  ok: boolean;
  environment: Environment;
  version: string;
  uptimeSeconds: number;
  store: { ok: boolean };
  chains: ChainHealth[];
}

/**
 * Checks what the service cannot work without: the store answers a query and each chain answers
 * `eth_chainId` with the id it should have (a stranger's chain on a reused port is unhealthy).
 */
export class HealthProbe {
  private readonly clients: Array<{ chain: ChainInfo; client: PublicClient }>;
  // Uptime is a process metric, not business time: it ignores test-clock advances.
  private readonly startedAt = performance.now();

  constructor(
    private readonly store: Store,
    chains: readonly ChainInfo[],
    private readonly info: { environment: Environment; version: string; timeoutMs?: number },
  ) {
    this.clients = chains.map((chain) => ({
      chain,
      client: createPublicClient({ transport: http(chain.rpcUrl, { timeout: info.timeoutMs ?? 2_000, retryCount: 0 }) }),
    }));
  }

  async check(): Promise<HealthReport> {
    const chains = await Promise.all(this.clients.map(({ chain, client }) => this.checkChain(chain, client)));
    const store = { ok: this.store.ping() };
    return {
      ok: store.ok && chains.every((chain) => chain.ok),
      environment: this.info.environment,
      version: this.info.version,
      uptimeSeconds: Math.floor((performance.now() - this.startedAt) / 1_000),
      store,
      chains,
    };
  }

  private async checkChain(chain: ChainInfo, client: PublicClient): Promise<ChainHealth> {
    const started = performance.now();
    try {
      const chainId = await client.getChainId();
      const latencyMs = Math.round((performance.now() - started) * 10) / 10;
      if (chainId !== chain.chainId) {
        return { name: chain.name, chainId: chain.chainId, ok: false, latencyMs, error: `answers chain id ${chainId}` };
      }
      return { name: chain.name, chainId: chain.chainId, ok: true, latencyMs };
    } catch (error) {
      const message = error instanceof Error ? ((error as { shortMessage?: string }).shortMessage ?? error.message) : String(error);
      return { name: chain.name, chainId: chain.chainId, ok: false, latencyMs: null, error: message.slice(0, 200) };
    }
  }
}
