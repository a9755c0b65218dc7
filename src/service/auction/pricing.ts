/**
 * Price arithmetic of the auction, exact in bigint. Tokens of a corridor may have different decimals, so every
 * comparison first brings both amounts to one scale (18 decimals). Basis points are reported to 0.01 bp.
 */

const SCALE_DECIMALS = 18;
/** Hundredths of a basis point per unit: results keep two decimals of a bp. */
const CENTI_BPS = 1_000_000n;

/** `amount` (smallest unit of a token with `decimals`) on the common 18-decimal scale. */
export function normalise(amount: bigint, decimals: number): bigint {
  if (decimals > SCALE_DECIMALS) return amount / 10n ** BigInt(decimals - SCALE_DECIMALS);
  return amount * 10n ** BigInt(SCALE_DECIMALS - decimals);
}

/** `amount` of one token expressed in the smallest unit of another (rounded down). */
export function convertUnits(amount: bigint, fromDecimals: number, toDecimals: number): bigint {
  if (toDecimals >= fromDecimals) return amount * 10n ** BigInt(toDecimals - fromDecimals);
  return amount / 10n ** BigInt(fromDecimals - toDecimals);
}

/** Mid-market rate as a fraction: output tokens per input token, whole units. Stable corridors are 1:1. */
export interface MidPrice {
  numerator: bigint;
  denominator: bigint;
}

export const PAR: MidPrice = { numerator: 1n, denominator: 1n };

function centiBps(numerator: bigint, denominator: bigint): number {
  // Truncates toward zero, so a fee never looks smaller than it is by rounding up the output.
  return Number((numerator * CENTI_BPS) / denominator) / 100;
}

export interface TradeAmounts {
  inputAmount: bigint;
  inputDecimals: number;
  outputAmount: bigint;
  outputDecimals: number;
}

/**
 * Effective fee versus par, gas included: (input − output) / input in bps, both normalised. Everything the solver
 * keeps (margin, gas, inventory cost) is in the gap between what the taker sends and what it receives.
 * Negative when the solver pays out more than it receives.
 */
export function feeBps(trade: TradeAmounts): number {
  const input = normalise(trade.inputAmount, trade.inputDecimals);
  const output = normalise(trade.outputAmount, trade.outputDecimals);
  if (input === 0n) throw new RangeError('feeBps: input amount is zero');
  return centiBps(input - output, input);
}

/** Deviation of the quote from the mid-market rate: (input × mid − output) / (input × mid) in bps. */
export function priceImpactBps(trade: TradeAmounts, mid: MidPrice = PAR): number {
  const fair = normalise(trade.inputAmount, trade.inputDecimals) * mid.numerator;
  const output = normalise(trade.outputAmount, trade.outputDecimals) * mid.denominator;
  if (fair === 0n) throw new RangeError('priceImpactBps: input amount is zero');
  return centiBps(fair - output, fair);
}

/** `amount` smallest units as a decimal string of whole tokens, without trailing zeros: 25000500000 (6) → "25000.5". */
export function toDecimalString(amount: bigint, decimals: number): string {
  const negative = amount < 0n;
  const digits = (negative ? -amount : amount).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/**
 * A decimal string of whole tokens in smallest units; undefined when it is not a plain non-negative decimal or
 * carries more fractional digits than the token has.
 */
export function parseDecimalString(text: string, decimals: number): bigint | undefined {
  const match = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/.exec(text);
  if (match === null) return undefined;
  const fraction = match[2] ?? '';
  if (fraction.length > decimals) return undefined;
  return BigInt(match[1]! + fraction.padEnd(decimals, '0'));
}

/** Output per input in whole tokens, as a decimal string with the output token's precision: "0.9995". */
export function priceString(trade: TradeAmounts): string {
  const input = normalise(trade.inputAmount, trade.inputDecimals);
  const output = normalise(trade.outputAmount, trade.outputDecimals);
  if (input === 0n) throw new RangeError('price: input amount is zero');
  return toDecimalString((output * 10n ** BigInt(trade.outputDecimals)) / input, trade.outputDecimals);
}

/** Smallest output a quote may offer when the taker tolerates at most `maxFeeBps` (rounded up). */
export function minimumOutput(inputAmount: bigint, inputDecimals: number, outputDecimals: number, maxFeeBps: number): bigint {
  const kept = BigInt(10_000 - maxFeeBps);
  const scaled = convertUnitsCeil(inputAmount * kept, inputDecimals, outputDecimals);
  return ceilDiv(scaled, 10_000n);
}

/** Largest input a quote may ask for an exact output when the taker tolerates at most `maxFeeBps` (rounded down). */
export function maximumInput(outputAmount: bigint, outputDecimals: number, inputDecimals: number, maxFeeBps: number): bigint {
  const kept = BigInt(10_000 - maxFeeBps);
  return convertUnits(outputAmount * 10_000n, outputDecimals, inputDecimals) / kept;
}

function convertUnitsCeil(amount: bigint, fromDecimals: number, toDecimals: number): bigint {
  if (toDecimals >= fromDecimals) return amount * 10n ** BigInt(toDecimals - fromDecimals);
  return ceilDiv(amount, 10n ** BigInt(fromDecimals - toDecimals));
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}
