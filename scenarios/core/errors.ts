import { BaseError } from '../../src/contracts/errors/base-error.js';
/** A scenario did not go as expected: `details` is printable evidence (a timeline diff, the answer received). */
export class ScenarioFailure extends BaseError {
  override readonly name: string = 'ScenarioFailure';
  constructor(
    message: string,
    override readonly details?: string,
  ) {
    super(message);
  }
}

/** An invariant broke after a step. */
export class InvariantFailure extends ScenarioFailure {
  override readonly name = 'InvariantFailure';
}

/**
 * A step could not reach what it checks, for a reason outside the target (a machine too loaded to send a burst
 * faster than the limit refills): the scenario is skipped with this reason, not failed and not passed.
 */
export class ScenarioInconclusive extends BaseError {
  override readonly name = 'ScenarioInconclusive';
}

export function inconclusive(reason: string): never {
  throw new ScenarioInconclusive(reason);
}

export function fail(message: string, details?: string): never {
  throw new ScenarioFailure(message, details);
}

const show = (value: unknown) =>
  typeof value === 'string' ? value : JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));

/** Equality of JSON-able values (bigints allowed), with both sides in the message when they differ. */
export function expectEqual<T>(actual: T, expected: T, what: string): void {
  if (show(actual) !== show(expected)) fail(`${what}: expected ${show(expected)}, got ${show(actual)}`);
}

export function expectThat(condition: boolean, message: string, details?: string): asserts condition {
  if (!condition) fail(message, details);
}
