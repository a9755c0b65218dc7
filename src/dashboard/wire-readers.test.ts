import { describe, expect, it } from 'vitest';
import { deliveriesFrom } from './deliveries.js';
import { mergeQuotes, quotesFrom } from './quotes.js';
import { corridorOf, inputTokenOf, outputTokenOf, parseCorridor } from './tokens.js';

const chains = [
  { name: 'alpha', chainId: 31337, tokens: [{ symbol: 'USDC', decimals: 6, address: '0x00000000000000000000000000000000000000C1' }] },
  { name: 'beta', chainId: 31338, tokens: [{ symbol: 'USDC', decimals: 6, address: '0x00000000000000000000000000000000000000c2' }] },
];

describe('tokens', () => {
  it('finds a token by chain and address, else by corridor symbol', () => {
    expect(parseCorridor('alpha:USDC-beta:USDT')).toEqual({ origin: { chain: 'alpha', symbol: 'USDC' }, destination: { chain: 'beta', symbol: 'USDT' } });
    expect(parseCorridor('garbage')).toBeUndefined();
    const order = { id: 'ord_1', originChainId: 31337, destinationChainId: 31338, inputToken: '0x00000000000000000000000000000000000000c1' };
    expect(inputTokenOf(order, chains)?.symbol).toBe('USDC');
    expect(outputTokenOf({ id: 'ord_1', corridor: 'alpha:USDC-beta:USDC' }, chains)?.address).toMatch(/c2$/);
    expect(corridorOf(order, chains)).toBe('alpha:USDC-beta:?');
    expect(corridorOf({ ...order, outputToken: '0x00000000000000000000000000000000000000C2' }, chains)).toBe('alpha:USDC-beta:USDC');
    expect(corridorOf({ id: 'ord_1' }, chains)).toBeUndefined();
  });
});

describe('quotes', () => {
  it('reads a quote response, keeps rank, and merges sets by id', () => {
    const response = { quotes: [{ quoteId: 'qt_a', solverId: 'slv_1', outputAmount: '99', feeBps: 3, lockType: 'Permit2Escrow', settlementPath: 'direct', expiresAt: '2030-01-01T00:00:30.000Z' }, { quoteId: 'qt_b', feeBps: 9 }] };
    const quotes = quotesFrom(response);
    expect(quotes.map((q) => [q.quoteId, q.rank])).toEqual([['qt_a', 1], ['qt_b', 2]]);
    expect(quotes[0]).toMatchObject({ solverId: 'slv_1', expiresAt: Date.UTC(2030, 0, 1, 0, 0, 30) });
    expect(quotesFrom({ data: [{ id: 'qt_c' }] })[0]!.quoteId).toBe('qt_c');
    expect(quotesFrom({ error: {} })).toEqual([]);
    const merged = mergeQuotes(quotes, [{ quoteId: 'qt_b', rank: 1, status: 'accepted' }]);
    expect(merged.map((q) => [q.quoteId, q.rank, q.status])).toEqual([['qt_a', 1, undefined], ['qt_b', 2, 'accepted']]);
  });
});

describe('deliveries', () => {
  it('reads attempts, answers and the next retry', () => {
    const [delivery] = deliveriesFrom({
      data: [
        {
          id: 'dlv_1',
          webhookId: 'wh_1',
          eventId: 'evt_1',
          eventType: 'order.settled',
          state: 'retrying',
          attempts: [{ at: '2030-01-01T00:00:00.000Z', status: 500 }, { attemptedAt: '2030-01-01T00:00:05.000Z', error: 'timeout' }],
          nextRetryAt: '2030-01-01T00:00:30.000Z',
        },
      ],
    });
    expect(delivery).toEqual({
      id: 'dlv_1',
      webhookId: 'wh_1',
      eventId: 'evt_1',
      eventType: 'order.settled',
      state: 'retrying',
      attempts: [{ at: Date.UTC(2030, 0, 1), status: 500 }, { at: Date.UTC(2030, 0, 1, 0, 0, 5), error: 'timeout' }],
      attemptCount: 2,
      nextRetryAt: Date.UTC(2030, 0, 1, 0, 0, 30),
    });
    expect(deliveriesFrom({ data: [{ deliveryId: 'd', attempts: 3, lastAttempt: { statusCode: 200 } }] })[0]).toMatchObject({ attemptCount: 3, attempts: [{ status: 200 }] });
  });
});
