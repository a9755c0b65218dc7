/**
 * How a reference solver prices: a margin, a flat gas charge per fill, a simulated quoting latency and an
 * inventory limit per destination token. Strategies come from the seeded faker (reseeded before every draw, all synchronous), so a seed always gives the same
 * field of solvers (and the same auction outcomes).
 */
// The English locale's own entry: the package's main entry compiles every locale (about 0.1 s of `sandbox up`).
import { faker } from '@faker-js/faker/locale/en';
import type { RfqDetails } from '../clients/solver-stream-client.js';

export interface PricingStrategy {
  /** Kept on every trade, in basis points of the notional. */
  marginBps: number;
  /** Flat charge per fill for destination gas, in whole tokens (1 stable token = 1 USD). */
  gasCost: number;
  /** Simulated time to price an RFQ, wall ms. */
  latencyMs: number;
  /** Output a solver is willing to deliver per destination token, whole tokens; orders it wins draw it down. */
  inventory: number;
  /** Reported with each quote (Reference B `confidence`). */
  confidence: number;
}

/** The strategy of solver `index` under `seed`: margins 1–12 bp, gas 0.05–0.90, latency 0–25 ms, inventory 2–8 M. */
export function strategyFromSeed(seed: number, index: number): PricingStrategy {
  faker.seed([seed, index]);
  return {
    marginBps: faker.number.int({ min: 1, max: 12 }),
    gasCost: faker.number.float({ min: 0.05, max: 0.9, fractionDigits: 2 }),
    latencyMs: faker.number.int({ min: 0, max: 25 }),
    inventory: faker.number.int({ min: 2_000, max: 8_000 }) * 1_000,
    confidence: faker.number.float({ min: 0.8, max: 1, fractionDigits: 2 }),
  };
}

/** A display name from the seed (stable across runs), e.g. `reference-2 (brisk otter)`. */
export function solverNameFromSeed(seed: number, index: number): string {
  faker.seed([seed, index, 7]);
  return `reference-${index + 1} (${faker.word.adjective()} ${faker.animal.type()})`;
}

export type PricedQuote = { outputAmount: string } | { inputAmount: string };

const BPS = 10_000n;

function units(whole: number, decimals: number): bigint {
  // Two decimals are enough for a gas charge; avoids floating point in token amounts.
  return (BigInt(Math.round(whole * 100)) * 10n ** BigInt(decimals)) / 100n;
}

function convert(amount: bigint, fromDecimals: number, toDecimals: number, roundUp: boolean): bigint {
  if (toDecimals >= fromDecimals) return amount * 10n ** BigInt(toDecimals - fromDecimals);
  const divisor = 10n ** BigInt(fromDecimals - toDecimals);
  return roundUp ? (amount + divisor - 1n) / divisor : amount / divisor;
}

/**
 * The solver's price for an RFQ, or undefined when it would rather decline: out of inventory, or a price the
 * RFQ's limits (`minOutputAmount` / `maxInputAmount`) would refuse anyway.
 */
export function priceRfq(strategy: PricingStrategy, rfq: RfqDetails, inventoryLeft: bigint): PricedQuote | undefined {
  const margin = BigInt(strategy.marginBps);
  if (rfq.swapType === 'exactInput') {
    const input = BigInt(rfq.inputAmount!);
    const gross = convert((input * (BPS - margin)) / BPS, rfq.inputDecimals, rfq.outputDecimals, false);
    const output = gross - units(strategy.gasCost, rfq.outputDecimals);
    if (output <= 0n || output > inventoryLeft) return undefined;
    if (rfq.minOutputAmount !== undefined && output < BigInt(rfq.minOutputAmount)) return undefined;
    return { outputAmount: output.toString() };
  }
  const output = BigInt(rfq.outputAmount!);
  if (output > inventoryLeft) return undefined;
  const needed = output + units(strategy.gasCost, rfq.outputDecimals);
  const input = convert((needed * BPS + (BPS - margin) - 1n) / (BPS - margin), rfq.outputDecimals, rfq.inputDecimals, true);
  if (rfq.maxInputAmount !== undefined && input > BigInt(rfq.maxInputAmount)) return undefined;
  return { inputAmount: input.toString() };
}
