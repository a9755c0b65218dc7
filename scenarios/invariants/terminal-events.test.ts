import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../observe/events.js';
import { duplicateTerminalEvents, terminalEvents } from './terminal-events.js';

const event = (id: string, type: string, orderId: string | undefined): RecordedEvent => ({
  id,
  type,
  orderId,
  rfqId: undefined,
  body: {},
  receivedAt: 0,
});

describe('one terminal event per order per subscriber', () => {
  it('accepts one terminal event per order and generation, and redeliveries of the same id', () => {
    const events = [
      event('evt_1', 'order.created', 'ord_a'),
      event('evt_2', 'order.settled', 'ord_a'),
      event('evt_2', 'order.settled', 'ord_a'),
      event('evt_3', 'settlement.complete', 'ord_a'),
      event('evt_4', 'order.failed', 'ord_b'),
    ];
    expect(duplicateTerminalEvents('ws live', events)).toEqual([]);
    expect([...terminalEvents(events).keys()]).toEqual(['A:ord_a', 'B:ord_a', 'A:ord_b']);
  });

  it('names an order that ended twice under two ids', () => {
    const events = [event('evt_2', 'order.settled', 'ord_a'), event('evt_9', 'order.failed', 'ord_a')];
    expect(duplicateTerminalEvents('webhook hook', events)).toEqual([
      'webhook hook got 2 terminal events for A:ord_a: order.settled evt_2, order.failed evt_9',
    ]);
  });
});
