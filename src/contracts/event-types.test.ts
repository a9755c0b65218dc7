import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, EVENT_TYPE_NAMES, isEventOfType, isKnownEventType } from './event-types.js';

describe('the event-type map', () => {
  it('gives every type its generation: Reference A, B, or the service own test event', () => {
    const of = (generation: string) => EVENT_TYPE_NAMES.filter((type) => EVENT_TYPES[type].generation === generation);
    expect(of('A')).toEqual([
      'order.created',
      'order.settled',
      'order.failed',
      'compliance.event',
      'credit.updated',
      'member.added',
      'member.removed',
    ]);
    expect(of('B')).toEqual([
      'rfq.created',
      'quote.received',
      'quote.accepted',
      'settlement.pending',
      'settlement.complete',
      'settlement.failed',
      'audit.recorded',
    ]);
    expect(of('service')).toEqual(['webhook.test']);
  });

  it('tolerates types it does not know (the spec allows a deployment its own): they are unknown, not errors', () => {
    expect(isKnownEventType('order.settled')).toBe(true);
    expect(isKnownEventType('order.disputed')).toBe(false);
    expect(isKnownEventType('toString')).toBe(false);
    expect(isEventOfType({ type: 'order.disputed', order: {} }, 'order.settled')).toBe(false);
    expect(isEventOfType({ type: 'order.settled' }, 'order.settled')).toBe(true);
    expect(isEventOfType(null, 'order.settled')).toBe(false);
  });
});
