// POST /quotes throughput with 1 and with 2 service instances behind one port (the product's cluster primary,
// dist/src/sandbox/service-cluster.js, as `sandbox up --instances N` runs it) on one local Postgres, and the same
// single process on SQLite, in one run: the 3 reference solvers answering at once connect through the shared port
// (so each auction usually crosses instances), IN_FLIGHT requests at a time. The floor is the single instance on
// Postgres (the goal: 2 instances ≥ 1.5× one).
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, tempDir } from '../lib.mjs';
import { openQuoteChains, quoteChains, startInstantSolvers } from './20-auction.mjs';
import { quotesPerSecond, throughput } from './25-store.mjs';

export const name = 'instances';
export const description = 'POST /quotes throughput: SQLite, 1 and 2 instances on Postgres behind one port';

const REQUESTS = Number(process.env.BENCH_INSTANCES_REQUESTS ?? 600);
const IN_FLIGHT = 16;
const WARM_UP = 60;

const load = (path) => import(pathToFileURL(join(ROOT, 'dist', path)).href);

const measure = (api) => quotesPerSecond(api, { requests: REQUESTS, inFlight: IN_FLIGHT, warmUp: WARM_UP });

async function cluster(instances, databaseUrl, { createSchema }) {
  const { startServiceCluster } = await load('src/sandbox/service-cluster.js');
  const folder = tempDir('bench-instances-');
  // A database per measurement: the instances share it, the next measurement starts empty.
  const database = `bench_${instances}_${Date.now()}`;
  await createSchema(database);
  const url = databaseUrl.replace(/\/[^/]+$/, `/${database}`);
  // A devnet per measurement, as in the store row (scripts/bench/rows/25-store.mjs).
  const chains = await openQuoteChains();
  const started = await startServiceCluster({
    instances,
    stateDir: folder.dir,
    environment: 'sandbox',
    chains: await quoteChains(),
    databaseUrl: url,
    logLevel: 'silent',
    workerEntry: { path: join(ROOT, 'scripts/bench/instance-worker.mjs'), execArgv: [] },
  });
  let solvers;
  try {
    solvers = await startInstantSolvers(started.api, { workspaceId: started.api.workspaceId, apiKey: started.api.apiKeys[0] }, folder.dir);
    // Every solver is known to every instance before the first request (presence is in the store).
    await new Promise((resolve) => setTimeout(resolve, 500));
    return await measure(started.api);
  } finally {
    await solvers?.stop();
    await started.stop();
    await chains.close();
    folder.remove();
  }
}

export async function run() {
  const { startScratchPostgres } = await load('src/service/store/postgres/local-server.js');
  const { default: pg } = await import('pg');
  const server = await startScratchPostgres({ prefix: 'bench-instances-pg-', ephemeral: process.env.BENCH_PG_EPHEMERAL === '1' });
  const createSchema = async (database) => {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    await client.query(`CREATE DATABASE ${database}`);
    await client.end();
  };
  try {
    const onSqlite = await throughput({}, { requests: REQUESTS, inFlight: IN_FLIGHT, warmUp: WARM_UP });
    const one = await cluster(1, server.url, { createSchema });
    const two = await cluster(2, server.url, { createSchema });
    return [
      {
        benchmark: 'POST /quotes throughput, 2 service instances on Postgres',
        result: `${two.toFixed(0)} quotes/s vs 1 instance ${one.toFixed(0)} quotes/s (×${(two / one).toFixed(2)}); SQLite ${onSqlite.toFixed(0)} quotes/s`,
        detail: `same run, ${REQUESTS} requests, ${IN_FLIGHT} in flight; instances behind one port (Node cluster), local Postgres (default durability); 3 reference solvers through the same port; goal 2 instances ≥ 1.5× one ${two / one >= 1.5 ? 'met' : 'MISSED'}`,
        values: { twoInstances: two, oneInstance: one, sqlite: onSqlite, ratio: two / one, requests: REQUESTS, inFlight: IN_FLIGHT },
      },
    ];
  } finally {
    await server.stop();
  }
}
