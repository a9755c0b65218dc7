import { type Address, createPublicClient, type Hex, http } from 'viem';
import type { ChainInfo } from '../../src/contracts/deployment.js';
import type { CrashHarness } from './harness.js';
import { ESCROW_STATUS, ESCROW_STATUS_ABI, type CrashFigures, type LifecycleResult, TERMINAL } from './plan.js';
import { sleep } from '../support/wire.js';

export async function drain(h: CrashHarness, results: LifecycleResult[]): Promise<void> {
  const open = () => h.store.orders().filter((order) => !TERMINAL.has(order.status) && order.status !== 'Rejected');
  const waitUntil = async (predicate: () => boolean, ms: number) => {
    const end = Date.now() + ms;
    while (!predicate() && Date.now() < end) await sleep(100);
  };
  await waitUntil(() => open().length === 0, 15_000);
  if (open().length > 0) {
    // Whatever could not settle must at least be refunded once its expiry passes.
    h.log(`  drain: ${open().length} order(s) still open; moving the clock past their expiry`);
    await h.call('POST', '/api/v1/sandbox/clock/advance', { seconds: 16 * 60 });
    await waitUntil(() => open().length === 0, 15_000);
  }
  // Webhook retries are on the clock (5 s, 30 s, 10 min, …): two hours runs all of the early ones.
  await h.call('POST', '/api/v1/sandbox/clock/advance', { seconds: 2 * 3_600 });
  await h.syncReceiverClock();
  const expected = () =>
    h.store.eventsFor(h.service.api.workspaceId, h.webhookSince).filter((event) => !h.receiver.received.has(event.id)).length;
  await waitUntil(() => expected() === 0, 15_000);
  for (const result of results) {
    if (result.orderId === undefined) continue;
    const order = h.store.orders().find((o) => o.id === result.orderId);
    result.finalStatus = order?.status ?? 'missing';
  }
}

export async function figures(h: CrashHarness, results: LifecycleResult[]): Promise<CrashFigures> {
  const orders = h.store.orders();
  const byId = new Map(orders.map((order) => [order.id, order]));
  const byOnchain = new Map(orders.map((order) => [order.onchainOrderId, order]));
  let lost = 0;
  for (const result of results) {
    if (result.acknowledged && result.orderId !== undefined && byId.get(result.orderId) === undefined) {
      lost += 1;
      h.problems.push(`#${result.plan.index}: acknowledged order ${result.orderId} is not in the store`);
    }
  }
  for (const tx of h.recorder.transactions) {
    if (tx.openedOrderId === undefined) continue;
    const order = byOnchain.get(tx.openedOrderId.toLowerCase());
    if (order === undefined || order.status === 'Rejected') {
      lost += 1;
      h.problems.push(
        `deposit ${tx.hash} opened ${tx.openedOrderId} on chain ${tx.chainId}, which the service ${order ? 'rejected' : 'does not know'}`,
      );
    }
  }

  let stuck = 0;
  for (const order of orders) {
    if (order.status === 'Rejected') continue;
    if (!TERMINAL.has(order.status)) {
      stuck += 1;
      h.problems.push(`order ${order.id} (${order.lockType}) ended ${order.status}`);
      continue;
    }
    if (order.lockType === 'ResourceLock') continue;
    const onChain = await escrowStatus(h.manifest.chains.find((c) => c.chainId === order.originChainId)!, order.onchainOrderId as Hex);
    const expected = order.status === 'Claimed' ? 'Claimed' : 'Refunded';
    if (onChain !== expected) {
      stuck += 1;
      h.problems.push(`order ${order.id} is ${order.status} but its escrow on chain is ${onChain}`);
    }
  }

  const terminalEvents = h.store.terminalEventCounts();
  const terminalTransitions = h.store.terminalTransitionCounts();
  let duplicateTerminalEvents = 0;
  for (const order of orders) {
    if (!TERMINAL.has(order.status)) continue;
    const events = terminalEvents.get(order.id) ?? 0;
    const transitions = terminalTransitions.get(order.id) ?? 0;
    if (events !== 1 || transitions !== 1) {
      duplicateTerminalEvents += Math.max(0, events - 1) + Math.max(0, transitions - 1);
      if (events === 0 || transitions === 0)
        h.problems.push(`order ${order.id} is ${order.status} with ${events} terminal event(s) and ${transitions} terminal transition(s)`);
      else if (events > 1 || transitions > 1)
        h.problems.push(`order ${order.id}: ${events} terminal events, ${transitions} terminal transitions`);
    }
  }

  const expected = h.store.eventsFor(h.service.api.workspaceId, h.webhookSince);
  const undelivered = expected.filter((event) => !h.receiver.received.has(event.id));
  for (const event of undelivered.slice(0, 5)) h.problems.push(`webhook never accepted ${event.type} ${event.id}`);
  for (const rejection of h.receiver.rejected.slice(0, 5)) h.problems.push(`webhook receiver rejected a delivery: ${rejection.code}`);
  const redeliveries = [...h.receiver.received.values()].reduce((sum, n) => sum + n - 1, 0);

  const duplicates = h.recorder.duplicates();
  for (const group of duplicates.examples) {
    const line = `relayed ${group.length}× (${group[0]!.kind}): ${group.map((tx) => `${tx.hash} ${tx.status}`).join(', ')}`;
    if (group[0]!.kind === 'openFor') h.problems.push(line);
    else h.notes.push(`${line} (repeatable by design)`);
  }
  const ledger = await h.verifyLedger();
  if (!ledger.ok) h.problems.push(`ledger broken at #${ledger.brokenAt}: ${ledger.reason}`);
  for (const result of results) if (result.error !== undefined) h.problems.push(`#${result.plan.index}: ${result.error}`);

  const planned = (r: LifecycleResult) => (r.plan.outcome === 'settle' ? 'Claimed' : 'Refunded');
  return {
    lifecycles: results.length,
    settled: results.filter((r) => r.finalStatus === 'Claimed').length,
    refunded: results.filter((r) => r.finalStatus === 'Refunded').length,
    kills: h.service.kills,
    rpcFaultsSet: h.rpcFaultsSet(),
    rpcFaultsFired: h.rpcFaultsFired(),
    reorgsSet: h.reorgsSet(),
    reorgsFired: h.reorgsFired(),
    halts: h.halts(),
    restarts: h.service.starts - 1,
    crashes: h.service.crashes.length,
    lost,
    stuck,
    duplicateRelays: duplicates.byKind.openFor,
    repeatedRelays: duplicates.byKind,
    relaysByKind: h.recorder.countByKind(),
    duplicateTerminalEvents,
    unacknowledged: results.filter((r) => r.unacknowledged === true).length,
    outcomeMismatches: results.filter((r) => r.finalStatus !== planned(r)).length,
    undelivered: undelivered.length,
    webhookEvents: expected.length,
    webhookRedeliveries: redeliveries,
    webhookRejected: h.receiver.rejected.length,
    ledgerVerifies: ledger.ok,
    ledgerEntries: ledger.entries,
    takeoverMs: h.takeovers(),
    idempotencyReplays: h.idempotency().replays,
    idempotencyMismatches: h.idempotency().mismatches,
    inFlight: h.burst().inFlight,
    inFlightKills: h.burst().kills,
    missedBlocks: h.recorder.missedBlocks,
    wallMs: Date.now() - h.started,
    results,
    problems: h.problems,
    notes: h.notes,
  };
}

export async function escrowStatus(chain: ChainInfo, onchainOrderId: Hex): Promise<string> {
  const client = createPublicClient({ transport: http(chain.rpcUrl) });
  const status = await client.readContract({
    address: chain.contracts.InputSettlerEscrow as Address,
    abi: ESCROW_STATUS_ABI,
    functionName: 'orderStatus',
    args: [onchainOrderId],
  });
  return ESCROW_STATUS[status] ?? `status ${status}`;
}
