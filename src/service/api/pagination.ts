import { z } from 'zod';
import type { Page, PageGap, PageRequest } from '../store/pagination.js';
import { InvalidRequestError } from '../errors/api-errors.js';
import { parseInput } from './parse-input.js';

export const PAGE_LIMIT_DEFAULT = 25;
export const PAGE_LIMIT_MAX = 100;
const CURSOR_VERSION = 'c1';

/** Cursors are opaque to clients: base64url of a small versioned tuple naming a gap between rows. */
export function encodeCursor(gap: PageGap): string {
  const payload = JSON.stringify([CURSOR_VERSION, gap.side === 'after' ? 'a' : 'b', gap.position.key, gap.position.id]);
  return Buffer.from(payload, 'utf8').toString('base64url');
}

/** Undefined for anything that is not a cursor this service issued in this format. */
export function decodeCursor(text: string): PageGap | undefined {
  if (text.length === 0 || text.length > 512 || !/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  try {
    const tuple: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (!Array.isArray(tuple) || tuple.length !== 4) return undefined;
    const [version, side, key, id] = tuple as unknown[];
    if (version !== CURSOR_VERSION || (side !== 'a' && side !== 'b') || typeof id !== 'string') return undefined;
    if (typeof key !== 'string' && !(typeof key === 'number' && Number.isFinite(key))) return undefined;
    const gap: PageGap = { position: { key, id }, side: side === 'a' ? 'after' : 'before' };
    // Only the canonical encoding is accepted: a cursor is either ours, byte for byte, or invalid.
    return encodeCursor(gap) === text ? gap : undefined;
  } catch {
    return undefined;
  }
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
    // What every cursor this service issues looks like (base64url, bounded): the document states it, so a client
    // or a fuzzer generating from the document never sends an empty or foreign-looking cursor expecting success.
    .regex(/^[A-Za-z0-9_-]{1,512}$/, 'is not a cursor issued by this endpoint')
    .transform((text, ctx) => {
      const gap = decodeCursor(text);
      if (gap === undefined) {
        ctx.addIssue({ code: 'custom', message: 'is not a cursor issued by this endpoint' });
        return z.NEVER;
      }
      return gap;
    })
    .optional()
    .meta({ description });

/** Query parameters of every list endpoint; spread it into a list route's query schema for filters. */
export const pageQueryShape = {
  limit: limitParam,
  after: cursorParam('Cursor from a previous `next_cursor`: the page that follows it. Not together with `before`.'),
  before: cursorParam('Cursor from a previous page: the page that precedes it. Not together with `after`.'),
};

export const PageQuery = z.object(pageQueryShape);
export type PageQueryInput = z.output<typeof PageQuery>;

/** Checks the rules zod cannot express per field and applies the default limit. */
export function toPageRequest(query: PageQueryInput): PageRequest {
  if (query.after !== undefined && query.before !== undefined) {
    throw new InvalidRequestError({
      code: 'parameter_invalid',
      param: 'before',
      message: 'Pass either `after` or `before`, not both.',
    });
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
