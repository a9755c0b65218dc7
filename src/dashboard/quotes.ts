/**
 * The competing quotes of an order's RFQ, from whichever source lists them: the RFQ view (`GET
 * /api/v1/quotes/{rfqId}`: every invited solver, declines and silence included), the `quotes.collected` ledger
 * entry, or the single quote the order took. Pure.
 */
import { parseTime } from './format.js';
import { list, num, str } from './read.js';

export interface QuoteView {
  /** The quote id, or `solver:<id>` for a solver that answered without a quote. */
  key: string;
  quoteId?: string;
  solverId?: string;
  solverName?: string;
  /** `quoted`, `declined`, `rejected`, `silent` (RFQ view only). */
  outcome?: string;
  reason?: string;
  outputAmount?: string;
  feeBps?: number;
  latencyMs?: number;
  lockType?: string;
  settlementPath?: string;
  status?: string;
  expiresAt?: number;
  /** 1 = best; solvers without a quote sort after every quote. */
  rank: number;
}

const UNRANKED = 1_000_000;

export function quoteFrom(item: unknown, position: number): QuoteView | undefined {
  const quoteId = str(item, 'quoteId', 'id');
  const solverId = str(item, 'solverId', 'solver');
  if (quoteId === undefined && solverId === undefined) return undefined;
  const rank = num(item, 'rank') ?? (quoteId === undefined ? UNRANKED + position : position);
  const quote: QuoteView = { key: quoteId ?? `solver:${solverId}`, rank };
  const fields = {
    quoteId,
    solverId,
    solverName: str(item, 'solverName'),
    outcome: str(item, 'outcome'),
    reason: str(item, 'reason'),
    outputAmount: str(item, 'outputAmount'),
    feeBps: num(item, 'feeBps'),
    latencyMs: num(item, 'latencyMs'),
    lockType: str(item, 'lockType'),
    settlementPath: str(item, 'settlementPath', 'rail'),
    status: str(item, 'quoteStatus', 'status'),
    expiresAt: parseTime((item as { expiresAt?: unknown }).expiresAt),
  };
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) (quote as unknown as Record<string, unknown>)[name] = value;
  return quote;
}

/** A quote set: `{quotes}` (quote response, ledger payload), `{responses}` (RFQ view), `{data}` or an array. */
export function quotesFrom(body: unknown): QuoteView[] {
  return list(body, 'quotes', 'responses', 'data')
    .flatMap((item, i) => quoteFrom(item, i + 1) ?? [])
    .sort((a, b) => a.rank - b.rank);
}

/** Merges sets by key: earlier sets win field by field, later ones fill gaps. */
export function mergeQuotes(...sets: QuoteView[][]): QuoteView[] {
  const byKey = new Map<string, QuoteView>();
  for (const set of sets) {
    for (const quote of set) {
      const known = byKey.get(quote.key);
      byKey.set(quote.key, known === undefined ? quote : { ...quote, ...known });
    }
  }
  return [...byKey.values()].sort((a, b) => a.rank - b.rank);
}
