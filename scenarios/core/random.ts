import { Faker, base, en } from '@faker-js/faker';
import { type Hex, keccak256, stringToBytes } from 'viem';

/** Default `--seed`. */
export const DEFAULT_SEED = 1;

/** A 32-bit integer from a seed and a scope, stable across runs and platforms. */
export function scopedSeed(seed: number, scope: string): number {
  const digest = keccak256(stringToBytes(`settlement-scenarios:${seed}:${scope}`));
  return Number.parseInt(digest.slice(2, 10), 16);
}

/**
 * Everything a scenario draws at random, from `--seed` and the scenario's name: the same seed gives the same
 * participants and amounts whatever else runs (each scenario has its own stream), so a failing scenario is
 * reproduced by running it alone with the seed of the failing run.
 */
export class ScenarioRandom {
  readonly faker: Faker;

  /**
   * `run`: what makes this run's keys its own (the session draws it fresh per run). Keys are never seed-fixed: a
   * long-lived sandbox keeps what an earlier run's participants owned and owed (a refund landing late, an order left
   * open by a failed run), and that must never show up in a later run's balance checks. Names and amounts stay
   * seeded, so a failing run is still reproduced by its seed.
   */
  constructor(
    readonly seed: number,
    readonly scope: string,
    readonly run = '',
  ) {
    this.faker = new Faker({ locale: [en, base] });
    this.faker.seed(scopedSeed(seed, scope));
  }

  /** A private key for an actor of this scenario (never a key that holds anything outside the devnet). */
  privateKey(label: string): Hex {
    return keccak256(stringToBytes(`settlement-scenarios:key:${this.seed}:${this.run}:${this.scope}:${label}`));
  }

  /** A display name for an actor: `alice (Garnet Reynolds)`. */
  personName(): string {
    return `${this.faker.person.firstName()} ${this.faker.person.lastName()}`;
  }

  /**
   * An amount in whole tokens and cents, within a corridor's limits (10,000 to 1,000,000 USD), returned in the
   * token's smallest unit.
   */
  amount(decimals: number, range: { min?: number; max?: number } = {}): bigint {
    const whole = this.faker.number.int({ min: range.min ?? 10_000, max: range.max ?? 60_000 });
    const cents = this.faker.number.int({ min: 0, max: 99 });
    return (BigInt(whole) * 100n + BigInt(cents)) * 10n ** BigInt(decimals - 2);
  }
}
