// POST /quotes with 3 reference solvers answering at once (no simulated latency), over real sockets: the request's
// latency p50/p99, and the auction's overhead over the slowest solver's answer — from the moment the last of the
// three sends its quote to the moment the taker has the ranked response (quote frame in, validation, ranking, one
// SQLite transaction with ledger and outbox rows, HTTP response out). Service (file-backed SQLite in WAL mode),
// solvers and taker share one process, as in `sandbox up`. Quotes never touch a chain, so chains are config only.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, median, tempDir } from '../lib.mjs';

export const name = 'auction';
export const description = 'POST /quotes latency with 3 reference solvers, and the auction overhead over the slowest answer';

const GOAL_OVERHEAD_P50_MS = 5;
const WARM_UP = 100;
const REQUESTS = 1_000;

// anvil's well-known test keys (public): the solvers' wallets are never used here.
export const SOLVER_KEYS = [
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
  '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba',
];

export function chains() {
  const contracts = {
    Permit2: '0x000000000022D473030F116dDEE9F6B43aC78BA3',
    InputSettlerEscrow: '0x1000000000000000000000000000000000000001',
    InputSettlerCompact: '0x1000000000000000000000000000000000000002',
    ResourceLock: '0x1000000000000000000000000000000000000003',
    AlwaysOkAllocator: '0x1000000000000000000000000000000000000004',
    InputOracle: '0x1000000000000000000000000000000000000005',
    OutputOracle: '0x1000000000000000000000000000000000000006',
    OutputSettler: '0x1000000000000000000000000000000000000007',
  };
  const tokens = [
    { symbol: 'USDC', name: 'USD Coin (sandbox)', address: '0x2000000000000000000000000000000000000001', decimals: 6, eip3009: true },
  ];
  return ['alpha', 'beta'].map((name, i) => ({
    name,
    chainId: 31_337 + i,
    rpcUrl: 'http://127.0.0.1:1',
    wsUrl: 'ws://127.0.0.1:1',
    contracts,
    tokens,
  }));
}

/** A quote request for the chains above: 25,000 USDC from alpha to beta. */
export const QUOTE_BODY = JSON.stringify({
  inputToken: '0x2000000000000000000000000000000000000001',
  outputToken: '0x2000000000000000000000000000000000000001',
  inputAmount: '25000000000',
  originChainId: 31_337,
  destinationChainId: 31_338,
});

/** The 3 reference solvers, answering every RFQ at once (no simulated latency), connected to `service`. */
export async function startInstantSolvers(service, { workspaceId, apiKey }, stateDir) {
  const { startReferenceSolvers } = await import(pathToFileURL(join(ROOT, 'dist/src/solvers/index.js')).href);
  const { privateKeyToAccount } = await import('viem/accounts');
  return startReferenceSolvers({
    manifest: {
      environment: 'sandbox',
      manifestVersion: 1,
      stateDir,
      chains: chains(),
      accounts: { solvers: SOLVER_KEYS.map((privateKey) => ({ privateKey, address: privateKeyToAccount(privateKey).address })) },
      api: { url: service.url, wsUrl: service.wsUrl, workspaceId, apiKeys: [apiKey] },
      startedAt: new Date().toISOString(),
    },
    count: 3,
    seed: 1,
    strategies: [{ latencyMs: 0 }, { latencyMs: 0 }, { latencyMs: 0 }],
  });
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export async function run() {
  const { createService } = await import(pathToFileURL(join(ROOT, 'dist/src/service/app.js')).href);
  const { TestClock } = await import(pathToFileURL(join(ROOT, 'dist/src/clock/index.js')).href);

  const folder = tempDir('bench-auction-');
  const service = await createService({
    environment: 'sandbox',
    chains: chains(),
    storePath: join(folder.dir, 'service.sqlite'),
    clock: new TestClock({ ticking: true }),
    logger: { level: 'silent' },
  });
  let solvers;
  try {
    const { workspaceId, apiKey } = service.bootstrapWorkspace('bench');
    solvers = await startInstantSolvers(service, { workspaceId, apiKey }, folder.dir);
    const sentAt = new Map();
    for (const solver of solvers.solvers) {
      solver.onEvent((event) => {
        // With no simulated latency a reference solver sends its quote in the same tick it hears the RFQ.
        if (event.type === 'rfq') sentAt.set(event.rfqId, Math.max(sentAt.get(event.rfqId) ?? 0, performance.now()));
      });
    }
    const body = QUOTE_BODY;
    const request = async () => {
      const started = performance.now();
      const response = await fetch(`${service.url}/api/v1/quotes`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${apiKey}` },
        body,
      });
      const text = await response.text();
      const done = performance.now();
      if (response.status !== 200) throw new Error(`POST /quotes answered ${response.status}: ${text}`);
      const parsed = JSON.parse(text);
      if (parsed.quotes.length !== 3) throw new Error(`expected 3 quotes, got ${parsed.quotes.length}`);
      return { latency: done - started, overhead: done - sentAt.get(parsed.rfqId) };
    };
    for (let i = 0; i < WARM_UP; i++) await request();
    const latencies = [];
    const overheads = [];
    for (let i = 0; i < REQUESTS; i++) {
      const { latency, overhead } = await request();
      latencies.push(latency);
      overheads.push(overhead);
    }
    // The floor: the same client's round trip to the same server for a route that does nothing (GET /health).
    const floors = [];
    for (let i = 0; i < REQUESTS; i++) {
      const started = performance.now();
      const response = await fetch(`${service.url}/api/v1/health`);
      await response.text();
      floors.push(performance.now() - started);
    }
    const floor50 = percentile(floors, 50);
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    const o50 = percentile(overheads, 50);
    const o99 = percentile(overheads, 99);
    return [
      {
        benchmark: 'POST /quotes, 3 reference solvers answering at once',
        result: `p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms vs GET /health p50 ${floor50.toFixed(2)} ms`,
        detail: `${REQUESTS} sequential requests after ${WARM_UP} warm-up; file-backed SQLite; mean ${(latencies.reduce((a, b) => a + b, 0) / REQUESTS).toFixed(2)} ms`,
        values: { p50Ms: p50, p99Ms: p99, medianMs: median(latencies), requests: REQUESTS, floorP50Ms: floor50 },
      },
      {
        benchmark: 'auction overhead over the slowest solver answer',
        result: `p50 ${o50.toFixed(2)} ms, p99 ${o99.toFixed(2)} ms vs GET /health p50 ${floor50.toFixed(2)} ms`,
        detail: `last quote sent → ranked response received; goal p50 ≤ ${GOAL_OVERHEAD_P50_MS} ms`,
        values: { p50Ms: o50, p99Ms: o99, goalP50Ms: GOAL_OVERHEAD_P50_MS, meetsGoal: o50 <= GOAL_OVERHEAD_P50_MS },
      },
    ];
  } finally {
    await solvers?.stop();
    await service.stop();
    folder.remove();
  }
}
