// Worker thread of the `settlement` bench row: the takers and the solvers, the service's clients, on their own
// event loop (in a deployment they are other processes). The main thread runs the service and tells this thread
// which orders settled; this thread asks for quotes, signs, submits orders, and reports the elapsed time.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import { threadId } from './cpu.mjs';

const { root, api, manifest, takerKeys, orders, inFlight, warmUp, solverKind, amount } = workerData;
const load = (path) => import(pathToFileURL(join(root, 'dist', path)).href);

const { RestClient } = await load('src/clients/rest-client.js');
const { typedDataFromJson } = await load('src/contracts/typed-data.js');
const { startReferenceSolvers } = await load('src/solvers/index.js');
const { TestSolver } = await load('test/support/settlement/test-solver.js');
const { privateKeyToAccount } = await import('viem/accounts');

const [alpha, beta] = manifest.chains;
const usdc = (chain) => chain.tokens.find((t) => t.symbol === 'USDC').address;
const takers = takerKeys.map((key) => privateKeyToAccount(key));
const rest = new RestClient({ baseUrl: api.url, apiKey: api.apiKeys[0] });

// The main thread reads this thread's CPU from /proc by its task id.
parentPort.postMessage({ thread: threadId() });

const settled = new Set();
const waiting = new Map();
parentPort.on('message', (message) => {
  if (message.settled === undefined) return;
  settled.add(message.settled);
  waiting.get(message.settled)?.();
});

async function pool(count, concurrency, task) {
  const started = performance.now();
  let next = 0;
  const worker = async (slot) => {
    while (next < count) await task(next++, slot);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, (_, slot) => worker(slot)));
  return performance.now() - started;
}

// Equal prices and no simulated latency: the quickest answer wins, so orders may spread over the solvers.
let stop;
let accountOf;
if (solverKind === 'reference') {
  const strategy = { latencyMs: 0, marginBps: 5, gasCost: 0.1 };
  const solvers = await startReferenceSolvers({ manifest: { ...manifest, api }, count: 3, strategies: [strategy, strategy, strategy] });
  const index = new Map(solvers.solvers.map((s, i) => [s.solverId, i]));
  accountOf = (solverId) => index.get(solverId);
  stop = () => solvers.stop();
} else {
  const solvers = [];
  for (const account of manifest.accounts.solvers.slice(0, 3)) {
    const solver = new TestSolver({
      url: api.url,
      apiKey: api.apiKeys[0],
      privateKey: account.privateKey,
      chains: manifest.chains,
      feeBps: 5n,
    });
    await solver.start();
    solvers.push(solver);
  }
  const index = new Map(solvers.map((s, i) => [s.solverId, i]));
  accountOf = (solverId) => index.get(solverId);
  stop = async () => {
    for (const solver of solvers) await solver.stop();
  };
}

const winners = [];
const lifecycle = async (i, record, slot) => {
  const taker = takers[slot];
  const response = await rest.requestQuotes({
    inputToken: usdc(alpha),
    outputToken: usdc(beta),
    inputAmount: amount,
    originChainId: alpha.chainId,
    destinationChainId: beta.chainId,
    lockType: 'Permit2Escrow',
    settlementPath: 'direct',
    user: taker.address,
  });
  const quote = response.quotes[0];
  const signature = await taker.signTypedData(typedDataFromJson(quote.typedData));
  const order = await rest.createOrder({ quoteId: quote.quoteId, signature, nonce: quote.nonce, user: taker.address });
  if (record) winners[i] = { solver: accountOf(quote.solverId), outputAmount: quote.outputAmount };
  if (!settled.has(order.orderId)) {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`order ${order.orderId} did not settle in 60 s`)), 60_000);
      waiting.set(order.orderId, () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
  waiting.delete(order.orderId);
};

try {
  await pool(warmUp, inFlight, (i, slot) => lifecycle(i, false, slot));
  // The main thread samples the service's own counters from here to the result (warm-up excluded).
  parentPort.postMessage({ measuring: true });
  const ms = await pool(orders, inFlight, (i, slot) => lifecycle(i, true, slot));
  await stop();
  parentPort.postMessage({ ms, winners });
} catch (error) {
  await stop().catch(() => undefined);
  parentPort.postMessage({ error: error.message });
}
