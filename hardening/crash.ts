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
import { type Address, createPublicClient, type Hex, http } from 'viem';
import { RestClient } from '../src/clients/rest-client.js';
import { verifyLedgerFile } from '../src/cli/commands/ledger.js';
import type { ChainInfo } from '../src/contracts/deployment.js';
import type { Sandbox } from '../src/devnet/sandbox.js';
import { TestTaker } from '../test/support/settlement/taker.js';
import { type ReferenceSolvers, startReferenceSolvers } from '../src/solvers/index.js';
import { ServiceChild } from './service-child.js';
import { BlockRecorder } from './support/block-recorder.js';
import { SeededRandom } from './support/random.js';
import { StoreReader } from './support/store-reader.js';
import { WebhookReceiver } from './support/webhook-receiver.js';
import { errorCode, send, sleep, type WireAnswer } from './support/wire.js';

type LockType = 'Permit2Escrow' | 'EIP3009Escrow' | 'ResourceLock';
type Rail = 'direct' | 'compliant';
type Outcome = 'settle' | 'refund';
/** Where in a lifecycle the service is killed (then a random delay of 0–`maxDelayMs`). */
export type KillPoint = 'quote' | 'order' | 'deposited' | 'filled' | 'attested' | 'refund';

export interface LifecyclePlan {
  index: number;
  lockType: LockType;
  rail: Rail;
  outcome: Outcome;
  /** Origin chain index in the manifest (the other chain is the destination). */
  origin: 0 | 1;
  taker: number;
  kill?: { at: KillPoint; delayMs: number };
}

export interface LifecycleResult {
  plan: LifecyclePlan;
  orderId?: string;
  /** The 201 reached the taker (else its order was found in the store by quote). */
  acknowledged: boolean;
  /** The kill took the 201; the order was found in the store by its quote. */
  unacknowledged?: boolean;
  finalStatus?: string;
  killed: boolean;
  wallMs: number;
  error?: string;
}

export interface CrashOptions {
  sandbox: Sandbox;
  /** The campaign's folder (the service store lives in `<dir>/service/`). */
  dir: string;
  lifecycles: number;
  seed: number;
  /** Share of lifecycles with a kill (default 0.7). */
  killShare?: number;
  /** Told every secret the campaign handles (keys, webhook signing key), for the log and store scans. */
  onSecret?: (kind: string, value: string) => void;
  log?: (line: string) => void;
}

export interface CrashFigures {
  lifecycles: number;
  settled: number;
  refunded: number;
  kills: number;
  restarts: number;
  crashes: number;
  lost: number;
  stuck: number;
  duplicateRelays: number;
  /** Every relay sent more than once, by kind (only `openFor` must never repeat). */
  repeatedRelays: Record<string, number>;
  relaysByKind: Record<string, number>;
  duplicateTerminalEvents: number;
  /** Orders whose 201 never reached the taker because of a kill (found by quote in the store). */
  unacknowledged: number;
  /** Lifecycles that ended another way than planned (e.g. planned to settle, refunded). */
  outcomeMismatches: number;
  undelivered: number;
  webhookEvents: number;
  webhookRedeliveries: number;
  webhookRejected: number;
  ledgerVerifies: boolean;
  ledgerEntries: number;
  missedBlocks: number;
  wallMs: number;
  results: LifecycleResult[];
  problems: string[];
  /** Observations that are not failures (repeated refunds or oracle legs after a kill). */
  notes: string[];
}

const LOCK_TYPES: readonly LockType[] = ['Permit2Escrow', 'EIP3009Escrow', 'ResourceLock'];
const KILL_POINTS: readonly KillPoint[] = ['quote', 'order', 'order', 'deposited', 'filled', 'attested'];
const TERMINAL = new Set(['Claimed', 'Refunded']);
const LIFECYCLE_TIMEOUT_MS = 45_000;
const ESCROW_STATUS_ABI = [
  {
    type: 'function',
    name: 'orderStatus',
    stateMutability: 'view',
    inputs: [{ name: 'orderId', type: 'bytes32' }],
    outputs: [{ name: '', type: 'uint8' }],
  },
] as const;
const ESCROW_STATUS = ['None', 'Deposited', 'Claimed', 'Refunded'] as const;

/** Mixed lock types, rails and outcomes (every combination appears in 20), kill points drawn from the seed. */
export function planLifecycles(count: number, seed: number, killShare: number): LifecyclePlan[] {
  const random = new SeededRandom(seed);
  const plans: LifecyclePlan[] = [];
  for (let index = 0; index < count; index++) {
    const outcome: Outcome = index % 4 === 3 ? 'refund' : 'settle';
    const plan: LifecyclePlan = {
      index,
      lockType: LOCK_TYPES[index % 3]!,
      rail: Math.floor(index / 3) % 2 === 0 ? 'direct' : 'compliant',
      outcome,
      origin: (Math.floor(index / 6) % 2) as 0 | 1,
      // Takers 0–3; the fuzz and load campaigns' service (another store, so other nonces) uses taker 4.
      taker: index % 4,
    };
    if (random.chance(killShare)) {
      const points =
        outcome === 'refund' ? [...KILL_POINTS.filter((p) => p !== 'filled' && p !== 'attested'), 'refund' as const] : KILL_POINTS;
      const at = random.pick(points);
      // An order request is answered within tens of milliseconds: kills aimed at it land early, inside its work.
      plan.kill = { at, delayMs: at === 'order' ? random.int(0, 40) : random.int(0, 150) };
    }
    plans.push(plan);
  }
  return plans;
}

export async function runCrashCampaign(options: CrashOptions): Promise<CrashFigures> {
  const log = options.log ?? (() => undefined);
  const started = Date.now();
  const { sandbox } = options;
  const manifest = sandbox.manifest;
  const problems: string[] = [];
  const notes: string[] = [];
  // Debug level: the secret scan reads every line the service can write, errors with their causes included.
  const service = new ServiceChild({ sandboxDir: sandbox.stateDir, dir: options.dir, logLevel: 'debug' });
  const storePath = join(options.dir, 'service', 'service.sqlite');
  const store = new StoreReader(storePath);
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
      log(`  ✗ SIGKILL (${why})`);
      await service.restart();
      await syncReceiverClock();
    })().finally(() => {
      restarting = undefined;
    });
    return restarting;
  };
  const syncReceiverClock = async () => {
    const clock = await call('GET', '/api/v1/sandbox/clock');
    const nowMs = (clock.json as { nowMs: number }).nowMs;
    receiver.clockOffsetSeconds = Math.round((nowMs - Date.now()) / 1_000);
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

    const plans = planLifecycles(options.lifecycles, options.seed, options.killShare ?? 0.7);
    const results: LifecycleResult[] = [];
    for (const plan of plans) {
      const result = await runLifecycle(plan);
      results.push(result);
      log(
        `  #${plan.index} ${plan.lockType}/${plan.rail}/${plan.outcome}${plan.kill ? ` kill@${plan.kill.at}+${plan.kill.delayMs}ms` : ''}: ` +
          `${result.finalStatus ?? result.error ?? '?'} (${result.wallMs} ms)`,
      );
    }

    // Drain: every order ends, late retries of webhooks go out, then the service stops cleanly.
    await restarting;
    await drain(results);
    watching = false;
    await restarting;
    await solvers.stop();
    solvers = undefined;
    await service.stop();
    await recorder.stop();

    return await figures(results);
  } finally {
    watching = false;
    await solvers?.stop().catch(() => undefined);
    await service.stop().catch(() => undefined);
    await recorder.stop().catch(() => undefined);
    await receiver.stop();
  }

  async function runLifecycle(plan: LifecyclePlan): Promise<LifecycleResult> {
    const begun = Date.now();
    const result: LifecycleResult = { plan, acknowledged: false, killed: false, wallMs: 0 };
    let pendingKill: Promise<void> | undefined;
    const killAt = (point: KillPoint) => {
      if (plan.kill?.at !== point || result.killed) return;
      result.killed = true;
      const delay = plan.kill.delayMs;
      pendingKill = sleep(delay)
        .then(() => restart(`#${plan.index} at ${point}+${delay}ms`))
        .then(() => undefined);
    };
    try {
      for (const solver of solvers!.solvers) solver.setBehaviour(plan.outcome === 'refund' ? { fill: 'never' } : {});
      const origin = manifest.chains[plan.origin]!;
      const destination = manifest.chains[1 - plan.origin]!;
      const inputToken = usdcOf(origin);
      const amount = 10_500_000_000n + BigInt(plan.index) * 1_000_000n;
      const taker = new TestTaker(
        manifest.accounts.takers[plan.taker]!.privateKey,
        new RestClient({ baseUrl: 'http://unused.invalid' }),
        manifest.chains,
      );
      if (plan.lockType === 'ResourceLock') await taker.depositToLock(origin.chainId, inputToken, amount);

      let orderId: string | undefined;
      let expires = 0;
      for (let attempt = 0; orderId === undefined; attempt++) {
        if (attempt === 3) throw new Error('no order after 3 quotes');
        killAt('quote');
        const quoted = await requestQuote({
          originChainId: origin.chainId,
          destinationChainId: destination.chainId,
          inputToken,
          outputToken: usdcOf(destination),
          inputAmount: amount.toString(),
          lockType: plan.lockType,
          settlementPath: plan.rail,
          user: taker.address,
        });
        expires = quoted.expires;
        const quote = quoted.quotes[0]!;
        const body = { quoteId: quote.quoteId, signature: await taker.sign(quote.typedData), nonce: quote.nonce, user: taker.address };
        const headers: Record<string, string> = { 'Idempotency-Key': `harden-${options.seed}-${plan.index}-${attempt}` };
        if (plan.rail === 'compliant') {
          const status = await call('GET', `/api/v1/compliance/status?address=${taker.address}`);
          headers['X-Service-Attestation'] = (status.json as { attestation: { hash: string } }).attestation.hash;
        }
        killAt('order');
        const outcome = await submitOrder(body, headers, plan.rail === 'direct');
        if (outcome.kind === 'created') {
          orderId = outcome.orderId;
          result.acknowledged = true;
        } else if (outcome.kind === 'unacknowledged') {
          // The kill took the answer; the order, if the service committed it, is found by its quote.
          orderId = await findOrderByQuote(quote.quoteId);
          if (orderId === undefined)
            problems.push(`#${plan.index}: order request lost its answer (${outcome.detail}) and no order exists for ${quote.quoteId}`);
          else result.unacknowledged = true;
          if (orderId === undefined) continue;
        } else if (outcome.kind !== 'requote') {
          throw new Error(`order refused: ${outcome.detail}`);
        }
      }
      result.orderId = orderId;

      const deadline = begun + LIFECYCLE_TIMEOUT_MS;
      let advanced = false;
      const seen = new Set<string>();
      for (;;) {
        const answer = await call('GET', `/api/v1/orders/${orderId}`);
        if (answer.status === 200) {
          const status = (answer.json as { status: string }).status;
          if (!seen.has(status)) {
            seen.add(status);
            if (status === 'Deposited') killAt('deposited');
            if (status === 'Filled') killAt('filled');
            if (status === 'Attested') killAt('attested');
          }
          if (TERMINAL.has(status)) {
            result.finalStatus = status;
            break;
          }
          if (plan.outcome === 'refund' && !advanced) {
            advanced = true;
            killAt('refund');
            await advanceClockPast(expires);
          }
        } else if (answer.status !== 404 || result.acknowledged) {
          // 404 is expected only while an unacknowledged order is still being opened.
          problems.push(`#${plan.index}: GET /orders/${orderId} answered ${answer.status}`);
        }
        if (Date.now() > deadline) {
          result.finalStatus = seen.size === 0 ? 'unknown' : [...seen].at(-1);
          result.error = `not terminal after ${LIFECYCLE_TIMEOUT_MS} ms`;
          break;
        }
        await sleep(30);
      }
    } catch (error) {
      result.error = (error as Error).message.split('\n')[0];
    }
    // A kill due after the lifecycle ended still belongs to it (it then hits the webhook deliveries in flight).
    await pendingKill;
    await restarting;
    result.wallMs = Date.now() - begun;
    return result;
  }

  async function requestQuote(request: Record<string, unknown>): Promise<{
    expires: number;
    quotes: Array<{ quoteId: string; nonce: string; typedData: unknown }>;
  }> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const answer = await call('POST', '/api/v1/quotes', request);
      if (answer.status === 200) return answer.json as never;
      // Right after a restart the solvers are still reconnecting (their backoff starts at 1 s).
      if (errorCode(answer) !== 'corridor_unavailable' || Date.now() > deadline)
        throw new Error(`quote answered ${answer.status}: ${answer.text}`);
      await sleep(100);
    }
  }

  type Submitted =
    | { kind: 'created'; orderId: string }
    | { kind: 'unacknowledged'; detail: string }
    | { kind: 'requote'; detail: string }
    | { kind: 'refused'; detail: string };

  async function submitOrder(body: unknown, headers: Record<string, string>, withKey: boolean): Promise<Submitted> {
    let retried = false;
    const deadline = Date.now() + 30_000;
    for (;;) {
      let answer: WireAnswer;
      try {
        answer = await send(url, 'POST', '/api/v1/orders', {
          body,
          headers: { ...headers, ...(withKey ? { Authorization: `Bearer ${service.api.apiKeys[0]}` } : {}) },
          onRetry: () => (retried = true),
        });
      } catch (error) {
        return { kind: 'unacknowledged', detail: (error as Error).message };
      }
      if (answer.status === 201) return { kind: 'created', orderId: (answer.json as { orderId: string }).orderId };
      const code = errorCode(answer) ?? String(answer.status);
      if (answer.status >= 500 || code === 'idempotency_key_in_use') {
        // A retry of a request the kill interrupted: the key may still be held, or the store still starting.
        retried = true;
        if (Date.now() > deadline) {
          problems.push(`order request still answered ${answer.status} ${code} after 30 s of retries`);
          return { kind: 'unacknowledged', detail: code };
        }
        await sleep(200);
        continue;
      }
      if (code === 'rfq_expired' && !retried) return { kind: 'requote', detail: code };
      return retried
        ? { kind: 'unacknowledged', detail: `${answer.status} ${code} on a retry` }
        : { kind: 'refused', detail: `${answer.status} ${answer.text}` };
    }
  }

  async function findOrderByQuote(quoteId: string): Promise<string | undefined> {
    for (let i = 0; i < 50; i++) {
      const order = store.orderForQuote(quoteId);
      if (order !== undefined) return order.id;
      await sleep(100);
    }
    return undefined;
  }

  /** Moves the service clock (and with it every chain) past an order's expiry; the keeper refunds at expires + 1 s. */
  async function advanceClockPast(expires: number): Promise<void> {
    const clock = await call('GET', '/api/v1/sandbox/clock');
    const now = Math.floor((clock.json as { nowMs: number }).nowMs / 1_000);
    const seconds = Math.max(0, expires + 2 - now);
    if (seconds > 0) {
      const answer = await call('POST', '/api/v1/sandbox/clock/advance', { seconds });
      if (answer.status !== 200) problems.push(`clock advance answered ${answer.status}: ${answer.text}`);
    }
    await syncReceiverClock();
  }

  async function drain(results: LifecycleResult[]): Promise<void> {
    const open = () => store.orders().filter((order) => !TERMINAL.has(order.status) && order.status !== 'Rejected');
    const waitUntil = async (predicate: () => boolean, ms: number) => {
      const end = Date.now() + ms;
      while (!predicate() && Date.now() < end) await sleep(100);
    };
    await waitUntil(() => open().length === 0, 15_000);
    if (open().length > 0) {
      // Whatever could not settle must at least be refunded once its expiry passes.
      log(`  drain: ${open().length} order(s) still open; moving the clock past their expiry`);
      await call('POST', '/api/v1/sandbox/clock/advance', { seconds: 16 * 60 });
      await waitUntil(() => open().length === 0, 15_000);
    }
    // Webhook retries are on the clock (5 s, 30 s, 10 min, …): two hours runs all of the early ones.
    await call('POST', '/api/v1/sandbox/clock/advance', { seconds: 2 * 3_600 });
    await syncReceiverClock();
    const expected = () =>
      store.eventsFor(service.api.workspaceId, webhookSince).filter((event) => !receiver.received.has(event.id)).length;
    await waitUntil(() => expected() === 0, 15_000);
    for (const result of results) {
      if (result.orderId === undefined) continue;
      const order = store.orders().find((o) => o.id === result.orderId);
      result.finalStatus = order?.status ?? 'missing';
    }
  }

  async function figures(results: LifecycleResult[]): Promise<CrashFigures> {
    const orders = store.orders();
    const byId = new Map(orders.map((order) => [order.id, order]));
    const byOnchain = new Map(orders.map((order) => [order.onchainOrderId, order]));
    let lost = 0;
    for (const result of results) {
      if (result.acknowledged && result.orderId !== undefined && byId.get(result.orderId) === undefined) {
        lost += 1;
        problems.push(`#${result.plan.index}: acknowledged order ${result.orderId} is not in the store`);
      }
    }
    for (const tx of recorder.transactions) {
      if (tx.openedOrderId === undefined) continue;
      const order = byOnchain.get(tx.openedOrderId.toLowerCase());
      if (order === undefined || order.status === 'Rejected') {
        lost += 1;
        problems.push(
          `deposit ${tx.hash} opened ${tx.openedOrderId} on chain ${tx.chainId}, which the service ${order ? 'rejected' : 'does not know'}`,
        );
      }
    }

    let stuck = 0;
    for (const order of orders) {
      if (order.status === 'Rejected') continue;
      if (!TERMINAL.has(order.status)) {
        stuck += 1;
        problems.push(`order ${order.id} (${order.lockType}) ended ${order.status}`);
        continue;
      }
      if (order.lockType === 'ResourceLock') continue;
      const onChain = await escrowStatus(manifest.chains.find((c) => c.chainId === order.originChainId)!, order.onchainOrderId as Hex);
      const expected = order.status === 'Claimed' ? 'Claimed' : 'Refunded';
      if (onChain !== expected) {
        stuck += 1;
        problems.push(`order ${order.id} is ${order.status} but its escrow on chain is ${onChain}`);
      }
    }

    const terminalEvents = store.terminalEventCounts();
    const terminalTransitions = store.terminalTransitionCounts();
    let duplicateTerminalEvents = 0;
    for (const order of orders) {
      if (!TERMINAL.has(order.status)) continue;
      const events = terminalEvents.get(order.id) ?? 0;
      const transitions = terminalTransitions.get(order.id) ?? 0;
      if (events !== 1 || transitions !== 1) {
        duplicateTerminalEvents += Math.max(0, events - 1) + Math.max(0, transitions - 1);
        if (events === 0 || transitions === 0)
          problems.push(`order ${order.id} is ${order.status} with ${events} terminal event(s) and ${transitions} terminal transition(s)`);
        else if (events > 1 || transitions > 1)
          problems.push(`order ${order.id}: ${events} terminal events, ${transitions} terminal transitions`);
      }
    }

    const expected = store.eventsFor(service.api.workspaceId, webhookSince);
    const undelivered = expected.filter((event) => !receiver.received.has(event.id));
    for (const event of undelivered.slice(0, 5)) problems.push(`webhook never accepted ${event.type} ${event.id}`);
    for (const rejection of receiver.rejected.slice(0, 5)) problems.push(`webhook receiver rejected a delivery: ${rejection.code}`);
    const redeliveries = [...receiver.received.values()].reduce((sum, n) => sum + n - 1, 0);

    const duplicates = recorder.duplicates();
    for (const group of duplicates.examples) {
      const line = `relayed ${group.length}× (${group[0]!.kind}): ${group.map((tx) => `${tx.hash} ${tx.status}`).join(', ')}`;
      if (group[0]!.kind === 'openFor') problems.push(line);
      else notes.push(`${line} (repeatable by design)`);
    }
    const ledger = await verifyLedgerFile(storePath);
    if (!ledger.ok) problems.push(`ledger broken at #${ledger.brokenAt}: ${ledger.reason}`);
    for (const result of results) if (result.error !== undefined) problems.push(`#${result.plan.index}: ${result.error}`);

    const planned = (r: LifecycleResult) => (r.plan.outcome === 'settle' ? 'Claimed' : 'Refunded');
    return {
      lifecycles: results.length,
      settled: results.filter((r) => r.finalStatus === 'Claimed').length,
      refunded: results.filter((r) => r.finalStatus === 'Refunded').length,
      kills: service.kills,
      restarts: service.starts - 1,
      crashes: service.crashes.length,
      lost,
      stuck,
      duplicateRelays: duplicates.byKind.openFor,
      repeatedRelays: duplicates.byKind,
      relaysByKind: recorder.countByKind(),
      duplicateTerminalEvents,
      unacknowledged: results.filter((r) => r.unacknowledged === true).length,
      outcomeMismatches: results.filter((r) => r.finalStatus !== planned(r)).length,
      undelivered: undelivered.length,
      webhookEvents: expected.length,
      webhookRedeliveries: redeliveries,
      webhookRejected: receiver.rejected.length,
      ledgerVerifies: ledger.ok,
      ledgerEntries: ledger.entries,
      missedBlocks: recorder.missedBlocks,
      wallMs: Date.now() - started,
      results,
      problems,
      notes,
    };
  }
}

function usdcOf(chain: ChainInfo): Address {
  return chain.tokens.find((token) => token.symbol === 'USDC')!.address as Address;
}

async function escrowStatus(chain: ChainInfo, onchainOrderId: Hex): Promise<string> {
  const client = createPublicClient({ transport: http(chain.rpcUrl) });
  const status = await client.readContract({
    address: chain.contracts.InputSettlerEscrow as Address,
    abi: ESCROW_STATUS_ABI,
    functionName: 'orderStatus',
    args: [onchainOrderId],
  });
  return ESCROW_STATUS[status] ?? `status ${status}`;
}
