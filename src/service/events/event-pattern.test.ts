import { describe, expect, it } from 'vitest';
import { EventPatternSet, isWellFormedPattern, matchesSomeKnownType } from './event-pattern.js';

describe('event patterns', () => {
  it('matches exact names and globs', () => {
    const set = new EventPatternSet(['order.*', 'audit.recorded']);
    expect(set.matches('order.created')).toBe(true);
    expect(set.matches('order.settled')).toBe(true);
    expect(set.matches('audit.recorded')).toBe(true);
    expect(set.matches('orders.created')).toBe(false);
    expect(set.matches('compliance.event')).toBe(false);
    expect(new EventPatternSet(['*']).matches('settlement.failed')).toBe(true);
    expect(new EventPatternSet(['settlement.*']).matches('settlement')).toBe(false);
    expect(new EventPatternSet(['*.created']).matches('rfq.created')).toBe(true);
    expect(new EventPatternSet([]).matches('order.created')).toBe(false);
  });

  it('treats regex characters literally', () => {
    expect(isWellFormedPattern('order.(created|settled)')).toBe(false);
    expect(new EventPatternSet(['order.created']).matches('orderXcreated')).toBe(false);
  });

  it('knows which patterns can ever match', () => {
    expect(matchesSomeKnownType('order.*')).toBe(true);
    expect(matchesSomeKnownType('settlement.*')).toBe(true);
    expect(matchesSomeKnownType('order.setled')).toBe(false);
  });
});
