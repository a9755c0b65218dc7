// POST /quotes throughput with the service's store on SQLite (the embedded default, a WAL file) and on Postgres (a
// local server started for the run, default durability), same process, same 3 reference solvers answering at once,
// IN_FLIGHT requests at a time. Each quote writes an RFQ, its invitations and quotes, ledger entries and outbox
// events in one transaction, so this is the store's share of the busiest route. The floor is the SQLite figure.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, tempDir } from '../lib.mjs';
import { openQuoteChains, quoteBody, quoteChains, startInstantSolvers } from './20-auction.mjs';

export const name = 'store';
export const description = 'POST /quotes throughput, store on SQLite vs Postgres, 3 reference solvers';

const REQUESTS = Number(process.env.BENCH_STORE_REQUESTS ?? 600);
const IN_FLIGHT = 8;
const WARM_UP = 50;

const load = (path) => import(pathToFileURL(join(ROOT, 'dist', path)).href);

/**
 * `POST /quotes` per second against `api` (the workspace's first key): `warmUp` requests, then `requests` timed,
 * `inFlight` at a time. Every answer must be a 200 with quotes. `timed.start()` runs just before the timed requests
 * and `timed.stop()` just after them (e.g. to read the store's write-lock occupancy over exactly those quotes).
 */
export async function quotesPerSecond(api, { requests, inFlight, warmUp }, timed = { start() {}, stop() {} }) {
  const body = await quoteBody();
  const quote = async () => {
    const response = await fetch(`${api.url}/api/v1/quotes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.apiKeys[0]}`, 'content-type': 'application/json' },
      body,
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
  // The solvers subscribe and read their balances after they start: wait (10 s at most) until one quote comes back.
  for (let tries = 1; ; tries++) {
    try {
      await quote();
      break;
    } catch (error) {
      if (tries >= 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  await burst(warmUp);
  timed.start();
  const elapsed = await burst(requests);
  timed.stop();
  return (requests / elapsed) * 1_000;
}

/**
 * POST /quotes per second of one in-process service, on SQLite (`{}`) or on the Postgres database `store.url`;
 * `onWriteLock(occupancy, quotesPerSecond)`, if given, gets the Postgres store's write-lock occupancy over the timed
 * quotes.
 */
export async function throughput(store, burst = { requests: REQUESTS, inFlight: IN_FLIGHT, warmUp: WARM_UP }, onWriteLock) {
  const { createService } = await load('src/service/app.js');
  const { TestClock } = await load('src/clock/index.js');
  const folder = tempDir('bench-store-');
  // A devnet per measurement: on one shared by two measurements of 600 quotes the second one's solvers stopped
  // quoting (corridor_unavailable) after a few hundred; a fresh one costs a few seconds outside the timed part.
  const chains = await openQuoteChains();
  const service = await createService({
    environment: 'sandbox',
    chains: await quoteChains(),
    storePath: join(folder.dir, 'service.sqlite'),
    ...(store.url === undefined ? {} : { databaseUrl: store.url }),
    clock: new TestClock({ ticking: true }),
    logger: { level: 'silent' },
    // The figure is the store's; the rate limiter would cap it first.
    rateLimit: { perSecond: 1_000_000, burst: 1_000_000 },
    // An auction closes as soon as all 3 solvers answered; the longer window only keeps a balance read that a loaded
    // machine made slow (the solvers read the chain, src/solvers/inventory.ts) from ending the run with a 422.
    auction: { windowMs: 2_000 },
  });
  let solvers;
  try {
    const { workspaceId, apiKey } = service.bootstrapWorkspace('bench');
    solvers = await startInstantSolvers(service, { workspaceId, apiKey }, folder.dir);
    const lock = writeLockWindow(service.store.db);
    const rate = await quotesPerSecond({ url: service.url, apiKeys: [apiKey] }, burst, lock);
    if (onWriteLock !== undefined && lock.occupancy() !== undefined) onWriteLock(lock.occupancy(), rate);
    return rate;
  } finally {
    await solvers?.stop();
    await service.stop();
    await chains.close();
    folder.remove();
  }
}

/**
 * The store's write-lock occupancy between `start()` and `stop()` (a Postgres store's running totals,
 * src/service/store/postgres/database.ts); `occupancy()` is undefined on SQLite or before `stop()`.
 */
export function writeLockWindow(db) {
  const read = () => (db.writeLockOccupancy === undefined ? undefined : { ...db.writeLockOccupancy, at: performance.now() });
  let from;
  let delta;
  return {
    start() {
      from = read();
    },
    stop() {
      const to = read();
      if (from === undefined || to === undefined) return;
      delta = {
        holds: to.holds - from.holds,
        heldMs: to.heldMs - from.heldMs,
        waitedMs: to.waitedMs - from.waitedMs,
        commitMs: to.commitMs - from.commitMs,
        wallMs: to.at - from.at,
      };
    },
    occupancy: () => delta,
  };
}

/**
 * The serial share of `operations` (quotes, lifecycles) run by one instance in `occupancy.wallMs`: the lock held per
 * operation, the share of the instance's time it was held (Amdahl's serial fraction s), and the throughput N
 * instances on N cores would reach by Amdahl's law, X(N) = X(1) / (s + (1 − s) / N), bounded by 1 / (held per op).
 */
export function serialShare(occupancy, operations, perSecond) {
  const heldMsPerOperation = occupancy.heldMs / operations;
  const serialFraction = Math.min(1, (heldMsPerOperation * perSecond) / 1_000);
  const amdahl = Object.fromEntries([1, 2, 4, 8, 16].map((n) => [n, perSecond / (serialFraction + (1 - serialFraction) / n)]));
  return {
    operations,
    holdsPerOperation: occupancy.holds / operations,
    heldMsPerOperation,
    waitedMsPerOperation: occupancy.waitedMs / operations,
    commitMsPerOperation: occupancy.commitMs / operations,
    serialFraction,
    amdahlPerSecond: amdahl,
    limitPerSecond: 1_000 / heldMsPerOperation,
  };
}

/** One line for a row's detail: the lock held per operation, the serial share, and Amdahl's N-instance figures. */
export function serialShareText(share, unit) {
  const f = (v) => v.toFixed(0);
  return `write lock held ${share.heldMsPerOperation.toFixed(2)} ms per ${unit} (${share.holdsPerOperation.toFixed(1)} holds, ${share.commitMsPerOperation.toFixed(2)} ms of it in COMMIT; ${share.waitedMsPerOperation.toFixed(2)} ms taking it), serial share ${(share.serialFraction * 100).toFixed(1)} % of one instance's time; Amdahl, N instances on N cores: ${[2, 4, 8, 16].map((n) => `${n}: ${f(share.amdahlPerSecond[n])}/s`).join(', ')}, limit ${f(share.limitPerSecond)}/s`;
}

export async function run() {
  const { startScratchPostgres } = await load('src/service/store/postgres/local-server.js');
  // Default durability, as `sandbox up --database postgres` runs it (BENCH_PG_EPHEMERAL=1: fsync off, to compare).
  const server = await startScratchPostgres({ prefix: 'bench-pg-', ephemeral: process.env.BENCH_PG_EPHEMERAL === '1' });
  try {
    const sqlite = await throughput({});
    let share;
    const postgres = await throughput({ url: server.url }, undefined, (occupancy, rate) => {
      share = serialShare(occupancy, REQUESTS, rate);
    });
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
        detail: `same run, one instance, local Postgres (default durability) over loopback TCP; ${serialShareText(share, 'quote')}`,
        values: { quotesPerSecond: postgres, floorQuotesPerSecond: sqlite, ratio: postgres / sqlite, writeLock: share },
      },
    ];
  } finally {
    await server.stop();
  }
}
