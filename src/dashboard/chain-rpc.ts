/**
 * Block numbers of an order's transactions, read straight from the chains' JSON-RPC endpoints that
 * `GET /api/v1/sandbox/info` lists (loopback in the sandbox; anvil answers browsers with CORS).
 */
import { num, obj } from './read.js';

export async function blockOfTransaction(rpcUrl: string, txHash: string): Promise<number | null> {
  const response = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getTransactionReceipt', params: [txHash] }),
    credentials: 'omit',
  });
  const answer = (await response.json()) as unknown;
  return num(obj(answer, 'result'), 'blockNumber') ?? null;
}

/** Remembers found blocks; a hash with no receipt yet (or not a transaction) is asked again next time. */
export class BlockLookup {
  private readonly found = new Map<string, number>();
  private readonly inFlight = new Set<string>();

  get(txHash: string): number | undefined {
    return this.found.get(txHash);
  }

  snapshot(): ReadonlyMap<string, number | null> {
    return this.found;
  }

  /** Resolves the missing ones; true when anything new was found. */
  async resolve(wanted: ReadonlyArray<{ txHash: string; rpcUrl: string }>): Promise<boolean> {
    const missing = wanted.filter(
      (item) => /^0x[0-9a-fA-F]{64}$/.test(item.txHash) && !this.found.has(item.txHash) && !this.inFlight.has(item.txHash),
    );
    if (missing.length === 0) return false;
    let changed = false;
    await Promise.all(
      missing.map(async ({ txHash, rpcUrl }) => {
        this.inFlight.add(txHash);
        try {
          const block = await blockOfTransaction(rpcUrl, txHash);
          if (block !== null) {
            this.found.set(txHash, block);
            changed = true;
          }
        } catch {
          // chain unreachable: the step shows no block, the chains panel says why
        } finally {
          this.inFlight.delete(txHash);
        }
      }),
    );
    return changed;
  }
}
