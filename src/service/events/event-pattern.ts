import { knownEventTypes } from './event-types.js';

/**
 * Event-type patterns shared by webhook registrations (`events: ["order.*"]`) and Reference B WebSocket
 * channels (`settlement.*`): an exact type, or a glob where `*` stands for any run of characters.
 */
const PATTERN = /^(\*|[a-z0-9_*]+(\.[a-z0-9_*]+)*)$/;

export function isWellFormedPattern(pattern: string): boolean {
  return pattern.length <= 100 && PATTERN.test(pattern);
}

function toRegExp(pattern: string): RegExp {
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`);
}

/** A compiled set of patterns; `matches(type)` is true when any pattern matches. */
export class EventPatternSet {
  readonly patterns: readonly string[];
  private readonly exact = new Set<string>();
  private readonly globs: RegExp[] = [];

  constructor(patterns: readonly string[]) {
    this.patterns = [...patterns];
    for (const pattern of patterns) {
      if (pattern.includes('*')) this.globs.push(toRegExp(pattern));
      else this.exact.add(pattern);
    }
  }

  matches(type: string): boolean {
    return this.exact.has(type) || this.globs.some((glob) => glob.test(type));
  }

  get empty(): boolean {
    return this.patterns.length === 0;
  }
}

/** True when the pattern matches at least one event type the service can publish. */
export function matchesSomeKnownType(pattern: string): boolean {
  const set = new EventPatternSet([pattern]);
  return knownEventTypes().some((type) => set.matches(type));
}
