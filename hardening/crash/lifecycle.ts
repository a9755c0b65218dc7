import { RestClient } from '../../src/clients/rest-client.js';
import { TestTaker } from '../../test/support/settlement/taker.js';
import type { CrashHarness } from './harness.js';
import { type KillPoint, LIFECYCLE_TIMEOUT_MS, type LifecyclePlan, type LifecycleResult, TERMINAL, usdcOf } from './plan.js';
import { errorCode, send, sleep, type WireAnswer } from '../support/wire.js';

export async function runLifecycle(h: CrashHarness, plan: LifecyclePlan): Promise<LifecycleResult> {
  const begun = Date.now();
  const result: LifecycleResult = { plan, acknowledged: false, killed: false, wallMs: 0 };
  let pendingKill: Promise<void> | undefined;
  const killAt = (point: KillPoint) => {
    if (plan.kill?.at !== point || result.killed) return;
    result.killed = true;
    const delay = plan.kill.delayMs;
    const why = `#${plan.index} at ${point}+${delay}ms`;
    pendingKill = sleep(delay)
      .then(() => (h.options.faults === 'rpc' ? h.injectRpcFault(plan.index, why) : h.restart(why)))
      .then(() => undefined);
  };
  try {
    for (const solver of h.solvers()!.solvers) solver.setBehaviour(plan.outcome === 'refund' && !plan.reorg ? { fill: 'never' } : {});
    if (plan.reorg) await h.injectReorg(plan.index);
    const origin = h.manifest.chains[plan.origin]!;
    const destination = h.manifest.chains[1 - plan.origin]!;
    const inputToken = usdcOf(origin);
    const amount = 10_500_000_000n + BigInt(plan.index) * 1_000_000n;
    const taker = new TestTaker(
      h.manifest.accounts.takers[plan.taker]!.privateKey,
      new RestClient({ baseUrl: 'http://unused.invalid' }),
      h.manifest.chains,
    );
    if (plan.lockType === 'ResourceLock') await taker.depositToLock(origin.chainId, inputToken, amount);

    let orderId: string | undefined;
    let expires = 0;
    for (let attempt = 0; orderId === undefined; attempt++) {
      if (attempt === 3) throw new Error('no order after 3 quotes');
      killAt('quote');
      const quoted = await requestQuote(h, {
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
      const headers: Record<string, string> = { 'Idempotency-Key': `harden-${h.options.seed}-${plan.index}-${attempt}` };
      if (plan.rail === 'compliant') {
        const status = await h.call('GET', `/api/v1/compliance/status?address=${taker.address}`);
        headers['X-Service-Attestation'] = (status.json as { attestation: { hash: string } }).attestation.hash;
      }
      killAt('order');
      // The destination stops producing blocks around the order: the fill waits in its pool, then lands.
      if (plan.halt && attempt === 0) await h.injectHalt(plan.index, destination.chainId, 400);
      const outcome = await submitOrder(h, body, headers, plan.rail === 'direct');
      if (outcome.kind === 'created') {
        orderId = outcome.orderId;
        result.acknowledged = true;
      } else if (outcome.kind === 'unacknowledged') {
        // The kill took the answer; the order, if the service committed it, is found by its quote.
        orderId = await findOrderByQuote(h, quote.quoteId);
        if (orderId === undefined)
          h.problems.push(`#${plan.index}: order request lost its answer (${outcome.detail}) and no order exists for ${quote.quoteId}`);
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
      const answer = await h.call('GET', `/api/v1/orders/${orderId}`);
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
          await advanceClockPast(h, expires);
        }
      } else if (answer.status !== 404 || result.acknowledged) {
        // 404 is expected only while an unacknowledged order is still being opened.
        h.problems.push(`#${plan.index}: GET /orders/${orderId} answered ${answer.status}`);
      }
      if (Date.now() > deadline) {
        result.finalStatus = seen.size === 0 ? 'unknown' : [...seen].at(-1);
        // What it went through, to tell a lost wake-up from a relay that never landed when this happens.
        const through = seen.size === 0 ? 'no status read' : `seen ${[...seen].join(' → ')}`;
        result.error = `not terminal after ${LIFECYCLE_TIMEOUT_MS} ms (order ${orderId}, ${through}${advanced ? ', clock advanced past expiry' : ''}${result.unacknowledged ? ', order request unanswered' : ''})`;
        break;
      }
      await sleep(30);
    }
  } catch (error) {
    result.error = (error as Error).message.split('\n')[0];
  }
  // A kill due after the lifecycle ended still belongs to it (it then hits the webhook deliveries in flight).
  await pendingKill;
  await h.restarting();
  result.wallMs = Date.now() - begun;
  return result;
}

async function requestQuote(
  h: CrashHarness,
  request: Record<string, unknown>,
): Promise<{
  expires: number;
  quotes: Array<{ quoteId: string; nonce: string; typedData: unknown }>;
}> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const answer = await h.call('POST', '/api/v1/quotes', request);
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

async function submitOrder(h: CrashHarness, body: unknown, headers: Record<string, string>, withKey: boolean): Promise<Submitted> {
  let retried = false;
  const deadline = Date.now() + 30_000;
  for (;;) {
    let answer: WireAnswer;
    try {
      answer = await send(h.url, 'POST', '/api/v1/orders', {
        body,
        headers: { ...headers, ...(withKey ? { Authorization: `Bearer ${h.service.api.apiKeys[0]}` } : {}) },
        onRetry: () => (retried = true),
      });
    } catch (error) {
      return { kind: 'unacknowledged', detail: (error as Error).message };
    }
    if (answer.status === 201) return { kind: 'created', orderId: (answer.json as { orderId: string }).orderId };
    const code = errorCode(answer) ?? String(answer.status);
    // The order is recorded and its deposit goes on in the background (the chain did not confirm it in time, or a
    // fault switch holds it): a retry with the same key replays this answer, so look the order up instead.
    if (answer.status === 503 && (code === 'chain_unavailable' || code === 'deposit_held') && /ord_[0-9a-z]+/.test(answer.text)) {
      return { kind: 'unacknowledged', detail: `${answer.status} ${code}` };
    }
    if (answer.status >= 500 || code === 'idempotency_key_in_use') {
      // A retry of a request the kill interrupted: the key may still be held, or the store still starting.
      retried = true;
      if (Date.now() > deadline) {
        h.problems.push(`order request still answered ${answer.status} ${code} after 30 s of retries`);
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

async function findOrderByQuote(h: CrashHarness, quoteId: string): Promise<string | undefined> {
  for (let i = 0; i < 50; i++) {
    const order = h.store.orderForQuote(quoteId);
    if (order !== undefined) return order.id;
    await sleep(100);
  }
  return undefined;
}

/** Moves the h.service clock (and with it every chain) past an order's expiry; the keeper refunds at expires + 1 s. */
async function advanceClockPast(h: CrashHarness, expires: number): Promise<void> {
  const clock = await h.call('GET', '/api/v1/sandbox/clock');
  const now = Math.floor((clock.json as { nowMs: number }).nowMs / 1_000);
  const seconds = Math.max(0, expires + 2 - now);
  if (seconds > 0) {
    // A 503 while the singleton work changes hands (several instances) says "retry": a client does.
    let answer = await h.call('POST', '/api/v1/sandbox/clock/advance', { seconds });
    for (let attempt = 0; answer.status === 503 && attempt < 20; attempt++) {
      await sleep(250);
      answer = await h.call('POST', '/api/v1/sandbox/clock/advance', { seconds });
    }
    if (answer.status !== 200) h.problems.push(`clock advance answered ${answer.status}: ${answer.text}`);
  }
  await h.syncReceiverClock();
}
