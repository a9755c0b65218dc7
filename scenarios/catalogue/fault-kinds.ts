import { type Hex, parseEventLogs } from 'viem';
import { ApiRequestError, type OrderCreated } from '../../src/clients/rest-client.js';
import { InputSettlerEscrowArtifact } from '../../src/contracts/artifacts/InputSettlerEscrow.js';
import { OutputSettlerArtifact } from '../../src/contracts/artifacts/OutputSettler.js';
import { addressToBytes32, bytes32ToAddress, type MandateOutput } from '../../src/contracts/order.js';
import { standardOrderFromWire } from '../../src/contracts/standard-order-wire.js';
import { chainClient, contractOf } from '../actors/chain-clients.js';
import type { ScenarioContext, TrackedOrder } from '../core/context.js';
import { expectEqual, expectThat, fail } from '../core/errors.js';
import { defineScenario } from '../core/scenario.js';
import { orderBalances } from '../observe/observe-order.js';
import {
  advanceClock,
  advanceClockTo,
  after,
  check,
  expectOrder,
  order,
  orderBody,
  quote,
  solverName,
  track,
  waitUntil,
} from '../steps/index.js';
import { firedCount, setFault, solversReadSwitches, stagesOf, status, watched, withFault } from './faults.js';
import { refunded, settled, withSolverFault } from './timelines.js';

/**
 * One scenario per fault kind that `faults.ts` does not play: the attestation relay delayed, the refund relay
 * dropped, the engine's JSON-RPC calls dropped or slowed, and every solver misbehaviour the reference solvers act out.
 */

/** Sets a switch whose body needs the target (a chain id); its id is kept as `fault`, as `setFault` does. */
function setFaultOn(title: string, body: (context: ScenarioContext) => Record<string, unknown>) {
  return check(`set the fault switch: ${title}`, async (context) => {
    const fault = await context.rest.request<{ id: string }>('POST', '/api/v1/sandbox/faults', body(context));
    context.values.set('fault', fault.id);
    return fault.id;
  });
}

/** The switch's own ledger entries (firings on no order are recorded under the switch's id). */
function switchLedger(expected: string[]) {
  return check(`the switch's ledger entries: ${expected.join(', ')}`, (context) => {
    if (context.ledger === undefined) return 'ledger not readable from here';
    expectEqual(context.ledger.labelsOf(context.value<string>('fault')), expected, 'ledger entries of the switch');
  });
}

const firedOnce = waitUntil('the switch fired once', async (context) => ((await firedCount(context)) === 1 ? 'fired once' : undefined));

/** The order's one `OutputFilled` on the destination chain, decoded from its receipt: what was delivered, to whom. */
async function landedFill(context: ScenarioContext, name: string): Promise<{ output: MandateOutput; solver: Hex; timestamp: number }> {
  const tracked = context.order(name);
  await context.observer.sync();
  const fact = context.observer.factsOf(tracked.onchainOrderId).find((f) => f.kind === 'OutputFilled');
  if (fact === undefined) fail(`order ${name} has no fill on chain`);
  const receipt = await chainClient(tracked.quote.destination).getTransactionReceipt({ hash: fact.txHash });
  const [log] = parseEventLogs({ abi: OutputSettlerArtifact.abi, logs: receipt.logs, eventName: 'OutputFilled' });
  if (log === undefined) fail(`the fill ${fact.txHash} of order ${name} has no OutputFilled log`);
  return { output: log.args.output as MandateOutput, solver: fact.solver!, timestamp: fact.timestamp };
}

/**
 * The winner's second fill of order `name` was sent and changed nothing: a transaction from the filling account to
 * the output settler, after the fill, that reverted or emitted no `OutputFilled` (the settler pays an output once),
 * and the order still has exactly one fill on chain. The blocks are read from the fill on, once each.
 */
function secondFillRefused(name: string) {
  return waitUntil(`the second fill of ${name} changes nothing on the destination chain`, async (context) => {
    const tracked = context.order(name);
    const destination = tracked.quote.destination;
    const client = chainClient(destination);
    await context.observer.sync();
    const fills = context.observer.factsOf(tracked.onchainOrderId).filter((f) => f.kind === 'OutputFilled');
    if (fills.length !== 1) fail(`order ${name} has ${fills.length} fills on chain`);
    const first = await client.getTransaction({ hash: fills[0]!.txHash });
    const settler = contractOf(destination, 'OutputSettler').toLowerCase();
    const key = `secondFillScan:${name}`;
    const from = (context.values.get(key) as bigint | undefined) ?? first.blockNumber + 1n;
    const head = await client.getBlockNumber();
    for (let number = from; number <= head; number++) {
      const block = await client.getBlock({ blockNumber: number, includeTransactions: true });
      const again = block.transactions.find((tx) => tx.from.toLowerCase() === first.from.toLowerCase() && tx.to?.toLowerCase() === settler);
      if (again === undefined) continue;
      const receipt = await client.getTransactionReceipt({ hash: again.hash });
      const logs = parseEventLogs({ abi: OutputSettlerArtifact.abi, logs: receipt.logs, eventName: 'OutputFilled' });
      if (receipt.status === 'success' && logs.length > 0) fail(`a second fill of ${name} landed: ${again.hash}`);
      const how = receipt.status === 'success' ? 'no OutputFilled' : 'reverted';
      return `${again.hash.slice(0, 10)}… from ${solverName(context, tracked.quote.quote.solverId)} in block ${number}: ${how}`;
    }
    context.values.set(key, head + 1n);
    return undefined;
  });
}

const fillLands = (name: string) =>
  waitUntil(`the fill of ${name} lands on the destination chain`, async (context) => {
    await context.observer.sync();
    return context.observer.factsOf(context.order(name).onchainOrderId).some((f) => f.kind === 'OutputFilled') ? 'landed' : undefined;
  });

/** Each invited solver's outcome in the RFQ behind a quote step (`GET /api/v1/quotes/{rfqId}`). */
async function rfqOutcomes(context: ScenarioContext, quoteName: string) {
  const view = await context.rest.getRfq(context.quote(quoteName).response.rfqId);
  return view.responses.map((response) => ({ solverId: response.solverId, outcome: response.outcome, reason: response.reason }));
}

/** One invited solver answered as the switch made it; every other one quoted, and the taker got their quotes. */
function oneSolverOutcome(quoteName: string, outcomes: readonly string[]) {
  return check(`the RFQ view: one solver ${outcomes.join(' or ')}, every other one quoted`, async (context) => {
    const responses = await rfqOutcomes(context, quoteName);
    const odd = responses.filter((r) => r.outcome !== 'quoted');
    expectEqual(odd.length, 1, `solvers that did not quote (${responses.map((r) => r.outcome).join(', ')})`);
    expectThat(outcomes.includes(odd[0]!.outcome), `the odd solver's outcome is ${odd[0]!.outcome}`);
    expectEqual(context.quote(quoteName).response.quotes.length, responses.length - 1, 'quotes returned');
    context.values.set('oddSolver', odd[0]!.solverId);
    return `${solverName(context, odd[0]!.solverId)}: ${odd[0]!.outcome}${odd[0]!.reason ? ` (${odd[0]!.reason})` : ''}; ${responses.length - 1} quote(s)`;
  });
}

/** The attestation relay waits 5 min of clock time: Filled until then, and the proof lands no earlier. */
export const faultRelayDelay = defineScenario({
  name: 'fault-relay-delay',
  title: 'A delayed attestation relay is sent once 5 min of clock time have passed since it was queued; the order then settles, once',
  tags: ['fault', 'relay', 'clock'],
  requires: { testClock: true, faultSwitches: true },
  actors: { takers: ['alice'], ...watched },
  steps: [
    setFault('delay the next attestation relay by 5 min', { kind: 'relay.delay', relay: 'attestation', delay: '5m', count: 1 }),
    quote('q', { taker: 'alice' }),
    order('o', { quote: 'q' }),
    waitUntil('the order is Filled and its attestation delayed', async (context) =>
      (await status(context, 'o')) === 'Filled' && (await stagesOf(context, 'o')).includes('fault.delayed') ? 'delayed' : undefined,
    ),
    advanceClock('4m'),
    check('still Filled 4 min later: nothing was sent', async (context) => {
      expectEqual(await status(context, 'o'), 'Filled', 'status before the delay has passed');
    }),
    advanceClock('1m'),
    expectOrder('o', withFault(settled('o'), { stages: ['fault.delayed'], ledger: ['fault.fired'] })),
    check('the attestation was recorded at least 5 min of chain time after the fill', async (context) => {
      const facts = context.observer.factsOf(context.order('o').onchainOrderId);
      const filled = facts.find((f) => f.kind === 'OutputFilled')!;
      const attested = facts.find((f) => f.kind === 'AttestationRecorded')!;
      // The relay is queued as the fill is seen; block times are whole seconds, each within a second of the clock.
      const gap = attested.timestamp - filled.timestamp;
      expectThat(gap >= 298, `attested ${gap} s after the fill, before the 5 min delay`);
      return `attested ${gap} s after the fill`;
    }),
  ],
});

/** The keeper's refund is dropped: the service never refunds; the escrow keeps the deposit until the taker refunds. */
export const faultRefundDrop = defineScenario({
  name: 'fault-refund-drop',
  title: 'A dropped refund: the order stays Deposited past expiry with the escrow holding the deposit; the taker refunds on the escrow',
  tags: ['fault', 'relay', 'refund', 'clock'],
  requires: { testClock: true, faultSwitches: true },
  actors: { takers: ['alice'], ...watched, solvers: [{ fill: 'never' }, { fill: 'never' }, { fill: 'never' }] },
  steps: [
    quote('q', { taker: 'alice' }),
    order('o', { quote: 'q' }),
    // The winner's never-fill firing comes first, so the order's ledger reads the same in every run.
    waitUntil('the winner’s never-fill switch fired on the order', async (context) =>
      (await stagesOf(context, 'o')).includes('fault.solver') ? 'fault.solver' : undefined,
    ),
    // Scoped to the order: an earlier order expiring in the same clock advance keeps its own refund.
    setFaultOn('drop the refund of order o', (context) => ({
      kind: 'relay.drop',
      relay: 'refund',
      scope: { orderId: context.order('o').orderId },
      count: 1,
    })),
    advanceClockTo('2 s past expiry', after('q', 'expires', 2)),
    waitUntil('the keeper’s refund is dropped', async (context) =>
      (await stagesOf(context, 'o')).includes('fault.dropped') ? 'dropped' : undefined,
    ),
    advanceClock('1h'),
    check('an hour later: still Deposited, the escrow holds the deposit, no refund on chain', async (context) => {
      const tracked = context.order('o');
      expectEqual(await status(context, 'o'), 'Deposited', 'status');
      const onchain = await chainClient(tracked.quote.origin).readContract({
        address: contractOf(tracked.quote.origin, 'InputSettlerEscrow'),
        abi: InputSettlerEscrowArtifact.abi,
        functionName: 'orderStatus',
        args: [tracked.onchainOrderId],
      });
      expectEqual(Number(onchain), 1, 'escrow order status (1 = Deposited)');
      const balances = await orderBalances(tracked);
      expectEqual(balances.input - tracked.before.input, -BigInt(tracked.quote.quote.inputAmount), 'taker input balance change');
      await context.observer.sync();
      const kinds = context.observer.factsOf(tracked.onchainOrderId).map((f) => f.kind);
      expectEqual(kinds, ['Open'], 'chain logs of the order');
      expectEqual(await firedCount(context), 1, 'firings');
      return 'Deposited on the escrow, input still held';
    }),
    check('the taker refunds on the escrow itself', async (context) => {
      const tracked = context.order('o');
      const wire = tracked.quote.quote.standardOrder ?? fail('quote q carries no standard order');
      const sent = await tracked.quote.taker.refundOnChain(tracked.quote.origin, standardOrderFromWire(wire));
      expectEqual(sent.status, 'success', 'the taker’s refund');
      return `refund ${sent.transactionHash.slice(0, 10)}…`;
    }),
    expectOrder('o', (context) => ({
      ...refunded('o')(context),
      stages: ['rfq', 'deposited', 'fault.solver', 'fault.dropped', 'refunded'],
      // A switch scoped to an order is set on the order's trade too.
      ledger: [
        'order.created',
        'fault.fired',
        'fault.set',
        'fault.fired',
        'order.transition:Refunded',
        'compliance.check:settlement_audit',
      ],
    })),
  ],
});

/** An order POST /orders answered 503 for: what tracking it needs once its deposit lands. */
interface Pending {
  orderId: string;
  body: TrackedOrder['body'];
  before: TrackedOrder['before'];
}

/**
 * The deposit's broadcast is dropped once: POST /orders answers 503 chain_unavailable naming the order; the relayer
 * sends the same signed transaction again, it lands once and the order settles.
 */
export const faultRpcDrop = defineScenario({
  name: 'fault-rpc-drop',
  title:
    'A dropped RPC answer: the deposit broadcast fails once (503 chain_unavailable); the relayer resends it, it lands once, the order settles',
  tags: ['fault', 'chain', 'deposit'],
  requires: { faultSwitches: true },
  actors: { takers: ['alice'], ...watched },
  steps: [
    quote('q', { taker: 'alice' }),
    setFaultOn('drop the next broadcast to the origin chain', (context) => ({
      kind: 'chain.rpc-drop',
      chain: context.chain(0).chainId,
      method: 'eth_sendRawTransactionSync',
      count: 1,
    })),
    check('POST /orders answers 503 chain_unavailable, naming the order', async (context) => {
      const quoted = context.quote('q');
      const body = await orderBody(context, { quote: 'q' });
      const before = await orderBalances({ quote: quoted });
      try {
        const created = await context.rest.createOrder(body);
        fail(`the order was created (${created.orderId}, ${created.status}) while its broadcast was dropped`);
      } catch (error) {
        if (!(error instanceof ApiRequestError)) throw error;
        expectEqual({ status: error.status, code: error.code }, { status: 503, code: 'chain_unavailable' }, 'refusal');
        const orderId = /ord_[0-9a-z]+/.exec(error.message)?.[0] ?? fail(`the 503 names no order: ${error.message}`);
        context.values.set('pending', { orderId, body, before });
        return `503 chain_unavailable for ${orderId}`;
      }
    }),
    waitUntil('the relayer’s resend lands: the order is Deposited or further', async (context) => {
      const { orderId, body, before } = context.value<Pending>('pending');
      try {
        const detail = await context.rest.getOrder(orderId);
        track(context, 'o', 'q', detail as unknown as OrderCreated, body, before);
        return `${orderId} ${detail.status}`;
      } catch (error) {
        // Not an order to the API until its deposit is on chain.
        if (error instanceof ApiRequestError && error.status === 404) return undefined;
        throw error;
      }
    }),
    expectOrder('o', settled('o')),
    check('the switch fired once and is spent', async (context) => {
      const fault = await context.rest.request<{ fired: number; active: boolean }>(
        'GET',
        `/api/v1/sandbox/faults/${context.value<string>('fault')}`,
      );
      expectEqual({ fired: fault.fired, active: fault.active }, { fired: 1, active: false }, 'switch');
    }),
    switchLedger(['fault.set', 'fault.fired']),
  ],
});

/** The oracle leg's broadcast to the destination waits 300 ms of wall time; the order settles that much later. */
export const faultRpcSlow = defineScenario({
  name: 'fault-rpc-slow',
  title: 'A slow RPC answer: the attestation’s broadcast to the destination chain waits 300 ms; the order settles, once',
  tags: ['fault', 'chain'],
  requires: { faultSwitches: true },
  actors: { takers: ['alice'], ...watched },
  steps: [
    quote('q', { taker: 'alice' }),
    // The engine's one broadcast to the destination per order is the oracle's first leg (fills arrive as logs).
    setFaultOn('the next broadcast to the destination chain 300 ms slow', (context) => ({
      kind: 'chain.rpc-slow',
      chain: context.chain(1).chainId,
      method: 'eth_sendRawTransactionSync',
      delay: '300ms',
      count: 1,
    })),
    order('o', { quote: 'q' }),
    expectOrder('o', settled('o')),
    check('the order was Filled at least 300 ms by the service clock: the attestation waited', async (context) => {
      const { timeline } = await context.rest.request<{ timeline: { stage: string; at: string }[] }>(
        'GET',
        `/api/v1/workspaces/${context.workspace.workspaceId}/settlements/${context.order('o').orderId}`,
      );
      const at = (stage: string) => Date.parse(timeline.find((s) => s.stage === stage)?.at ?? fail(`no ${stage} stage`));
      // The sandbox clock flows with wall time between advances, and nothing advanced it here.
      const ms = at('attested') - at('filled');
      expectThat(ms >= 300, `attested ${ms} ms after filled, before the 300 ms delay`);
      return `attested ${ms} ms after filled`;
    }),
    check('the switch fired once', async (context) => {
      expectEqual(await firedCount(context), 1, 'firings');
    }),
    switchLedger(['fault.set', 'fault.fired']),
  ],
});

/** A late fill lands after the deadline, is never attested, and the refund wins: the taker keeps both. */
export const faultSolverFillLate = defineScenario({
  name: 'fault-solver-fill-late',
  title:
    'A solver.fill-late switch: the winner fills after the fill deadline; the fill is never attested and the taker is refunded at expiry',
  tags: ['fault', 'solver', 'refund', 'clock'],
  requires: { testClock: true, faultSwitches: true },
  actors: { takers: ['alice'], ...watched },
  steps: [
    setFault('the next winning reference solver fills late', { kind: 'solver.fill-late', count: 1 }),
    solversReadSwitches,
    quote('q', { taker: 'alice' }),
    order('o', { quote: 'q' }),
    firedOnce,
    advanceClockTo('3 s past the fill deadline', after('q', 'fillDeadline', 3)),
    fillLands('o'),
    check('the fill came after the deadline and is not attested: the order stays Deposited', async (context) => {
      const { fillDeadline } = context.quote('q').response;
      const fill = await landedFill(context, 'o');
      expectThat(fill.timestamp > fillDeadline, `the fill at ${fill.timestamp} is not after the deadline ${fillDeadline}`);
      expectEqual(await status(context, 'o'), 'Deposited', 'status after the late fill');
      return `filled ${fill.timestamp - fillDeadline} s after the deadline`;
    }),
    advanceClockTo('2 s past expiry', after('q', 'expires', 2)),
    expectOrder('o', withSolverFault(refunded('o', { filledLate: true }))),
  ],
});

/** A silent solver: the auction waits out its window without it, and ranks the others' quotes. */
export const faultSolverSilent = defineScenario({
  name: 'fault-solver-silent',
  title: 'A solver.silent switch: one solver never answers the RFQ; the auction closes with the others’ quotes and the order settles',
  tags: ['fault', 'solver', 'auction'],
  requires: { faultSwitches: true },
  actors: { takers: ['alice'], ...watched },
  steps: [
    setFault('the next reference solver to see an RFQ stays silent', { kind: 'solver.silent', count: 1 }),
    solversReadSwitches,
    quote('q', { taker: 'alice' }),
    firedOnce,
    oneSolverOutcome('q', ['silent']),
    switchLedger(['fault.set', 'fault.fired']),
    order('o', { quote: 'q' }),
    expectOrder('o', settled('o')),
  ],
});

/** A late quote: refused `rfq_expired`; the auction ranked the others and the order settles. */
export const faultSolverQuoteLate = defineScenario({
  name: 'fault-solver-quote-late',
  title: 'A solver.quote-late switch: one solver answers after the auction window and is refused rfq_expired; the others’ quote settles',
  tags: ['fault', 'solver', 'auction'],
  requires: { faultSwitches: true },
  actors: { takers: ['alice'], ...watched },
  steps: [
    setFault('the next reference solver to see an RFQ quotes late', { kind: 'solver.quote-late', count: 1 }),
    solversReadSwitches,
    quote('q', { taker: 'alice' }),
    firedOnce,
    // The late answer itself reaches only the solver (refused `rfq_expired` on its stream): the RFQ view shows the
    // solver without a quote, and the firing says which solver answered late.
    oneSolverOutcome('q', ['silent', 'rejected']),
    switchLedger(['fault.set', 'fault.fired']),
    order('o', { quote: 'q' }),
    expectOrder('o', settled('o')),
  ],
});

/** A declining solver: the auction closes once everyone answered, with the others' quotes. */
export const faultSolverDecline = defineScenario({
  name: 'fault-solver-decline',
  title: 'A solver.decline switch: one solver declines the RFQ; the others quote and the order settles',
  tags: ['fault', 'solver', 'auction'],
  requires: { faultSwitches: true },
  actors: { takers: ['alice'], ...watched },
  steps: [
    setFault('the next reference solver to see an RFQ declines', { kind: 'solver.decline', count: 1 }),
    solversReadSwitches,
    quote('q', { taker: 'alice' }),
    firedOnce,
    oneSolverOutcome('q', ['declined']),
    switchLedger(['fault.set', 'fault.fired']),
    order('o', { quote: 'q' }),
    expectOrder('o', settled('o')),
  ],
});

/** A 90 % fill is not the order's output: the order refunds at expiry and the taker keeps both, exactly. */
export const faultSolverFillShort = defineScenario({
  name: 'fault-solver-fill-short',
  title:
    'A solver.fill-short switch: the winner delivers 90 % of the output on time; not the order’s output, so it refunds and the taker keeps both',
  tags: ['fault', 'solver', 'refund', 'clock'],
  requires: { testClock: true, faultSwitches: true },
  actors: { takers: ['alice'], ...watched },
  steps: [
    setFault('the next winning reference solver fills short', { kind: 'solver.fill-short', count: 1 }),
    solversReadSwitches,
    quote('q', { taker: 'alice' }),
    order('o', { quote: 'q' }),
    firedOnce,
    fillLands('o'),
    check('the fill is 90 % of the output, to the taker, on time; the order stays Deposited', async (context) => {
      const quoted = context.quote('q');
      const fill = await landedFill(context, 'o');
      expectEqual(fill.output.amount, (BigInt(quoted.quote.outputAmount) * 9n) / 10n, 'amount filled');
      expectEqual(fill.output.recipient.toLowerCase(), addressToBytes32(quoted.taker.address).toLowerCase(), 'recipient');
      expectThat(fill.timestamp <= quoted.response.fillDeadline, `the fill at ${fill.timestamp} is after the deadline`);
      expectEqual(await status(context, 'o'), 'Deposited', 'status after the short fill');
      return `${fill.output.amount} of ${quoted.quote.outputAmount}`;
    }),
    advanceClockTo('2 s past expiry', after('q', 'expires', 2)),
    expectOrder(
      'o',
      withSolverFault((context) => ({
        ...refunded('o', { filledLate: true })(context),
        balances: { input: 0n, output: (BigInt(context.quote('q').quote.outputAmount) * 9n) / 10n },
      })),
    ),
  ],
});

/** A fill to the solver itself is not the order's output: the order refunds and the taker receives nothing. */
export const faultSolverFillWrongRecipient = defineScenario({
  name: 'fault-solver-fill-wrong-recipient',
  title:
    'A solver.fill-wrong-recipient switch: the winner fills the output to itself on time; the order refunds and the taker gets nothing on the destination',
  tags: ['fault', 'solver', 'refund', 'clock'],
  requires: { testClock: true, faultSwitches: true },
  actors: { takers: ['alice'], ...watched },
  steps: [
    setFault('the next winning reference solver fills to itself', { kind: 'solver.fill-wrong-recipient', count: 1 }),
    solversReadSwitches,
    quote('q', { taker: 'alice' }),
    order('o', { quote: 'q' }),
    firedOnce,
    fillLands('o'),
    check('the fill is the whole output, on time, to the solver itself; the order stays Deposited', async (context) => {
      const quoted = context.quote('q');
      const fill = await landedFill(context, 'o');
      expectEqual(fill.output.amount, BigInt(quoted.quote.outputAmount), 'amount filled');
      expectEqual(fill.output.recipient.toLowerCase(), fill.solver.toLowerCase(), 'recipient (the filling solver)');
      expectThat(
        fill.output.recipient.toLowerCase() !== addressToBytes32(quoted.taker.address).toLowerCase(),
        'the fill went to the taker',
      );
      expectThat(fill.timestamp <= quoted.response.fillDeadline, `the fill at ${fill.timestamp} is after the deadline`);
      expectEqual(await status(context, 'o'), 'Deposited', 'status after the misdirected fill');
      return `${fill.output.amount} to the solver ${bytes32ToAddress(fill.output.recipient)}, not the taker`;
    }),
    advanceClockTo('2 s past expiry', after('q', 'expires', 2)),
    expectOrder(
      'o',
      withSolverFault((context) => ({ ...refunded('o', { filledLate: true })(context), balances: { input: 0n, output: 0n } })),
    ),
  ],
});

/** A second fill of the same output reverts: one fill on chain, the order settles once. */
export const faultSolverFillTwice = defineScenario({
  name: 'fault-solver-fill-twice',
  title:
    'A solver.fill-twice switch: the winner fills, then sends the same fill again; the second changes nothing and the order settles once',
  tags: ['fault', 'solver'],
  requires: { faultSwitches: true },
  actors: { takers: ['alice'], ...watched },
  steps: [
    setFault('the next winning reference solver fills twice', { kind: 'solver.fill-twice', count: 1 }),
    solversReadSwitches,
    quote('q', { taker: 'alice' }),
    order('o', { quote: 'q' }),
    firedOnce,
    expectOrder('o', withSolverFault(settled('o'))),
    secondFillRefused('o'),
  ],
});

/** Solvers of the deployment with a live solver-stream connection (`GET /api/v1/solvers`). */
async function connectedSolvers(context: ScenarioContext): Promise<number> {
  const { data } = await context.rest.request<{ data: { connected: boolean }[] }>('GET', '/api/v1/solvers');
  return data.filter((solver) => solver.connected).length;
}

/**
 * A solver that quotes, wins and vanishes: its connection drops like a dead process's, the order is never filled and
 * refunds at expiry; the solver comes back (3 s later) and the next order settles.
 */
export const faultSolverVanish = defineScenario({
  name: 'fault-solver-vanish',
  title:
    'A solver.vanish switch: the winner drops its connection without filling; Refunded at expires + 1 s; it comes back and the next order settles',
  tags: ['fault', 'solver', 'refund', 'clock'],
  requires: { testClock: true, faultSwitches: true },
  actors: { takers: ['alice'], ...watched },
  steps: [
    check('count the connected solvers', async (context) => {
      const connected = await connectedSolvers(context);
      context.values.set('connected', connected);
      return `${connected} connected`;
    }),
    setFault('the next winning reference solver vanishes', { kind: 'solver.vanish', count: 1 }),
    solversReadSwitches,
    quote('q', { taker: 'alice' }),
    order('o', { quote: 'q' }),
    firedOnce,
    waitUntil('the winner is gone from the solver stream', async (context) => {
      const connected = await connectedSolvers(context);
      return connected === context.value<number>('connected') - 1 ? `${connected} connected` : undefined;
    }),
    advanceClockTo('2 s past expiry', after('q', 'expires', 2)),
    expectOrder('o', withSolverFault(refunded('o'))),
    waitUntil('the solver is back', async (context) => {
      const connected = await connectedSolvers(context);
      return connected === context.value<number>('connected') ? `${connected} connected` : undefined;
    }),
    quote('q2', { taker: 'alice' }),
    order('o2', { quote: 'q2' }),
    expectOrder('o2', settled('o2')),
  ],
});

export const faultKindScenarios = [
  faultRelayDelay,
  faultRefundDrop,
  faultRpcDrop,
  faultRpcSlow,
  faultSolverFillLate,
  faultSolverSilent,
  faultSolverQuoteLate,
  faultSolverDecline,
  faultSolverFillShort,
  faultSolverFillWrongRecipient,
  faultSolverFillTwice,
  faultSolverVanish,
] as const;
