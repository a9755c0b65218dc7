// Fully settled lifecycles per second through the service — quote (real auction) → signed order → relayed deposit
// → fill → oracle relay (both legs) → claim, with N orders in flight — against the raw floor: the same five
// transactions per order (openFor, fill, OutputOracle.submit, InputOracle.receiveAttestation, finalise) sent
// straight to the same two anvils by this script, from the same accounts (the service relayers, the same winning
// solver per order) with the same number in flight, and no service. Row 1 uses the 3 reference solvers. Row 2
// replaces them with a minimal solver that sends like the floor does, to show the service's own share.
// The service runs on this thread; its clients (takers, solvers) on a worker thread, as other processes would.
// Row 3 runs row 1 again with the service's store on a local Postgres (one instance), against its own floor.
// Rows 4 and 5 run it through the product's cluster primary (`sandbox up --instances N`) on Postgres, with 1 and
// with 2 instances behind one port; the solvers and takers reach the instances through that port, and settled
// orders are read from the store (the service runs in other processes).
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { COMPONENT_NAMES, cpuSince, cpuSnapshot, loadAverage, monotonicMicros, startComponentProfile } from '../cpu.mjs';
import { ROOT, tempDir } from '../lib.mjs';
import { serialShare, serialShareText, writeLockWindow } from './25-store.mjs';

export const name = 'settlement';
export const description = 'settled lifecycles/s, quote → claim, 3 solvers, vs the raw floor of the same transactions';

const ORDERS = Number(process.env.BENCH_SETTLEMENT_ORDERS ?? 150);
const IN_FLIGHT = Number(process.env.BENCH_SETTLEMENT_IN_FLIGHT ?? 12);
/**
 * Orders run before measuring, by the service and then by the floor (from the same chain state). V8 compiles hot
 * code in threads of its own while a run warms up: after 10 orders the service's compiler threads still cost about
 * 5 CPU-ms per order, and the floor, which does less, warms up more slowly (its other threads cost 3.5 ms per order
 * after 50, 2.2 after 300, 1.4 when the whole bench ran before it). Neither pays that per order when it runs for
 * hours: at 50 orders the ratio read ×1.4–×1.7, at 300 ×1.7–×1.9 (docs/settlement-throughput.md).
 */
const WARM_UP = Number(process.env.BENCH_SETTLEMENT_WARM_UP ?? 300);
/** Which rows to run (comma-separated: reference, minimal, postgres, cluster); all by default. */
const ROWS = new Set((process.env.BENCH_SETTLEMENT_ROWS ?? 'reference,minimal,postgres,cluster').split(','));
const GOAL_RATIO = 0.8;
const AMOUNT = 10_000_000_000n;
const PERMIT2 = '0x000000000022D473030F116dDEE9F6B43aC78BA3';
const load = (path) => import(pathToFileURL(join(ROOT, 'dist', path)).href);

/**
 * Counts the top-level transactions of an in-process service's store (nested ones are savepoints of the same
 * commit) between start() and stop(). With BENCH_TRANSACTION_SITES=1 each is also charged to the first frames of
 * service code that opened it, to find where an order's commits come from.
 */
function countTransactions(db) {
  const sites = process.env.BENCH_TRANSACTION_SITES === '1';
  const original = db.transaction.bind(db);
  let depth = 0;
  let counting = false;
  let count = 0;
  const bySite = new Map();
  db.transaction = (fn, options) => {
    if (depth === 0 && counting) {
      count += 1;
      if (sites) {
        const frames = (new Error().stack ?? '')
          .split('\n')
          .slice(1)
          .map((line) => line.trim().replace(/^at /, ''))
          .filter((line) => line.includes('/src/service/') && !line.includes('/store/'))
          .slice(0, 3)
          .map((line) => line.replace(/\(.*\/src\/service\//, '(').replace(/:\d+\)$/, ')'))
          .join(' < ');
        bySite.set(frames, (bySite.get(frames) ?? 0) + 1);
      }
    }
    depth += 1;
    try {
      return original(fn, options);
    } finally {
      depth -= 1;
    }
  };
  return {
    start() {
      count = 0;
      bySite.clear();
      counting = true;
    },
    stop() {
      counting = false;
      return { count, ...(sites ? { sites: Object.fromEntries([...bySite].sort((a, b) => b[1] - a[1])) } : {}) };
    },
  };
}

/** Runs `count` tasks on `concurrency` workers (task(i, worker)); resolves with the elapsed wall milliseconds. */
async function pool(count, concurrency, task) {
  const started = performance.now();
  let next = 0;
  const worker = async (slot) => {
    while (next < count) await task(next++, slot);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, (_, slot) => worker(slot)));
  return performance.now() - started;
}

export async function run() {
  const { startSandbox } = await load('src/sandbox/sandbox.js');
  const { readChainTime } = await load('src/devnet/chain-time.js');
  const { createService } = await load('src/service/app.js');
  const { TestClock } = await load('src/clock/index.js');
  const { devnetChainTime } = await load('src/sandbox/service-component.js');
  const { toAbiOrder, addressToBytes32 } = await load('src/contracts/order.js');
  const { SerialSender } = await load('test/support/settlement/serial-sender.js');
  const { encodeCall } = await load('src/contracts/function-call.js');
  const { buildStandardOrder, typedDataFor, onchainOrderId } = await load('src/contracts/standard-order.js');
  const tx = await load('src/service/settlement/transactions.js');
  // mint and approve, from the compiled token artifact the sandbox deploys.
  const { sandboxStablecoinAbi: TOKEN_ABI } = await load('src/contracts/stablecoin.js');
  const { OutputSettlerArtifact, InputSettlerEscrowArtifact } = await load('src/contracts/artifacts/index.js');
  const { generatePrivateKey, privateKeyToAccount } = await import('viem/accounts');
  const { decodeEventLog, encodeAbiParameters, encodeFunctionData, getAddress } = await import('viem');

  const folder = tempDir('bench-settlement-');
  const sandbox = await startSandbox({});
  const { manifest } = sandbox;
  const [alpha, beta] = manifest.chains;
  const usdc = (chain) => chain.tokens.find((t) => t.symbol === 'USDC').address;

  // Nonces rise per user, so a taker has one order in flight at a time: one funded taker per in-flight slot. Each
  // service (store) gets takers of its own: a new store knows nothing of the Permit2 nonces an earlier one used.
  const minter = new SerialSender(manifest.accounts.deployer[0].privateKey, alpha.chainId, alpha.rpcUrl);
  const betaMinter = new SerialSender(manifest.accounts.deployer[0].privateKey, beta.chainId, beta.rpcUrl);
  const longLivedSenders = [minter, betaMinter];
  let takers = [];
  async function fundTakers() {
    const funded = [];
    for (let i = 0; i < IN_FLIGHT; i++) {
      const key = generatePrivateKey();
      const account = privateKeyToAccount(key);
      await minter.client.request({ method: 'anvil_setBalance', params: [account.address, '0x8ac7230489e80000'] });
      const mint = encodeFunctionData({
        abi: TOKEN_ABI,
        functionName: 'mint',
        args: [account.address, AMOUNT * BigInt(4 * (ORDERS + WARM_UP))],
      });
      if ((await minter.send(usdc(alpha), mint, 200_000n)).status !== 'success') throw new Error('mint reverted');
      const approve = encodeFunctionData({ abi: TOKEN_ABI, functionName: 'approve', args: [PERMIT2, 2n ** 256n - 1n] });
      if ((await new SerialSender(key, alpha.chainId, alpha.rpcUrl).send(usdc(alpha), approve, 100_000n)).status !== 'success')
        throw new Error('approve reverted');
      funded.push({ address: account.address, account, key });
    }
    return funded;
  }
  takers = await fundTakers();

  async function startService(databaseUrl, storeFile = 'service.sqlite') {
    const offset = Math.max(0, ...(await readChainTime(sandbox.chains)).map((c) => c.offsetSeconds));
    clock = new TestClock({ ticking: true, start: Date.now() + offset * 1_000 });
    service = await createService({
      environment: 'sandbox',
      chains: manifest.chains,
      storePath: join(folder.dir, databaseUrl === undefined ? storeFile : 'unused.sqlite'),
      ...(databaseUrl === undefined ? {} : { databaseUrl }),
      clock,
      chainTime: devnetChainTime(sandbox.chains),
      logger: { level: 'silent' },
      settlement: {
        serviceRelayer: { privateKey: manifest.accounts.serviceRelayer[0].privateKey },
        oracleRelayer: { privateKey: manifest.accounts.oracleRelayer[0].privateKey },
      },
      // An auction closes as soon as all 3 solvers answered; the longer window only keeps a balance read that a loaded
      // machine made slow (the reference solvers read the chain before they quote) from failing the run with a 422.
      auction: { windowMs: 2_000 },
    });
    ({ workspaceId, apiKey } = service.bootstrapWorkspace('bench'));
    transactions = countTransactions(service.store.db);
    service.module('evidence').outbox.onCommitted((event) => {
      if (event.envelope.type === 'order.settled') forward(event.orderId);
    });
  }
  let clock;
  let service;
  /** The service clock's now (in-process: its clock; a cluster: asked over HTTP). */
  let serviceNow = async () => clock.now();
  /** The store the breakdown reads: the in-process service's, or a connection of our own to a cluster's database. */
  let storeDb = () => service.store.db;
  let workspaceId;
  let apiKey;
  let forward = () => undefined;
  /** Top-level store transactions of the in-process service (undefined through a cluster). */
  let transactions;
  await startService(undefined);

  /**
   * The chains' state now (`evm_snapshot` on each), and going back to it: the floor runs from the state the service's
   * run started from. A chain costs more CPU per block the more state it holds (docs/devnet.md), so a floor sent
   * after the service's orders, on chains grown by them, would be charged for them.
   */
  const snapshotChains = () => Promise.all(sandbox.chains.map((chain) => chain.rpc.call('evm_snapshot', [])));
  const revertChains = async (ids) =>
    (await Promise.all(sandbox.chains.map((chain, i) => chain.rpc.call('evm_revert', [ids[i]])))).every((done) => done === true);

  /**
   * Every row starts from the chains' state the first row started from. Each row grows the chains by about 900
   * orders (its service's and its floor's warm-up and measurement); a later row on grown chains paid for them on both
   * sides, which moved its ratio towards 1 (the minimal row read ×0.75 with chains costing 12.7 ms per order against
   * the reference row's 7.7). Going back to a snapshot uses it up, so a new one is taken at once.
   */
  let rowStart = await snapshotChains();
  /** How the next row's chains relate to the first row's: `first`, `same` (reverted) or `grown` (snapshot gone). */
  let rowChains = 'first';
  async function backToRowStart() {
    const done = await revertChains(rowStart).catch(() => false);
    rowStart = await snapshotChains();
    rowChains = done ? 'same' : 'grown';
    // The long-lived senders counted their nonces on the chains as they were.
    for (const sender of longLivedSenders) sender.forgetNonce();
  }

  /** ORDERS lifecycles through the service after a warm-up, driven from a worker thread; the winner of each. */
  async function throughService(solverKind) {
    const startedOn = rowChains;
    const chainsAtStart = await snapshotChains();
    const since = await serviceNow();
    // The profile of an in-process service's thread starts before the warm-up, out of the measured CPU (see
    // startComponentProfile); its shares count from the measurement's start. A cluster's service runs elsewhere.
    const profile = service.module?.('settlement')?.engine === undefined ? undefined : await startComponentProfile().catch(() => undefined);
    const worker = new Worker(join(ROOT, 'scripts/bench/settlement-clients.mjs'), {
      workerData: {
        root: ROOT,
        api: { url: service.url, wsUrl: service.wsUrl, workspaceId, apiKeys: [apiKey] },
        manifest,
        takerKeys: takers.map((t) => t.key),
        orders: ORDERS,
        inFlight: IN_FLIGHT,
        warmUp: WARM_UP,
        solverKind,
        amount: AMOUNT.toString(),
      },
    });
    forward = (orderId) => worker.postMessage({ settled: orderId });
    try {
      let measuredFrom;
      let clientsThread;
      let cpuFrom;
      let profileFrom;
      // An in-process service on Postgres: how long its transactions held the store's write lock per lifecycle.
      const lock = writeLockWindow(service.store?.db ?? {});
      const result = await new Promise((resolve, reject) => {
        worker.on('message', (message) => {
          if (message.thread !== undefined) clientsThread = message.thread;
          else if (message.measuring) {
            measuredFrom = serviceLoad();
            cpuFrom = { snapshot: cpuSnapshot(), load: loadAverage() };
            profileFrom = monotonicMicros();
            lock.start();
            transactions?.start();
          } else resolve(message);
        });
        worker.once('error', reject);
        worker.once('exit', (code) => reject(new Error(`the client thread exited with ${code}`)));
      });
      lock.stop();
      const stores = transactions?.stop();
      const cpu = cpuFrom === undefined ? undefined : cpuSince(cpuFrom.snapshot);
      // Only an in-process service runs on this thread: a cluster's is in other processes.
      const components = await profile?.stop(profileFrom);
      if (result.error) throw new Error(result.error);
      return {
        chainsAtStart,
        startedOn,
        // The local Postgres server is a child process of this one: its CPU is counted with the chains'.
        onPostgres: postgres !== undefined,
        cpu: cpu === undefined ? undefined : serviceCpu(cpu, clientsThread, components, cpuFrom.load),
        load: measuredFrom === undefined ? undefined : loadSince(measuredFrom),
        breakdown: breakdown(since),
        ms: result.ms,
        writeLock: lock.occupancy(),
        storeTransactions: stores,
        winners: result.winners.map((w) => ({ solver: manifest.accounts.solvers[w.solver], outputAmount: BigInt(w.outputAmount) })),
      };
    } finally {
      forward = () => undefined;
      await profile?.stop().catch(() => undefined);
      await worker.terminate();
    }
  }

  /**
   * What limits an in-process service (undefined through a cluster, whose service runs in other processes): how
   * busy its thread's event loop was, and how busy each relayer account's send lane was (sends are one at a time
   * per account, src/service/settlement/relayer.ts), with the average time a send held its lane.
   */
  function serviceLoad() {
    const engine = service.module?.('settlement')?.engine;
    if (engine === undefined) return undefined;
    return { at: performance.now(), elu: performance.eventLoopUtilization(), lanes: engine.relayLanes() };
  }
  function loadSince(from) {
    const to = serviceLoad();
    if (from === undefined || to === undefined) return undefined;
    const wallMs = to.at - from.at;
    const name = (chainId) => manifest.chains.find((c) => c.chainId === chainId)?.name ?? String(chainId);
    return {
      serviceThreadBusy: performance.eventLoopUtilization(to.elu, from.elu).utilization,
      lanes: to.lanes
        .map((lane) => {
          const before = from.lanes.find((l) => l.chainId === lane.chainId && l.role === lane.role);
          const tasks = lane.tasks - (before?.tasks ?? 0);
          const busyMs = lane.busyMs - (before?.busyMs ?? 0);
          return { lane: `${name(lane.chainId)} ${lane.role}`, tasks, busy: busyMs / wallMs, msPerTask: tasks === 0 ? 0 : busyMs / tasks };
        })
        .filter((lane) => lane.tasks > 0),
    };
  }
  const loadText = (load) =>
    load === undefined
      ? ''
      : `; service thread busy ${(load.serviceThreadBusy * 100).toFixed(0)} %; relayer send lanes busy: ${load.lanes
          .map(
            (l) =>
              `${l.lane} ${(l.busy * 100).toFixed(0)} % (${l.msPerTask.toFixed(1)} ms per send, ${(l.tasks / ORDERS).toFixed(2)} sends per order)`,
          )
          .join(', ')}`;

  /**
   * CPU-ms per settled order through the service, by where it ran: the service's thread (this one, for an
   * in-process service), the clients' thread, this process's other threads (V8's compiler and GC helpers, libuv)
   * and the child processes (the anvils; for a cluster, also its instances and Postgres). The service's thread is
   * split by component with the profile's shares of its busy samples.
   */
  function serviceCpu(cpu, clientsThread, components, load) {
    const per = (ms) => ms / ORDERS;
    const sum = (values) => [...values].reduce((a, b) => a + b, 0);
    const serviceThread = cpu.threads.get(process.pid) ?? 0;
    const clients = cpu.threads.get(clientsThread) ?? 0;
    const otherThreads = sum(cpu.threads.values()) - serviceThread - clients;
    const children = sum(cpu.children.values());
    const inProcess = components !== undefined;
    return {
      loadAverage: load,
      serviceMsPerOrder: inProcess ? per(serviceThread) : undefined,
      clientsMsPerOrder: per(clients),
      otherThreadsMsPerOrder: per(inProcess ? otherThreads : otherThreads + serviceThread),
      childProcessesMsPerOrder: per(children),
      totalMsPerOrder: per(sum(cpu.threads.values()) + children),
      // The sampling profiler's own thread: measurement, not service; the floor runs without one.
      profilerMsPerOrder: per(cpu.profilerMs),
      serviceComponentsMsPerOrder: inProcess
        ? Object.fromEntries(COMPONENT_NAMES.map((name) => [name, per(serviceThread) * (components[name] ?? 0)]))
        : undefined,
    };
  }

  /**
   * The floor's CPU-ms per order: its sender (this thread), this process's other threads, and the anvils. It starts
   * from the chains' state the service's run started from, and warms up as the service did: the same number of
   * orders first, out of the measurement (the JIT compiles the floor's code while it runs, as it compiled the
   * service's during its warm-up). Going back to a snapshot drops the later ones: each row's floor runs right after its
   * service's run.
   */
  async function measuredFloor(through) {
    const { winners } = through;
    const sameState = await revertChains(through.chainsAtStart).catch(() => false);
    if (sameState) {
      // The solvers' allowance to the output settler came with their first fill in the service's run: gone with it.
      const approve = encodeFunctionData({
        abi: TOKEN_ABI,
        functionName: 'approve',
        args: [beta.contracts.OutputSettler, 2n ** 256n - 1n],
      });
      for (const key of new Set(winners.map((w) => w.solver.privateKey))) {
        const approved = await new SerialSender(key, beta.chainId, beta.rpcUrl).send(usdc(beta), approve, 100_000n);
        if (approved.status !== 'success') throw new Error('floor: solver approve reverted');
      }
    }
    // As many warm-up orders as the service ran before its measurement (the winners again, in turn): V8 compiles the
    // floor's code in threads of its own while it warms up, as it did the service's.
    await floor(
      Array.from({ length: WARM_UP }, (_, i) => winners[i % winners.length]),
      WARM_UP,
    );
    const from = cpuSnapshot();
    const floorMs = await floor(winners);
    const cpu = cpuSince(from);
    const sum = (values) => [...values].reduce((a, b) => a + b, 0);
    const sender = cpu.threads.get(process.pid) ?? 0;
    const children = sum(cpu.children.values());
    return {
      floorMs,
      sameState,
      cpu: {
        senderMsPerOrder: sender / ORDERS,
        otherThreadsMsPerOrder: (sum(cpu.threads.values()) - sender) / ORDERS,
        childProcessesMsPerOrder: children / ORDERS,
        totalMsPerOrder: (sum(cpu.threads.values()) + children) / ORDERS,
      },
    };
  }
  const cpuText = (service, floorCpu, onPostgres) => {
    if (service === undefined) return '';
    const f = (v) => v.toFixed(1);
    const own =
      service.serviceMsPerOrder === undefined
        ? ''
        : `service thread ${f(service.serviceMsPerOrder)} (${Object.entries(service.serviceComponentsMsPerOrder)
            .map(([name, ms]) => `${name} ${f(ms)}`)
            .join(', ')}), `;
    return `; CPU-ms per settled order: ${own}clients ${f(service.clientsMsPerOrder)}, other threads ${f(service.otherThreadsMsPerOrder)}${service.profilerMsPerOrder > 0 ? ` (the profiler's own thread, ${f(service.profilerMsPerOrder)}, not counted)` : ''}, child processes (chains${service.serviceMsPerOrder === undefined ? ', instances, Postgres' : onPostgres ? ', Postgres' : ''}) ${f(service.childProcessesMsPerOrder)}, total ${f(service.totalMsPerOrder)} against the floor's ${f(floorCpu.totalMsPerOrder)} (sender ${f(floorCpu.senderMsPerOrder)}, other threads ${f(floorCpu.otherThreadsMsPerOrder)}, chains ${f(floorCpu.childProcessesMsPerOrder)}), ×${(service.totalMsPerOrder / floorCpu.totalMsPerOrder).toFixed(2)}; load average ${service.loadAverage.toFixed(2)} on ${availableParallelism()} cores`;
  };

  /** The same transactions from the same accounts, sent straight to the chains. */
  async function floor(winners, count = ORDERS) {
    const senders = new Map();
    const sender = (key, chain) => {
      const id = `${key}:${chain.chainId}`;
      // Over the chain's IPC socket and signed in libsecp256k1, as the service's relayers and the solvers send.
      if (!senders.has(id)) senders.set(id, new SerialSender(key, chain.chainId, chain.rpcUrl, { ipcPath: chain.ipcPath }));
      return senders.get(id);
    };
    const relayer = manifest.accounts.serviceRelayer[0].privateKey;
    const oracle = manifest.accounts.oracleRelayer[0].privateKey;
    const chainNow = Math.max(...(await readChainTime(sandbox.chains)).map((c) => c.timestamp + 1));
    const outputSettler = getAddress(beta.contracts.OutputSettler);
    const ok = (receipt, what) => {
      if (receipt.status !== 'success') throw new Error(`floor: ${what} reverted`);
      return receipt;
    };
    const elapsed = pool(count, IN_FLIGHT, async (i, slot) => {
      const { solver, outputAmount } = winners[i];
      const taker = takers[slot];
      const terms = {
        originChain: alpha,
        destinationChain: beta,
        inputToken: usdc(alpha),
        outputToken: usdc(beta),
        inputAmount: AMOUNT,
        outputAmount,
        lockType: 'Permit2Escrow',
        fillDeadline: chainNow + 3_600,
        expires: chainNow + 4_000,
      };
      const order = buildStandardOrder(terms, taker.address, BigInt(Date.now()) * 1_000_000n + BigInt(i));
      const orderId = onchainOrderId(terms, order);
      const signature = await taker.account.signTypedData(typedDataFor(terms, order));
      ok(
        await sender(relayer, alpha).send(
          alpha.contracts.InputSettlerEscrow,
          tx.openForCalldata('Permit2Escrow', order, signature),
          400_000n,
        ),
        'openFor',
      );
      const output = order.outputs[0];
      const solverId = addressToBytes32(solver.address);
      // encodeCall: the encoder the reference solvers use (the same bytes as viem's encodeFunctionData, cheaper).
      const fill = encodeCall({
        abi: OutputSettlerArtifact.abi,
        functionName: 'fill',
        args: [orderId, output, order.fillDeadline, encodeAbiParameters([{ type: 'bytes32' }], [solverId])],
      });
      const filled = ok(await sender(solver.privateKey, beta).send(outputSettler, fill, 400_000n), 'fill');
      const log = filled.logs.find((l) => getAddress(l.address) === outputSettler);
      const { timestamp } = decodeEventLog({ abi: OutputSettlerArtifact.abi, data: log.data, topics: log.topics }).args;
      const payload = tx.fillPayload({ solver: solverId, timestamp }, orderId, output);
      const submit = tx.oracleSubmitCalldata(output, payload);
      ok(await sender(oracle, beta).send(submit.to, submit.data, 200_000n), 'submit');
      const receive = tx.oracleReceiveCalldata(order.inputOracle, output, payload);
      ok(await sender(oracle, alpha).send(receive.to, receive.data, 250_000n), 'receiveAttestation');
      const finalise = encodeCall({
        abi: InputSettlerEscrowArtifact.abi,
        functionName: 'finalise',
        args: [toAbiOrder(order), [{ timestamp, solver: solverId }], solverId, '0x'],
      });
      ok(await sender(solver.privateKey, alpha).send(alpha.contracts.InputSettlerEscrow, finalise, 600_000n), 'finalise');
    });
    try {
      return await elapsed;
    } finally {
      for (const one of senders.values()) one.close();
    }
  }

  /**
   * Where an order's time goes through the service: median milliseconds (service clock) between its recorded
   * steps — quote → POST /orders → deposit on chain (relay mined and seen) → fill seen → attestation recorded on the
   * origin → claim seen — read from the service's own store for the orders settled since `since`.
   */
  function breakdown(since) {
    // The service's own store (SQLite or Postgres), read while it runs.
    const db = storeDb();
    {
      const rows = db
        .prepare(
          `SELECT o.quote_created_at AS quoted, o.created_at AS ordered,
                  MAX(CASE WHEN s.stage = 'deposited' THEN s.at END) AS deposited,
                  MAX(CASE WHEN s.stage = 'filled' THEN s.at END) AS filled,
                  MAX(CASE WHEN s.stage = 'attested' THEN s.at END) AS attested,
                  MAX(CASE WHEN s.stage = 'claimed' THEN s.at END) AS claimed
             FROM orders o JOIN order_stages s ON s.order_id = o.id
            WHERE o.status = 'Claimed' AND o.created_at >= ?
            GROUP BY o.id`,
        )
        .all(since);
      const steps = [
        ['quote→order', 'quoted', 'ordered'],
        ['order→deposited', 'ordered', 'deposited'],
        ['deposited→filled', 'deposited', 'filled'],
        ['filled→attested', 'filled', 'attested'],
        ['attested→claimed', 'attested', 'claimed'],
        ['quote→claimed', 'quoted', 'claimed'],
      ];
      const median = (values) => {
        const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
        return sorted.length === 0 ? Number.NaN : sorted[Math.floor(sorted.length / 2)];
      };
      return Object.fromEntries(steps.map(([label, from, to]) => [label, median(rows.map((r) => r[to] - r[from]))]));
    }
  }
  const breakdownText = (b) =>
    Object.entries(b)
      .map(([label, value]) => `${label} ${Number.isFinite(value) ? value.toFixed(0) : '?'}`)
      .join(', ');

  const rows = [];
  const rowChainsText = (startedOn) =>
    startedOn === 'same'
      ? '; the row started from the chains the first row started from'
      : startedOn === 'grown'
        ? '; the row ran on chains the rows before it had grown (their snapshot was gone)'
        : '';
  const report = (benchmark, through, measured, solversUsed) => {
    const { floorMs, cpu: floorCpu, sameState } = measured;
    const serviceRate = (ORDERS * 1_000) / through.ms;
    const floorRate = (ORDERS * 1_000) / floorMs;
    const ratio = serviceRate / floorRate;
    const accounts = new Set(through.winners.map((w) => w.solver.address)).size;
    const share = through.writeLock === undefined ? undefined : serialShare(through.writeLock, ORDERS, serviceRate);
    rows.push({
      benchmark,
      result: `${serviceRate.toFixed(1)}/s vs raw floor ${floorRate.toFixed(1)}/s (×${ratio.toFixed(2)})`,
      detail: `${ORDERS} Permit2Escrow orders after ${WARM_UP} of warm-up (each side), ${IN_FLIGHT} in flight, ${solversUsed}, ${accounts} winning account(s); goal ≥ ${GOAL_RATIO}× ${ratio >= GOAL_RATIO ? 'met' : 'MISSED'}; median ms per order: ${breakdownText(through.breakdown)}${through.storeTransactions === undefined ? '' : `; store transactions per settled order ${(through.storeTransactions.count / ORDERS).toFixed(1)}`}${loadText(through.load)}${cpuText(through.cpu, floorCpu, through.onPostgres)}; the floor ran ${sameState ? "from the chains' state the service's run started from" : "after the service's run, on the chains it grew (their snapshot was gone)"}${rowChainsText(through.startedOn)}${share === undefined ? '' : `; ${serialShareText(share, 'lifecycle')}`}`,
      values: {
        serviceRate,
        floorRate,
        ratio,
        orders: ORDERS,
        inFlight: IN_FLIGHT,
        serviceMs: through.ms,
        floorMs,
        goalRatio: GOAL_RATIO,
        meetsGoal: ratio >= GOAL_RATIO,
        medianStepMs: through.breakdown,
        ...(through.storeTransactions === undefined
          ? {}
          : {
              storeTransactionsPerOrder: through.storeTransactions.count / ORDERS,
              storeTransactionSites: through.storeTransactions.sites,
            }),
        ...(share === undefined ? {} : { writeLock: share }),
        ...(through.load === undefined ? {} : { serviceLoad: through.load }),
        ...(through.cpu === undefined
          ? {}
          : {
              cpuMsPerOrder: through.cpu,
              floorCpuMsPerOrder: floorCpu,
              cpuRatio: through.cpu.totalMsPerOrder / floorCpu.totalMsPerOrder,
            }),
      },
    });
  };
  /**
   * The service as `sandbox up --instances N` runs it (the product's cluster primary and workers, from dist/), on a
   * fresh database of `server`. Settled orders are read from that database and forwarded to the clients' thread.
   */
  async function startCluster(instances, server) {
    const { startServiceCluster } = await load('src/sandbox/service-cluster.js');
    const { serviceKeysOf } = await load('src/sandbox/service-config.js');
    const { PostgresDatabase } = await load('src/service/store/postgres/database.js');
    const { SyncPostgresConnection } = await load('src/service/store/postgres/sync-connection.js');
    const { default: pg } = await import('pg');
    const database = `lifecycles_${instances}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.end();
    const url = server.url.replace(/\/[^/]+$/, `/${database}`);
    const state = tempDir('bench-settlement-cluster-');
    const started = await startServiceCluster({
      instances,
      stateDir: state.dir,
      environment: 'sandbox',
      chains: manifest.chains,
      databaseUrl: url,
      logLevel: 'silent',
      // What `sandbox up --instances N` gives its workers: the relayer keys of sandbox.json, default settings.
      keys: serviceKeysOf(manifest),
      settings: {},
    });
    const db = new PostgresDatabase(new SyncPostgresConnection({ url }), false);
    const seen = new Set();
    const poll = setInterval(() => {
      for (const { id } of db.prepare("SELECT id FROM orders WHERE status = 'Claimed'").all()) {
        if (seen.has(id)) continue;
        seen.add(id);
        forward(id);
      }
    }, 10);
    const api = started.api;
    service = { url: api.url, wsUrl: api.wsUrl, stop: async () => undefined };
    ({ workspaceId } = api);
    apiKey = api.apiKeys[0];
    storeDb = () => db;
    serviceNow = async () => {
      const answer = await fetch(`${api.url}/api/v1/sandbox/clock`, { headers: { authorization: `Bearer ${apiKey}` } });
      return (await answer.json()).nowMs;
    };
    return {
      stop: async () => {
        clearInterval(poll);
        await started.stop();
        db.close();
        state.remove();
      },
    };
  }

  let postgres;
  try {
    // Each row: the service's run, then (the service gone: the floor sends from its relayer accounts) the floor from
    // the chains' state that run started from. A later row starts a service on a store of its own, since the chains
    // no longer hold what the earlier service recorded; so each side's code has run as often before its measurement.
    if (ROWS.has('reference')) {
      const reference = await throughService('reference');
      await service.stop();
      report('settled lifecycles/s, reference solvers (quote → claim)', reference, await measuredFloor(reference), '3 reference solvers');
    }
    if (ROWS.has('minimal')) {
      if (ROWS.has('reference')) {
        await backToRowStart();
        await startService(undefined, 'service-minimal.sqlite');
      }
      const lean = await throughService('minimal');
      await service.stop();
      report('settled lifecycles/s, minimal solvers (service share)', lean, await measuredFloor(lean), '3 minimal solvers');
    }
    // The service started for the rows above, when none of them ran: the floor and the rows below need it gone.
    if (!ROWS.has('reference') && !ROWS.has('minimal')) await service.stop();
    if (!ROWS.has('postgres') && !ROWS.has('cluster')) return rows;
    // The same lifecycles with the store on Postgres (one instance, a local server over loopback).
    const { startScratchPostgres } = await load('src/service/store/postgres/local-server.js');
    postgres = await startScratchPostgres({ prefix: 'bench-settlement-pg-' });
    if (ROWS.has('postgres')) {
      if (rows.length > 0) await backToRowStart();
      takers = await fundTakers();
      await startService(postgres.url);
      const onPostgres = await throughService('reference');
      await service.stop();
      report(
        'settled lifecycles/s, store on Postgres, reference solvers',
        onPostgres,
        await measuredFloor(onPostgres),
        '3 reference solvers, store on a local Postgres (one instance)',
      );
    }
    if (!ROWS.has('cluster')) return rows;
    // The winning solvers have paid out about 1,000 fills by now: mint them more on the destination chain.
    const fundSolvers = async () => {
      for (const solver of manifest.accounts.solvers) {
        const mint = encodeFunctionData({
          abi: TOKEN_ABI,
          functionName: 'mint',
          args: [solver.address, AMOUNT * BigInt(4 * (ORDERS + WARM_UP))],
        });
        if ((await betaMinter.send(usdc(beta), mint, 200_000n)).status !== 'success') throw new Error('solver mint reverted');
      }
    };
    for (const instances of [1, 2]) {
      if (rows.length > 0) await backToRowStart();
      takers = await fundTakers();
      await fundSolvers();
      const cluster = await startCluster(instances, postgres);
      let through;
      try {
        through = await throughService('reference');
      } finally {
        await cluster.stop();
      }
      report(
        `settled lifecycles/s, ${instances} service instance${instances === 1 ? '' : 's'} on Postgres (cluster), reference solvers`,
        through,
        await measuredFloor(through),
        `3 reference solvers, ${instances} instance${instances === 1 ? '' : 's'} behind one port (sandbox up --instances ${instances}), local Postgres`,
      );
    }
    return rows;
  } finally {
    await service.stop();
    await postgres?.stop();
    await sandbox.stop();
    folder.remove();
  }
}
