import { z } from 'zod';
import type { Page, PageGap, PageRequest } from '../store/pagination.js';
import { InvalidRequestError } from '../errors/api-errors.js';
import { parseInput } from './parse-input.js';

export const PAGE_LIMIT_DEFAULT = 25;
export const PAGE_LIMIT_MAX = 100;

/**
 * A cursor names a gap between rows: `a` (just after) or `b` (just before) a row, then the row's sort key (an
 * integer: every list sorts by a creation time in ms) and, after a dot, its id: `a1716822000000.ord_3k9x…`. The
 * pattern is the whole rule, so the document states exactly what the service accepts: any text matching it names a
 * position in the list's order (one another endpoint issued, or one made up, is a position too: the page starts
 * there). Clients should still treat it as opaque and pass back what `next_cursor` gave them.
 */
const CURSOR_PATTERN = /^([ab])(0|[1-9][0-9]{0,15})\.([0-9A-Za-z_]{1,128})$/;

export function encodeCursor(gap: PageGap): string {
  const { key, id } = gap.position;
  if (typeof key !== 'number' || !Number.isSafeInteger(key) || key < 0)
    throw new RangeError(`cursor: sort key ${key} is not a whole number`);
  const text = `${gap.side === 'after' ? 'a' : 'b'}${key}.${id}`;
  if (!CURSOR_PATTERN.test(text)) throw new RangeError(`cursor: row id ${JSON.stringify(id)} cannot be written into a cursor`);
  return text;
}

/** Undefined for anything that does not match the cursor pattern. */
export function decodeCursor(text: string): PageGap | undefined {
  const match = CURSOR_PATTERN.exec(text);
  if (match === null) return undefined;
  return { position: { key: Number(match[2]), id: match[3]! }, side: match[1] === 'a' ? 'after' : 'before' };
}

const limitParam = z
  .string()
  // The pattern is the whole rule (1 to 100), so the document states exactly what the service accepts.
  .regex(/^(100|[1-9][0-9]?)$/, `must be an integer from 1 to ${PAGE_LIMIT_MAX}`)
  .transform(Number)
  .refine((n) => n >= 1 && n <= PAGE_LIMIT_MAX, `must be an integer from 1 to ${PAGE_LIMIT_MAX}`)
  .optional()
  .meta({ description: `Results per page, 1 to ${PAGE_LIMIT_MAX}; default ${PAGE_LIMIT_DEFAULT}.` });

const cursorParam = (description: string) =>
  z
    .string()
    // The document states the cursor's form exactly (see CURSOR_PATTERN): what matches is accepted.
    .regex(CURSOR_PATTERN, 'is not a cursor: a or b, a whole number, a dot and a row id (pass back a `next_cursor`)')
    .transform((text, ctx) => {
      const gap = decodeCursor(text);
      if (gap === undefined) {
        ctx.addIssue({ code: 'custom', message: 'is not a cursor' });
        return z.NEVER;
      }
      return gap;
    })
    .optional()
    .meta({ description });

/** Query parameters of every list endpoint; spread it into a list route's query schema for filters. */
export const pageQueryShape = {
  limit: limitParam,
  after: cursorParam('Cursor from a previous `next_cursor`: the page that follows it. Never together with `before` (400, param `before`).'),
  before: cursorParam('Cursor from a previous page: the page that precedes it. Never together with `after` (400, param `before`).'),
};

export const PageQuery = z.object(pageQueryShape);
export type PageQueryInput = z.output<typeof PageQuery>;

/**
 * Applies the default limit, and the one rule a query schema cannot state: `after` and `before` exclude each other
 * (conventions.md, Pagination: a 400 naming the parameter, as Stripe's starting_after/ending_before).
 */
export function toPageRequest(query: PageQueryInput): PageRequest {
  if (query.after !== undefined && query.before !== undefined) {
    throw new InvalidRequestError({ code: 'parameter_invalid', param: 'before', message: 'Pass either `after` or `before`, not both.' });
  }
  return { limit: query.limit ?? PAGE_LIMIT_DEFAULT, after: query.after, before: query.before };
}

/** `limit`, `after`, `before` from a raw express query, or the 400 naming the bad one. */
export function parsePageQuery(query: unknown): PageRequest {
  const parsed = parseInput(PageQuery, query ?? {}, 'query') as PageQueryInput;
  return toPageRequest(parsed);
}

export interface PageEnvelope<T> {
  data: T[];
  has_more: boolean;
  /** Continue in the direction walked: pass as `after` after a forward page, as `before` after a backward one. */
  next_cursor: string | null;
  total_count: number;
}

export function pageEnvelope<Row, T>(page: Page<Row>, present: (row: Row) => T): PageEnvelope<T> {
  return {
    data: page.items.map(present),
    has_more: page.hasMore,
    next_cursor: page.next === undefined ? null : encodeCursor(page.next),
    total_count: page.total,
  };
}

/** The wire schema of a page of `item`s, for responses and the OpenAPI document. */
export function pageSchema<S extends z.ZodType>(item: S) {
  return z.object({
    data: z.array(item),
    has_more: z.boolean(),
    next_cursor: z.string().nullable(),
    total_count: z.number().int().nonnegative(),
  });
}
