/**
 * Small shape predicates for wire values. The certifier judges bytes on the wire with its own reading of the
 * spec, not with the service's schemas.
 */
export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** ISO-8601 date-time (with a zone) that parses. */
export function isIsoTime(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(value) &&
    !Number.isNaN(Date.parse(value))
  );
}

export function isIntegerString(value: unknown): value is string {
  return typeof value === 'string' && /^(0|[1-9]\d*)$/.test(value);
}

export function isPositiveIntegerString(value: unknown): value is string {
  return isIntegerString(value) && value !== '0';
}

export function isDecimalString(value: unknown): value is string {
  return typeof value === 'string' && /^-?(0|[1-9]\d*)(\.\d+)?$/.test(value);
}

export function isAddress(value: unknown): value is string {
  return typeof value === 'string' && /^0x[0-9a-fA-F]{40}$/.test(value);
}

export function isTxHash(value: unknown): value is string {
  return typeof value === 'string' && /^0x[0-9a-fA-F]{64}$/.test(value);
}

export function isHexBytes(value: unknown): value is string {
  return typeof value === 'string' && /^0x([0-9a-fA-F]{2})+$/.test(value);
}

export function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

export function hasPrefix(value: unknown, prefix: string): value is string {
  return typeof value === 'string' && value.startsWith(prefix) && value.length > prefix.length;
}

export function sameAddress(a: unknown, b: unknown): boolean {
  return typeof a === 'string' && typeof b === 'string' && a.toLowerCase() === b.toLowerCase();
}

/** Unix seconds: a positive integer in a plausible range (after 2001, before 2286). */
export function isUnixSeconds(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 1e9 && value < 1e10;
}

/** Fields missing or of the wrong kind: `[name, predicate, description]` triples → a readable list. */
export function fieldProblems(
  object: unknown,
  fields: ReadonlyArray<readonly [string, (v: unknown) => boolean, string]>,
  where: string,
): string[] {
  if (!isObject(object)) return [`${where} is not a JSON object`];
  const problems: string[] = [];
  for (const [name, predicate, description] of fields) {
    if (!(name in object)) problems.push(`${where}.${name} is missing`);
    else if (!predicate(object[name]))
      problems.push(`${where}.${name} is ${JSON.stringify(object[name])?.slice(0, 80)}, not ${description}`);
  }
  return problems;
}

export function optional(predicate: (v: unknown) => boolean): (v: unknown) => boolean {
  return (v) => v === undefined || v === null || predicate(v);
}

export function oneOf(...values: readonly string[]): (v: unknown) => boolean {
  return (v) => typeof v === 'string' && values.includes(v);
}

export const isString = (v: unknown): v is string => typeof v === 'string';
export const isNonEmptyString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
export const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';
export const isArray = (v: unknown): v is unknown[] => Array.isArray(v);

export { LOCK_TYPES, ORDER_STATUSES } from '../../../src/contracts/wire/enums.js';
export const SETTLEMENT_PATHS = ['compliant', 'direct'] as const;
export const SETTLEMENT_STATES = ['Deposited', 'Filled', 'Attested', 'Settled', 'Refunded'] as const;
export const TIMELINE_STAGES = ['rfq', 'deposited', 'filled', 'attested', 'claimed', 'refunded'] as const;
/** `<origin-chain>:<token>-<destination-chain>:<token>`; chain names may hold hyphens, token symbols not. */
export const CORRIDOR_ID = /^[^:\s]+:[^:\s-]+-[^:\s]+:[^:\s]+$/;
