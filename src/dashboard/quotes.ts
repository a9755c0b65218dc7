/** The competing quotes of an order's RFQ, from whichever route or ledger entry lists them. Pure. */
import { parseTime } from './format.js';
import { list, num, obj, str } from './read.js';

export interface QuoteView {
  quoteId: string;
  solverId?: string;
  outputAmount?: string;
  feeBps?: number;
  lockType?: string;
  settlementPath?: string;
  status?: string;
  expiresAt?: number;
  /** Rank in the answer, 1 = best. */
  rank: number;
}

export function quoteFrom(item: unknown, rank: number): QuoteView | undefined {
  const quoteId = str(item, 'quoteId', 'id');
  if (quoteId === undefined) return undefined;
  const quote: QuoteView = { quoteId, rank };
  const solverId = str(item, 'solverId', 'solver');
  if (solverId !== undefined) quote.solverId = solverId;
  const outputAmount = str(item, 'outputAmount');
  if (outputAmount !== undefined) quote.outputAmount = outputAmount;
  const feeBps = num(item, 'feeBps');
  if (feeBps !== undefined) quote.feeBps = feeBps;
  const lockType = str(item, 'lockType');
  if (lockType !== undefined) quote.lockType = lockType;
  const settlementPath = str(item, 'settlementPath', 'rail');
  if (settlementPath !== undefined) quote.settlementPath = settlementPath;
  const status = str(item, 'status');
  if (status !== undefined) quote.status = status;
  const expiresAt = parseTime((item as { expiresAt?: unknown }).expiresAt);
  if (expiresAt !== undefined) quote.expiresAt = expiresAt;
  return quote;
}

/** A quote set: `{quotes: [...]}` (quote response, RFQ quote list), `{data: [...]}` (page) or an array. */
export function quotesFrom(body: unknown): QuoteView[] {
  const items = list(body, 'quotes', 'data', 'responses');
  const source = items.length > 0 ? items : list(obj(body, 'rfq', 'payload'), 'quotes');
  return source.flatMap((item, i) => quoteFrom(item, i + 1) ?? []);
}

/** Merges quote sets by id, keeping the first rank seen and the richest fields. */
export function mergeQuotes(...sets: QuoteView[][]): QuoteView[] {
  const byId = new Map<string, QuoteView>();
  for (const set of sets) {
    for (const quote of set) {
      const known = byId.get(quote.quoteId);
      byId.set(quote.quoteId, known === undefined ? quote : { ...quote, ...known });
    }
  }
  return [...byId.values()].sort((a, b) => a.rank - b.rank);
}
