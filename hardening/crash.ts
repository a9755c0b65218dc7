/**
 * Crash campaign: order lifecycles of every lock type and rail, some settled and some refunded, while the service
 * process is killed with SIGKILL at seeded random points (during a quote, while an order request is in flight,
 * after its deposit, fill or attestation, during the refund's clock advance) and started again on the same store
 * and port. Chains, solvers and a real webhook receiver keep running in this process.
 *
 * Figures, judged from the chains and from what the service committed:
 * - lost: an order the taker was told about (201) that the service no longer serves, or a deposit that landed on
 *   chain for which the service keeps no live order;
 * - stuck: an order that is not Claimed or Refunded at the end (after the drain), or whose escrow on chain is not
 *   closed the same way;
 * - duplicateRelays: a taker's deposit (`openFor`, the relay that must happen at most once) sent twice: identical
 *   calldata to the escrow on chain, mined or reverted. Oracle legs and refunds are repeated by design when a kill
 *   lands between their broadcast and the record of their outcome (a second refund reverts, an oracle leg records
 *   once); they are counted apart as `repeatedRelays`;
 * - undelivered: events the webhook must receive that it never accepted (signature checked);
 * - duplicateTerminalEvents: an order with more than one terminal event or terminal ledger transition;
 * - ledgerVerifies: `sandbox ledger verify` on the store afterwards.
 */
import { join } from 'node:path';
import { verifyLedgerDatabase, verifyLedgerFile } from '../src/sandbox/ledger-file.js';
import { type ReferenceSolvers, startReferenceSolvers } from '../src/solvers/index.js';
import { ServiceChild } from './service-child.js';
import { BlockRecorder } from './support/block-recorder.js';
import { StoreReader } from './support/store-reader.js';
import { WebhookReceiver } from './support/webhook-receiver.js';
import { send, sleep, type WireAnswer } from './support/wire.js';

import { drain, figures } from './crash/figures.js';
import type { CrashHarness } from './crash/harness.js';
import { runLifecycle } from './crash/lifecycle.js';
import { type CrashFigures, type CrashOptions, type LifecyclePlan, type LifecycleResult, planLifecycles } from './crash/plan.js';
import { addFundedTakers } from './support/extra-takers.js';
import { SeededRandom } from './support/random.js';

export * from './crash/plan.js';

export async function runCrashCampaign(options: CrashOptions): Promise<CrashFigures> {
  const log = options.log ?? (() => undefined);
  const started = Date.now();
  const { sandbox } = options;
  const manifest = sandbox.manifest;
  const problems: string[] = [];
  const notes: string[] = [];
  // Debug level: the secret scan reads every line the service can write, errors with their causes included.
  const failover = options.failover;
  const service = new ServiceChild({
    sandboxDir: sandbox.stateDir,
    dir: options.dir,
    logLevel: 'debug',
    ...(failover === undefined ? {} : { databaseUrl: failover.databaseUrl, instances: failover.instances }),
  });
  const storePath = join(options.dir, 'service', 'service.sqlite');
  const store = new StoreReader(failover === undefined ? storePath : { url: failover.databaseUrl });
  const takeovers: number[] = [];
  const burst = { inFlight: 0, kills: 0 };
  // The idempotency probe (failover): the first answer to one keyed request, replayed after every take-over.
  const probe = { first: undefined as WireAnswer | undefined, key: '', body: {} as Record<string, unknown>, replays: 0, mismatches: 0 };
  const replayProbe = async (why: string) => {
    if (probe.first === undefined) return;
    const again = await call('POST', '/api/v1/quotes', probe.body, { 'Idempotency-Key': probe.key });
    probe.replays += 1;
    if (again.status !== probe.first.status || again.text !== probe.first.text) {
      probe.mismatches += 1;
      problems.push(`idempotent replay after ${why} differs: ${again.status} ${again.text.slice(0, 200)}`);
    }
  };
  const receiver = new WebhookReceiver();
  const recorder = new BlockRecorder(manifest.chains, [
    ...manifest.accounts.serviceRelayer.map((a) => a.address),
    ...manifest.accounts.oracleRelayer.map((a) => a.address),
  ]);
  let solvers: ReferenceSolvers | undefined;
  let restarting: Promise<unknown> | undefined;
  let watching = true;
  let webhookSince = 0;

  const url = () => service.api.url;
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}, auth = true): Promise<WireAnswer> =>
    send(url, method, path, {
      ...(body === undefined ? {} : { body }),
      headers: { ...(auth ? { Authorization: `Bearer ${service.api.apiKeys[0]}` } : {}), ...headers },
    });

  /** Kill and start again, one at a time; the clock offset of the webhook receiver follows the new process. */
  const restart = (why: string) => {
    restarting ??= (async () => {
      if (failover !== undefined) {
        const took = await service.killSingletonHolder();
        takeovers.push(took);
        log(`  ✗ SIGKILL of the singleton holder (${why}); taken over in ${took} ms`);
        await replayProbe(why);
      } else {
        log(`  ✗ SIGKILL (${why})`);
        await service.restart();
      }
      await syncReceiverClock();
    })().finally(() => {
      restarting = undefined;
    });
    return restarting;
  };
  /**
   * The chain campaign's fault: the next 1–3 JSON-RPC calls of one method (or of every method) to one chain fail,
   * chosen by the lifecycle's index so a seed replays the same faults.
   */
  let rpcFaults = 0;
  let rpcFaultsFired = 0;
  const RPC_METHODS = ['eth_sendRawTransactionSync', 'eth_getTransactionReceipt', 'eth_getLogs', 'eth_blockNumber', undefined] as const;
  const injectRpcFault = async (index: number, why: string) => {
    const chain = manifest.chains[index % manifest.chains.length]!.chainId;
    const method = RPC_METHODS[(index * 7) % RPC_METHODS.length];
    const count = 1 + (index % 3);
    const set = await call('POST', '/api/v1/sandbox/faults', {
      kind: 'chain.rpc-drop',
      chain,
      ...(method === undefined ? {} : { method }),
      count,
    });
    if (set.status !== 201) problems.push(`fault switch refused (${why}): ${set.status} ${set.text}`);
    else rpcFaults += 1;
    log(`  ✗ chain.rpc-drop chain ${chain} ${method ?? 'every method'} ×${count} (${why})`);
  };
  let reorgs = 0;
  let reorgsFired = 0;
  const injectReorg = async (index: number) => {
    const set = await call('POST', '/api/v1/sandbox/faults', { kind: 'chain.reorg', count: 1 });
    if (set.status !== 201) problems.push(`chain.reorg switch refused (#${index}): ${set.status} ${set.text}`);
    else reorgs += 1;
    log(`  ✗ chain.reorg: the fill of #${index} will be reorganised away`);
  };
  let halts = 0;
  const injectHalt = async (index: number, chainId: number, ms: number) => {
    const set = await call('POST', '/api/v1/sandbox/faults', { kind: 'chain.halt', chain: chainId });
    if (set.status !== 201) {
      problems.push(`chain.halt switch refused (#${index}): ${set.status} ${set.text}`);
      return;
    }
    halts += 1;
    const id = (set.json as { id: string }).id;
    log(`  ✗ chain.halt chain ${chainId} for ${ms} ms (#${index})`);
    setTimeout(() => {
      void call('DELETE', `/api/v1/sandbox/faults/${id}`).then((cleared) => {
        if (cleared.status !== 200) problems.push(`chain.halt could not be cleared (#${index}): ${cleared.status} ${cleared.text}`);
      });
    }, ms);
  };
  const syncReceiverClock = async () => {
    const clock = await call('GET', '/api/v1/sandbox/clock');
    const nowMs = (clock.json as { nowMs: number }).nowMs;
    receiver.clockOffsetSeconds = Math.round((nowMs - Date.now()) / 1_000);
  };
  const h: CrashHarness = {
    options,
    manifest,
    service,
    store,
    receiver,
    recorder,
    problems,
    notes,
    started,
    storePath,
    solvers: () => solvers,
    restarting: () => restarting,
    log,
    url,
    call,
    restart,
    injectRpcFault,
    rpcFaultsSet: () => rpcFaults,
    rpcFaultsFired: () => rpcFaultsFired,
    injectReorg,
    injectHalt,
    halts: () => halts,
    reorgsSet: () => reorgs,
    reorgsFired: () => reorgsFired,
    syncReceiverClock,
    verifyLedger: () => (failover === undefined ? verifyLedgerFile(storePath) : verifyLedgerDatabase(failover.databaseUrl)),
    takeovers: () => takeovers,
    idempotency: () => ({ replays: probe.replays, mismatches: probe.mismatches }),
    burst: () => burst,
    get webhookSince() {
      return webhookSince;
    },
  };

  try {
    await service.start();
    for (const key of service.api.apiKeys) options.onSecret?.('API key', key);
    // A crash (an exit we did not cause) is counted and the service brought back, so the campaign can finish.
    void (async () => {
      while (watching) {
        await sleep(100);
        if (watching && !service.running && restarting === undefined) {
          problems.push(`service exited on its own: ${JSON.stringify(service.crashes.at(-1))}`);
          restarting = service.start().finally(() => (restarting = undefined));
        }
      }
    })();
    await receiver.start();
    receiver.resyncClock = syncReceiverClock;
    await syncReceiverClock();
    const registered = await call('POST', '/api/v1/webhooks', { url: receiver.url, events: ['*'] });
    if (registered.status !== 201) throw new Error(`webhook registration answered ${registered.status}: ${registered.text}`);
    const webhook = registered.json as { webhookId: string; signingKey: string };
    receiver.secret = webhook.signingKey;
    options.onSecret?.('webhook signing key', webhook.signingKey);
    webhookSince = store.webhookCreatedAt(webhook.webhookId);
    await recorder.start();
    solvers = await startReferenceSolvers({ manifest: { ...manifest, api: service.api }, count: 3 });

    if (failover !== undefined) {
      const [alpha, beta] = manifest.chains;
      const usdc = (chain: typeof alpha) => chain!.tokens.find((token) => token.symbol === 'USDC')!.address;
      probe.body = {
        originChainId: alpha!.chainId,
        destinationChainId: beta!.chainId,
        inputToken: usdc(alpha),
        outputToken: usdc(beta),
        inputAmount: '10400000000',
      };
      for (let attempt = 0; attempt < 50 && probe.first?.status !== 200; attempt++) {
        // The solvers may still be connecting: an answer without quotes is kept for its key, so try a new key.
        if (attempt > 0) await sleep(100);
        probe.key = `failover-probe-${attempt}`;
        probe.first = await call('POST', '/api/v1/quotes', probe.body, { 'Idempotency-Key': probe.key });
      }
      if (probe.first?.status !== 200)
        problems.push(`idempotency probe: the first keyed quote answered ${probe.first?.status} ${probe.first?.text}`);
    }

    const plans = planLifecycles(options.lifecycles, options.seed, options.killShare ?? 0.7, options.faults === 'rpc');
    const results: LifecycleResult[] = [];
    for (const plan of plans) {
      const result = await runLifecycle(h, plan);
      results.push(result);
      log(
        `  #${plan.index} ${plan.lockType}/${plan.rail}/${plan.outcome}${plan.kill ? ` kill@${plan.kill.at}+${plan.kill.delayMs}ms` : ''}: ` +
          `${plan.reorg ? '(fill reorganised away) ' : ''}${plan.halt ? '(destination halted) ' : ''}${result.finalStatus ?? result.error ?? '?'} (${result.wallMs} ms)`,
      );
    }

    // The failover burst: many lifecycles in flight together (settling escrow orders: no clock moves, no solver
    // behaviour changes between them), and the holder of the singleton work SIGKILLed at seeded moments among them.
    const inFlight = failover?.inFlight ?? 0;
    if (inFlight > 0) {
      const random = new SeededRandom(options.seed + 7);
      // A taker each: a taker's nonces rise order by order, so two of its orders in flight would refuse each other.
      const burstTakers = await addFundedTakers(manifest, inFlight);
      const burstPlans: LifecyclePlan[] = Array.from({ length: inFlight }, (_, i) => ({
        index: plans.length + i,
        lockType: i % 2 === 0 ? 'Permit2Escrow' : 'EIP3009Escrow',
        rail: i % 3 === 0 ? 'compliant' : 'direct',
        outcome: 'settle',
        origin: (i % 2) as 0 | 1,
        taker: burstTakers[i]!,
      }));
      const kills = (async () => {
        for (let k = 0; k < (failover?.inFlightKills ?? 1); k++) {
          await sleep(random.int(100, 600));
          await restart(`${inFlight} lifecycles in flight, kill ${k + 1}`);
          burst.kills += 1;
        }
      })();
      log(`  ${inFlight} lifecycles at once:`);
      const settled = await Promise.all(burstPlans.map((plan) => runLifecycle(h, plan)));
      await kills;
      burst.inFlight = inFlight;
      for (const result of settled) {
        results.push(result);
        log(
          `  #${result.plan.index} ${result.plan.lockType}/${result.plan.rail} (in flight): ${result.finalStatus ?? result.error ?? '?'} (${result.wallMs} ms)`,
        );
      }
    }

    // Drain: every order ends, late retries of webhooks go out, then the service stops cleanly.
    await restarting;
    await drain(h, results);
    if (options.faults === 'rpc') {
      const switches = await call('GET', '/api/v1/sandbox/faults');
      const data = (switches.json as { data?: Array<{ kind: string; fired: number }> }).data ?? [];
      rpcFaultsFired = data.filter((fault) => fault.kind === 'chain.rpc-drop').reduce((sum, fault) => sum + fault.fired, 0);
      reorgsFired = data.filter((fault) => fault.kind === 'chain.reorg').reduce((sum, fault) => sum + fault.fired, 0);
    }
    watching = false;
    await restarting;
    await solvers.stop();
    solvers = undefined;
    await service.stop();
    await recorder.stop();

    return await figures(h, results);
  } finally {
    watching = false;
    await solvers?.stop().catch(() => undefined);
    await service.stop().catch(() => undefined);
    await recorder.stop().catch(() => undefined);
    await receiver.stop();
  }
}
