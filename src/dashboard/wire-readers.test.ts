import { describe, expect, it } from 'vitest';
import { deliveriesFromAttempts } from './deliveries.js';
import { mergeQuotes, quotesFrom } from './quotes.js';
import { corridorOf, inputTokenOf, outputTokenOf, parseCorridor } from './tokens.js';

const chains = [
  { name: 'alpha', chainId: 31337, tokens: [{ symbol: 'USDC', decimals: 6, address: '0x00000000000000000000000000000000000000C1' }] },
  { name: 'beta', chainId: 31338, tokens: [{ symbol: 'USDC', decimals: 6, address: '0x00000000000000000000000000000000000000c2' }] },
];

describe('tokens', () => {
  it('finds a token by chain and address, else by corridor symbol', () => {
    expect(parseCorridor('alpha:USDC-beta:USDT')).toEqual({
      origin: { chain: 'alpha', symbol: 'USDC' },
      destination: { chain: 'beta', symbol: 'USDT' },
    });
    expect(parseCorridor('garbage')).toBeUndefined();
    const order = {
      id: 'ord_1',
      originChainId: 31337,
      destinationChainId: 31338,
      inputToken: '0x00000000000000000000000000000000000000c1',
    };
    expect(inputTokenOf(order, chains)?.symbol).toBe('USDC');
    expect(outputTokenOf({ id: 'ord_1', corridor: 'alpha:USDC-beta:USDC' }, chains)?.address).toMatch(/c2$/);
    expect(corridorOf(order, chains)).toBe('alpha:USDC-beta:?');
    expect(corridorOf({ ...order, outputToken: '0x00000000000000000000000000000000000000C2' }, chains)).toBe('alpha:USDC-beta:USDC');
    expect(corridorOf({ id: 'ord_1' }, chains)).toBeUndefined();
  });
});

describe('quotes', () => {
  it('reads a quote response, keeps rank, and merges sets by id', () => {
    const response = {
      quotes: [
        {
          quoteId: 'qt_a',
          solverId: 'slv_1',
          outputAmount: '99',
          feeBps: 3,
          lockType: 'Permit2Escrow',
          settlementPath: 'direct',
          expiresAt: '2030-01-01T00:00:30.000Z',
        },
        { quoteId: 'qt_b', feeBps: 9 },
      ],
    };
    const quotes = quotesFrom(response);
    expect(quotes.map((q) => [q.quoteId, q.rank])).toEqual([
      ['qt_a', 1],
      ['qt_b', 2],
    ]);
    expect(quotes[0]).toMatchObject({ solverId: 'slv_1', expiresAt: Date.UTC(2030, 0, 1, 0, 0, 30) });
    expect(quotesFrom({ data: [{ id: 'qt_c' }] })[0]!.quoteId).toBe('qt_c');
    expect(quotesFrom({ error: {} })).toEqual([]);
    const merged = mergeQuotes(quotes, [{ key: 'qt_b', quoteId: 'qt_b', rank: 1, status: 'accepted' }]);
    expect(merged.map((q) => [q.quoteId, q.rank, q.status])).toEqual([
      ['qt_a', 1, undefined],
      ['qt_b', 2, 'accepted'],
    ]);
  });

  it('reads the RFQ view: every invited solver, declines and silence after the quotes', () => {
    const quotes = quotesFrom({
      rfqId: 'rfq_1',
      responses: [
        { solverId: 'slv_2', solverName: 'slow', outcome: 'silent', quoteId: null, rank: null, feeBps: null, reason: null },
        {
          solverId: 'slv_1',
          solverName: 'fast',
          outcome: 'quoted',
          quoteId: 'qt_a',
          rank: 2,
          feeBps: 4,
          latencyMs: 12.5,
          quoteStatus: 'open',
        },
        { solverId: 'slv_3', outcome: 'quoted', quoteId: 'qt_b', rank: 1, feeBps: 3 },
        { solverId: 'slv_4', outcome: 'declined', quoteId: null, rank: null, reason: 'no inventory' },
      ],
    });
    expect(quotes.map((q) => [q.key, q.outcome])).toEqual([
      ['qt_b', 'quoted'],
      ['qt_a', 'quoted'],
      ['solver:slv_2', 'silent'],
      ['solver:slv_4', 'declined'],
    ]);
    expect(quotes[1]).toMatchObject({ solverName: 'fast', latencyMs: 12.5, status: 'open' });
    expect(quotes[3]!.reason).toBe('no inventory');
    // The ledger's quotes.collected carries fee as a string: it reads the same.
    expect(quotesFrom({ quotes: [{ quoteId: 'qt_b', rank: 1, feeBps: '3' }] })[0]!.feeBps).toBe(3);
  });
});

describe('deliveries', () => {
  const attempt = (eventId: string, n: number, extra: Record<string, unknown>) => ({
    deliveryId: `dlv_${eventId}_${n}`,
    eventId,
    eventType: 'order.settled',
    attempt: n,
    sentAt: `2030-01-01T00:00:0${n}.000Z`,
    durationMs: 3,
    statusCode: null,
    succeeded: false,
    error: null,
    nextAttemptAt: null,
    ...extra,
  });

  it('groups attempts per event: answers in order, the next retry while the schedule runs', () => {
    const page = {
      data: [
        attempt('evt_a', 2, { statusCode: 500, nextAttemptAt: '2030-01-01T00:00:35.000Z' }),
        attempt('evt_a', 1, { statusCode: 503, nextAttemptAt: '2030-01-01T00:00:05.000Z' }),
        attempt('evt_b', 1, { statusCode: 200, succeeded: true }),
        attempt('evt_c', 6, { error: 'timeout' }),
        attempt('evt_other', 1, { statusCode: 200, succeeded: true }),
      ],
    };
    const deliveries = deliveriesFromAttempts(
      { webhookId: 'wh_1', url: 'http://127.0.0.1:9/hook' },
      page,
      new Set(['evt_a', 'evt_b', 'evt_c']),
    );
    expect(deliveries.map((d) => [d.key, d.state, d.attempts.map((a) => a.status ?? a.error), d.nextRetryAt])).toEqual([
      ['wh_1/evt_a', 'retrying', [503, 500], Date.UTC(2030, 0, 1, 0, 0, 35)],
      ['wh_1/evt_b', 'delivered', [200], undefined],
      ['wh_1/evt_c', 'failed', ['timeout'], undefined],
    ]);
    expect(deliveries[0]!.attempts[0]).toEqual({
      attempt: 1,
      at: Date.UTC(2030, 0, 1, 0, 0, 1),
      status: 503,
      durationMs: 3,
      succeeded: false,
    });
    expect(deliveriesFromAttempts({ webhookId: 'wh_1' }, page)).toHaveLength(4);
    expect(deliveriesFromAttempts({ webhookId: 'wh_1' }, { error: {} })).toEqual([]);
  });
});
