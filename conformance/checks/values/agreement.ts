/**
 * Helpers for judging values rather than shapes: amounts that must name the same quantity in two units, times that
 * must agree within a tolerance, transactions that must exist on the chain they are said to be on, and copies of one
 * event that must carry the same content.
 */
import type { CheckContext } from '../../core/context.js';
import { chainById } from '../../deployment/discover.js';
import { rpcCall } from '../../wire/rpc.js';
import { isObject, isTxHash, type Json } from '../support/shape.js';

/** `amount` names `units` (an integer string in the token's smallest unit): the same integer, or the decimal in whole tokens. */
export function sameAmount(amount: unknown, units: unknown, decimals: number): boolean {
  if (typeof amount !== 'string' || typeof units !== 'string' || !/^\d+$/.test(units)) return false;
  if (amount === units) return true;
  const match = /^(\d+)(?:\.(\d+))?$/.exec(amount);
  if (!match) return false;
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > decimals) return false;
  return BigInt(match[1]!) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0') === BigInt(units);
}

/** Milliseconds of an ISO time, Unix seconds or Unix milliseconds; NaN otherwise. */
export function timeMs(value: unknown): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value > 1e11 ? value : value * 1_000;
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value)) return Date.parse(value);
  return Number.NaN;
}

/** Two times (any of the forms above) within `toleranceMs` of each other. */
export function sameTime(a: unknown, b: unknown, toleranceMs = 1_000): boolean {
  const x = timeMs(a);
  const y = timeMs(b);
  return Number.isFinite(x) && Number.isFinite(y) && Math.abs(x - y) <= toleranceMs;
}

export function sameHash(a: unknown, b: unknown): boolean {
  return typeof a === 'string' && typeof b === 'string' && a.toLowerCase() === b.toLowerCase();
}

export interface MinedTransaction {
  status: string | undefined;
  blockNumber: bigint;
  /** Block time in ms. */
  blockTimeMs: number;
}

/** The receipt and block time of `hash` on `chainId` (JSON-RPC, kept as evidence); undefined when it is not there. */
export async function minedTransaction(ctx: CheckContext, chainId: unknown, hash: unknown): Promise<MinedTransaction | undefined> {
  const chain = typeof chainId === 'number' ? chainById(ctx.target, chainId) : undefined;
  if (!chain || !isTxHash(hash)) return undefined;
  const receipt = await rpcCall<{ status?: string; blockNumber?: string; blockHash?: string } | null>(
    chain.rpcUrl,
    'eth_getTransactionReceipt',
    [hash],
    chain.chainId,
  );
  ctx.evidence.push(receipt.evidence);
  if (!receipt.result?.blockNumber) return undefined;
  const block = await rpcCall<{ timestamp?: string } | null>(
    chain.rpcUrl,
    'eth_getBlockByNumber',
    [receipt.result.blockNumber, false],
    chain.chainId,
  );
  ctx.evidence.push(block.evidence);
  return {
    status: receipt.result.status,
    blockNumber: BigInt(receipt.result.blockNumber),
    blockTimeMs: block.result?.timestamp ? Number(BigInt(block.result.timestamp)) * 1_000 : Number.NaN,
  };
}

/** JSON with object keys sorted: two copies of one event compare equal whatever order their keys came in. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value))
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/**
 * Paths where two copies of one record disagree: fields both carry with different values. A field only one copy
 * carries is not a disagreement (unknown fields are allowed, and a channel may add its own).
 */
export function disagreements(a: unknown, b: unknown, path = ''): string[] {
  if (isObject(a) && isObject(b))
    return Object.keys(a)
      .filter((k) => k in b)
      .flatMap((k) => disagreements(a[k], b[k], path ? `${path}.${k}` : k));
  return canonical(a) === canonical(b) ? [] : [path || '(value)'];
}

/**
 * Events de-duplicated by id, as the spec tells consumers to do (the same event may arrive more than once). Copies
 * of one id that differ in content are returned as `conflicts`: an id names one event.
 */
export function dedupeById<T extends Json>(events: readonly T[]): { unique: T[]; conflicts: string[] } {
  const byId = new Map<string, T>();
  const unique: T[] = [];
  const conflicts: string[] = [];
  for (const event of events) {
    const id = String(event.id);
    const seen = byId.get(id);
    if (seen === undefined) {
      byId.set(id, event);
      unique.push(event);
    } else if (disagreements(seen, event).length > 0 && !conflicts.includes(id)) conflicts.push(id);
  }
  return { unique, conflicts };
}
