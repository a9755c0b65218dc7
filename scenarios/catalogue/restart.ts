import { chainClient } from '../actors/chain-clients.js';
import { defineScenario } from '../core/scenario.js';
import {
  advanceChainsWhileStopped,
  expectOrder,
  order,
  quote,
  restartService,
  setSolvers,
  startService,
  stopService,
  waitUntil,
} from '../steps/index.js';
import { refunded, settled, withSolverFault } from './timelines.js';

/** The taker stream has reconnected and renewed its subscription (resuming from its cursor) `count` times. */
function streamBack(count: number) {
  return waitUntil(
    `the taker stream is back (reconnect #${count}, resumed by cursor)`,
    (context) => context.stream('live').reconnects >= count,
  );
}

/**
 * The service dies mid-lifecycle and comes back on the same store: what happened on chain meanwhile is caught up,
 * every order ends exactly once, subscribers miss nothing and see nothing twice.
 */
export const crashAndRestart = defineScenario({
  name: 'service-crash-restart',
  title: 'Service stopped mid-lifecycle: a fill and an expiry while it is down are caught up; repeated restarts; exactly once everywhere',
  tags: ['restart', 'clock'],
  requires: { restart: true, testClock: true },
  actors: {
    takers: ['alice', 'bob', 'carol'],
    streams: { live: { topics: ['orders:*'] } },
    webhooks: { hook: { events: ['order.*', 'compliance.event'] } },
  },
  steps: [
    setSolvers({ fillDelayMs: 400 }),
    quote('q1', { taker: 'alice' }),
    order('o1', { quote: 'q1' }),
    stopService(),
    waitUntil('the solver fills while the service is down', async (context) => {
      await context.observer.sync();
      return context.observer.factsOf(context.order('o1').onchainOrderId).some((f) => f.kind === 'OutputFilled');
    }),
    startService(),
    streamBack(1),
    // The slow fill and the never-fill are solver fault switches: their firings are on the orders' timelines.
    expectOrder('o1', withSolverFault(settled('o1'))),
    setSolvers({}),
    quote('q2', { taker: 'bob' }),
    order('o2', { quote: 'q2' }),
    restartService(),
    streamBack(2),
    restartService(),
    streamBack(3),
    expectOrder('o2', settled('o2')),
    setSolvers({ fill: 'never' }),
    quote('q3', { taker: 'carol' }),
    order('o3', { quote: 'q3' }),
    stopService(),
    advanceChainsWhileStopped('past the order’s expiry', async (context) => {
      const head = await chainClient(context.quote('q3').origin).getBlock();
      return context.quote('q3').response.expires + 2 - Number(head.timestamp);
    }),
    startService(),
    streamBack(4),
    expectOrder('o3', withSolverFault(refunded('o3'))),
  ],
});
