// POST /quotes throughput with the service's store on SQLite (the embedded default, a WAL file) and on Postgres (a
// local server started for the run, default durability), same process, same 3 reference solvers answering at once,
// IN_FLIGHT requests at a time. Each quote writes an RFQ, its invitations and quotes, ledger entries and outbox
// events in one transaction, so this is the store's share of the busiest route. The floor is the SQLite figure.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, tempDir } from '../lib.mjs';
import { chains, QUOTE_BODY, startInstantSolvers } from './20-auction.mjs';

export const name = 'store';
export const description = 'POST /quotes throughput, store on SQLite vs Postgres, 3 reference solvers';

const REQUESTS = Number(process.env.BENCH_STORE_REQUESTS ?? 600);
const IN_FLIGHT = 8;
const WARM_UP = 50;

const load = (path) => import(pathToFileURL(join(ROOT, 'dist', path)).href);

/**
 * `POST /quotes` per second against `api` (the workspace's first key): `warmUp` requests, then `requests` timed,
 * `inFlight` at a time. Every answer must be a 200 with quotes.
 */
export async function quotesPerSecond(api, { requests, inFlight, warmUp }) {
  const quote = async () => {
    const response = await fetch(`${api.url}/api/v1/quotes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.apiKeys[0]}`, 'content-type': 'application/json' },
      body: QUOTE_BODY,
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`POST /quotes answered ${response.status}: ${text}`);
  };
  const burst = async (count) => {
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < count) {
          next += 1;
          await quote();
        }
      }),
    );
    return performance.now() - started;
  };
  await burst(warmUp);
  return (requests / (await burst(requests))) * 1_000;
}

/** POST /quotes per second of one in-process service, on SQLite (`{}`) or on the Postgres database `store.url`. */
export async function throughput(store, burst = { requests: REQUESTS, inFlight: IN_FLIGHT, warmUp: WARM_UP }) {
  const { createService } = await load('src/service/app.js');
  const { TestClock } = await load('src/clock/index.js');
  const folder = tempDir('bench-store-');
  const service = await createService({
    environment: 'sandbox',
    chains: chains(),
    storePath: join(folder.dir, 'service.sqlite'),
    ...(store.url === undefined ? {} : { databaseUrl: store.url }),
    clock: new TestClock({ ticking: true }),
    logger: { level: 'silent' },
    // The figure is the store's; the rate limiter would cap it first.
    rateLimit: { perSecond: 1_000_000, burst: 1_000_000 },
  });
  let solvers;
  try {
    const { workspaceId, apiKey } = service.bootstrapWorkspace('bench');
    solvers = await startInstantSolvers(service, { workspaceId, apiKey }, folder.dir);
    return await quotesPerSecond({ url: service.url, apiKeys: [apiKey] }, burst);
  } finally {
    await solvers?.stop();
    await service.stop();
    folder.remove();
  }
}

export async function run() {
  const { startScratchPostgres } = await load('src/service/store/postgres/local-server.js');
  // Default durability, as `sandbox up --database postgres` runs it (BENCH_PG_EPHEMERAL=1: fsync off, to compare).
  const server = await startScratchPostgres({ prefix: 'bench-pg-', ephemeral: process.env.BENCH_PG_EPHEMERAL === '1' });
  try {
    const sqlite = await throughput({});
    const postgres = await throughput({ url: server.url });
    return [
      {
        benchmark: 'POST /quotes throughput, store on SQLite',
        result: `${sqlite.toFixed(0)} quotes/s`,
        detail: `${REQUESTS} requests, ${IN_FLIGHT} in flight, file-backed SQLite (WAL)`,
        values: { quotesPerSecond: sqlite, requests: REQUESTS, inFlight: IN_FLIGHT },
      },
      {
        benchmark: 'POST /quotes throughput, store on Postgres',
        result: `${postgres.toFixed(0)} quotes/s vs SQLite ${sqlite.toFixed(0)} quotes/s (×${(postgres / sqlite).toFixed(2)})`,
        detail: `same run, one instance, local Postgres (default durability) over loopback TCP`,
        values: { quotesPerSecond: postgres, floorQuotesPerSecond: sqlite, ratio: postgres / sqlite },
      },
    ];
  } finally {
    await server.stop();
  }
}
