import { solverIdentifier } from '../../src/contracts/standard-order-wire.js';
import type { Quote, SolverStats } from '../../src/clients/rest-client.js';
import type { ScenarioContext } from '../core/context.js';
import { defineScenario } from '../core/scenario.js';
import { expectEqual, expectThat, fail } from '../core/errors.js';
import { advanceClockTo, after, check, expectOrder, order, quote, setSolvers, solverName, waitUntil } from '../steps/index.js';
import type { QuoteOptions } from '../steps/quote.js';
import type { Step } from '../core/scenario.js';
import { refunded, settled, withSolverFault } from './timelines.js';

async function statsOf(context: ScenarioContext, solverId: string): Promise<SolverStats> {
  return (await context.rest.request<{ stats: SolverStats }>('GET', `/api/v1/solvers/${solverId}`)).stats;
}

async function statsOfAll(context: ScenarioContext): Promise<Record<string, SolverStats>> {
  return Object.fromEntries(await Promise.all(context.solvers.map(async (s) => [s.solverId, await statsOf(context, s.solverId)])));
}

function sameOutcomes(a: Record<string, SolverStats>, b: Record<string, SolverStats>): boolean {
  return Object.keys(a).every((id) => a[id]!.filled === b[id]?.filled && a[id]!.failed === b[id]?.failed);
}

/**
 * A quote ranked by fill records that did not move while it was ranked: the records read just before and just
 * after the request agree, so they are the ones the auction used. Orders of earlier scenarios (or runs, against a
 * long-lived sandbox) can still finish at any moment and move a record between the ranking and a later read.
 * Kept as `<name>:records` for the checks.
 */
function quoteOnSteadyRecords(name: string, options: QuoteOptions): Step {
  const inner = quote(name, options);
  return {
    title: `${inner.title}, on fill records that held still`,
    async run(context) {
      for (let attempt = 1; ; attempt++) {
        const before = await statsOfAll(context);
        const summary = await inner.run(context);
        const after = await statsOfAll(context);
        if (sameOutcomes(before, after)) {
          context.values.set(`${name}:records`, after);
          return attempt === 1 ? summary : `${summary} (attempt ${attempt}: the records moved during the earlier ones)`;
        }
        if (attempt === 5) fail(`fill records moved during each of ${attempt} quotes: outcomes keep arriving`);
      }
    },
  };
}

function ranked(context: ScenarioContext, name: string): Quote[] {
  return [...context.quote(name).response.quotes].sort((a, b) => a.rank - b.rank);
}

/** Consecutive quotes must not go against `key` (ties are broken by price and may go either way on `key`). */
function monotone(quotes: Quote[], key: (q: Quote) => number, direction: 'ascending' | 'descending', what: string): void {
  for (let i = 1; i < quotes.length; i++) {
    const [a, b] = [key(quotes[i - 1]!), key(quotes[i]!)];
    if (direction === 'ascending' ? a > b : a < b) fail(`rank ${i} and ${i + 1} are out of ${what} order: ${a} then ${b}`);
  }
}

/** The solver that filled an order, read from the destination chain. */
function fillerOf(context: ScenarioContext, orderName: string): string | undefined {
  return context.observer
    .factsOf(context.order(orderName).onchainOrderId)
    .find((f) => f.kind === 'OutputFilled')
    ?.solver?.toLowerCase();
}

function winnerFilled(orderName: string, quoteName: string) {
  return check(`the fill of ${orderName} comes from the solver of the accepted quote`, async (context) => {
    await context.observer.sync();
    const solverId = context.quote(quoteName).quote.solverId;
    const solver =
      context.solvers.find((s) => s.solverId === solverId) ?? fail(`quote ${quoteName} is from ${solverId}, not a reference solver`);
    expectEqual(fillerOf(context, orderName), solverIdentifier(solver.address).toLowerCase(), `filler of ${orderName}`);
    return `filled by ${solver.name}`;
  });
}

/** Three honest solvers compete; each preference ranks their quotes by its own criterion, the winner fills. */
export const competingSolvers = defineScenario({
  name: 'competing-solvers-ranking',
  title: 'Competing solvers: ranking by price, speed and reliability; the winner fills; a failed fill lowers reliability',
  tags: ['auction', 'solver', 'clock'],
  requires: { scriptableSolvers: true, testClock: true },
  actors: { takers: ['alice', 'bob'], streams: { live: { topics: ['orders:*'] } } },
  steps: [
    quote('price', { taker: 'alice', preference: 'price', minQuotes: 3 }),
    check('by price: the taker’s output descends with the rank; uccpBps is the best quote’s fee', (context) => {
      const quotes = ranked(context, 'price');
      monotone(quotes, (q) => Number(q.outputAmount), 'descending', 'price');
      expectEqual(context.quote('price').response.uccpBps, quotes[0]!.feeBps, 'uccpBps');
      return quotes.map((q) => `${q.rank}. ${solverName(context, q.solverId)} ${q.outputAmount}`).join(', ');
    }),
    order('won', { quote: 'price' }),
    expectOrder('won', settled('won', { webhooks: false })),
    winnerFilled('won', 'price'),
    setSolvers({ fill: 'never' }),
    check('note the solvers’ fill records', async (context) => {
      context.values.set('statsBefore', await statsOfAll(context));
    }),
    quote('doomed', { taker: 'bob', minQuotes: 3 }),
    order('lost', { quote: 'doomed' }),
    advanceClockTo('2 s past expiry', after('doomed', 'expires', 2)),
    expectOrder('lost', withSolverFault(refunded('lost', { webhooks: false }))),
    setSolvers({}),
    waitUntil('the winner of the lost order has one more failure', async (context) => {
      const loser = context.quote('doomed').quote.solverId;
      const before = context.value<Record<string, SolverStats>>('statsBefore')[loser]!.failed;
      const now = (await statsOf(context, loser)).failed;
      // At least: an order left open by an earlier scenario can be refunded by the same clock advance.
      return now >= before + 1 ? `${solverName(context, loser)}: failed ${before} → ${now}` : undefined;
    }),
    quote('speed', { taker: 'alice', preference: 'speed', minQuotes: 3 }),
    check('by speed: the median answer latency ascends with the rank', async (context) => {
      const quotes = ranked(context, 'speed');
      const medians = new Map(
        await Promise.all(quotes.map(async (q) => [q.solverId, (await statsOf(context, q.solverId)).medianQuoteLatencyMs ?? 0] as const)),
      );
      monotone(quotes, (q) => medians.get(q.solverId)!, 'ascending', 'median latency');
      return quotes.map((q) => `${q.rank}. ${solverName(context, q.solverId)} ${medians.get(q.solverId)} ms`).join(', ');
    }),
    quoteOnSteadyRecords('reliability', { taker: 'alice', preference: 'reliability', minQuotes: 3 }),
    check('by reliability: the smoothed fill rate (filled + 1) / (filled + failed + 2) descends with the rank', (context) => {
      const quotes = ranked(context, 'reliability');
      const records = context.value<Record<string, SolverStats>>('reliability:records');
      const rates = new Map(
        quotes.map((q) => {
          const stats = records[q.solverId] ?? fail(`no fill record of ${q.solverId}`);
          return [q.solverId, (stats.filled + 1) / (stats.filled + stats.failed + 2)] as const;
        }),
      );
      monotone(quotes, (q) => rates.get(q.solverId)!, 'descending', 'fill rate');
      const loser = context.quote('doomed').quote.solverId;
      const before = context.value<Record<string, SolverStats>>('statsBefore')[loser]!;
      const rateBefore = (before.filled + 1) / (before.filled + before.failed + 2);
      expectThat(
        rates.get(loser)! < rateBefore,
        `the failed order did not lower ${solverName(context, loser)}'s fill rate (${rateBefore} → ${rates.get(loser)})`,
      );
      return quotes.map((q) => `${q.rank}. ${solverName(context, q.solverId)} ${rates.get(q.solverId)!.toFixed(3)}`).join(', ');
    }),
    order('reliable', { quote: 'reliability' }),
    expectOrder('reliable', settled('reliable', { webhooks: false })),
    winnerFilled('reliable', 'reliability'),
  ],
});

async function outcomes(context: ScenarioContext, quoteName: string): Promise<string[]> {
  const view = await context.rest.getRfq(context.quote(quoteName).response.rfqId);
  return context.solvers.map((solver) => view.responses.find((r) => r.solverId === solver.solverId)?.outcome ?? 'not invited');
}

/** Declines, malformed and late quotes and silence are tolerated: the auction ends with the one good quote. */
export const misbehavingSolvers = defineScenario({
  name: 'auction-misbehaving-solvers',
  title: 'Solvers that decline, send malformed or late quotes or stay silent: the auction ranks the good quote and it settles',
  tags: ['auction', 'solver'],
  requires: { scriptableSolvers: true },
  actors: { takers: ['alice'], streams: { live: { topics: ['orders:*'] } }, solvers: [{}, { quote: 'decline' }, { quote: 'invalid' }] },
  steps: [
    quote('q1', { taker: 'alice' }),
    check('one quote; the RFQ view shows quoted, declined, rejected', async (context) => {
      expectEqual(context.quote('q1').response.quotes.length, 1, 'quotes');
      expectEqual(await outcomes(context, 'q1'), ['quoted', 'declined', 'rejected'], 'outcomes per solver');
    }),
    setSolvers([{ quote: 'silent' }, { quote: 'late' }, {}]),
    quote('q2', { taker: 'alice' }),
    check('one quote after the window; silent and late solvers have no quote', async (context) => {
      expectEqual(context.quote('q2').response.quotes.length, 1, 'quotes');
      const [silent, late, good] = await outcomes(context, 'q2');
      expectEqual({ silent, good }, { silent: 'silent', good: 'quoted' }, 'outcomes');
      expectThat(late === 'silent' || late === 'rejected', `the late solver's outcome is ${late}`);
    }),
    // The late answer reaches only the solver (refused `rfq_expired` on its stream); its switch fired on this RFQ.
    check('the late solver’s switch fired on this RFQ', async (context) => {
      const late = context.solvers[1]!;
      const { data } = await context.rest.request<{ data: { kind: string; fired: number; scope: { solverId: string | null } }[] }>(
        'GET',
        '/api/v1/sandbox/faults',
      );
      const fault = data.find((f) => f.kind === 'solver.quote-late' && f.scope.solverId === late.solverId);
      expectThat(fault !== undefined && fault.fired >= 1, `${late.name}'s solver.quote-late switch did not fire`);
      return `${late.name}: fired ${fault!.fired}`;
    }),
    order('o', { quote: 'q2' }),
    expectOrder('o', settled('o', { webhooks: false })),
    winnerFilled('o', 'q2'),
  ],
});
