import type { CheckContext } from '../../core/context.js';
import type { WireResponse } from '../../wire/http.js';
import { flowsUntil } from '../events-at-hand.js';
import { BOTH, check, PHASE } from '../support/define.js';
import { expectError } from '../support/errors.js';
import { fieldProblems, isArray, isBoolean, isFiniteNumber, isObject } from '../support/shape.js';

/** Paginated lists of the spec (settlements) first; the sessions list as a stand-in on a bare platform. */
const LISTS = ['/settlements', '/auth/sessions'];

interface Page {
  ids: string[];
  hasMore: boolean;
  nextCursor: string | null;
  total: number | undefined;
}

function itemId(item: unknown, index: number): string {
  if (!isObject(item)) return `#${index}:${JSON.stringify(item)}`;
  const id = item.id ?? item.orderId ?? item.settlementId;
  return typeof id === 'string' ? id : `#${index}:${JSON.stringify(item).slice(0, 40)}`;
}

function readPage(response: WireResponse): Page | undefined {
  const body = response.json;
  if (!isObject(body) || !isArray(body.data)) return undefined;
  return {
    ids: body.data.map(itemId),
    hasMore: body.has_more === true,
    nextCursor: typeof body.next_cursor === 'string' ? body.next_cursor : null,
    total: typeof body.total_count === 'number' ? body.total_count : undefined,
  };
}

/** The list to page through: the served one with the most items. */
function pickList(ctx: CheckContext, again = false): Promise<{ path: string; total: number }> {
  const key = ctx.key;
  // `again`: looked at afresh (the lists grew since), not the answer kept for the run.
  const pick = async () => {
    let best: { path: string; total: number } | undefined;
    for (const path of LISTS) {
      const response = await ctx.api('GET', path, { auth: key, query: { limit: 1 }, label: `is ${path} a page list?`, record: false });
      const page = response.status === 200 ? readPage(response) : undefined;
      if (page === undefined) continue;
      const total = page.total ?? (page.hasMore ? 2 : page.ids.length);
      if (best === undefined || total > best.total) best = { path, total };
    }
    if (best === undefined) ctx.fail(`none of ${LISTS.join(', ')} answers a page envelope to the deployment's key`);
    return best;
  };
  return again ? pick() : ctx.fixture(`pagination-list-${ctx.checkId.startsWith('pagination.walk') ? 'late' : 'early'}`, pick);
}

async function getPage(
  ctx: CheckContext,
  path: string,
  query: Record<string, string | number>,
  label: string,
): Promise<{ response: WireResponse; page: Page }> {
  const response = await ctx.api('GET', path, { auth: ctx.key, query, label, record: false });
  const page = readPage(response);
  if (response.status !== 200 || page === undefined) {
    ctx.evidence.push(response.evidence);
    ctx.fail(
      `GET ${path} ${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString()} answered ${response.status} without a page envelope`,
    );
  }
  return { response, page };
}

/** Follows next_cursor in one direction until has_more is false. */
async function walk(
  ctx: CheckContext,
  path: string,
  direction: 'after' | 'before',
  start: string | undefined,
  limit: number,
): Promise<{ ids: string[]; pages: Page[] }> {
  const ids: string[] = [];
  const pages: Page[] = [];
  let cursor = start;
  for (let i = 0; i < 200; i += 1) {
    const query: Record<string, string | number> = { limit, ...(cursor === undefined ? {} : { [direction]: cursor }) };
    const { page } = await getPage(ctx, path, query, `${direction} walk page ${i + 1}`);
    pages.push(page);
    ids.push(...page.ids);
    if (!page.hasMore || page.nextCursor === null) break;
    cursor = page.nextCursor;
  }
  return { ids, pages };
}

export const paginationChecks = [
  check({
    id: 'pagination.envelope',
    title: 'Lists answer {data, has_more, next_cursor, total_count}; default page size 25, at most 100',
    requirements: ['X-PAG-001', 'X-PAG-002'],
    profiles: BOTH,
    tags: ['platform', 'pagination'],
    needs: ['apiKey'],
    phase: PHASE.platform,
    async run(ctx: CheckContext) {
      const { path, total } = await pickList(ctx);
      const response = await ctx.api('GET', path, { auth: ctx.key, label: 'default page' });
      ctx.require('X-PAG-001', response.status === 200, `GET ${path} answered ${response.status}`);
      const problems = fieldProblems(
        response.json,
        [
          ['data', isArray, 'an array'],
          ['has_more', isBoolean, 'a boolean'],
          ['next_cursor', (v) => v === null || typeof v === 'string', 'a cursor string (or null on the last page)'],
          ['total_count', isFiniteNumber, 'a number'],
        ],
        path,
      );
      ctx.expect('X-PAG-001', problems.length === 0, problems.join('; '));
      const page = readPage(response);
      if (page) {
        ctx.expect('X-PAG-002', page.ids.length <= 25, `the default page holds ${page.ids.length} items, more than 25`);
        if (total > 25)
          ctx.expect('X-PAG-002', page.ids.length === 25, `the default page holds ${page.ids.length} of ${total} items, not 25`);
      }
      const hundred = await ctx.api('GET', path, { auth: ctx.key, query: { limit: 100 }, label: 'limit=100' });
      ctx.expect('X-PAG-002', hundred.status === 200, `limit=100 answered ${hundred.status}`);
      const over = await ctx.api('GET', path, { auth: ctx.key, query: { limit: 101 }, label: 'limit=101' });
      if (over.status === 200) {
        const overPage = readPage(over);
        ctx.expect('X-PAG-002', overPage !== undefined && overPage.ids.length <= 100, 'limit=101 returned more than 100 items');
      } else {
        expectError(ctx, over, { status: 400, type: 'invalid_request', param: 'limit' }, 'X-PAG-002', 'limit=101');
      }
      for (const bad of ['0', '-1', 'abc']) {
        const response = await ctx.api('GET', path, { auth: ctx.key, query: { limit: bad }, label: `limit=${bad}` });
        expectError(ctx, response, { status: 400, type: 'invalid_request', param: 'limit' }, 'X-PAG-002', `limit=${bad}`);
      }
      ctx.note(`checked on ${path} (${total} items)`);
    },
  }),

  check({
    id: 'pagination.after-and-before',
    title: 'after and before together are a 400 naming the parameter',
    requirements: ['X-PAG-004'],
    profiles: BOTH,
    tags: ['platform', 'pagination'],
    needs: ['apiKey'],
    phase: PHASE.platform,
    async run(ctx: CheckContext) {
      const { path } = await pickList(ctx);
      // A real cursor for both: with made-up ones, a deployment that ignored one of the two would still answer 400
      // for the other and pass unnoticed.
      const { page } = await getPage(ctx, path, { limit: 1 }, 'a cursor to use twice');
      const cursor = page.nextCursor ?? undefined;
      if (cursor === undefined) ctx.note('the list has one page only: made-up cursors stand in for real ones');
      const query = { after: cursor ?? 'x', before: cursor ?? 'y' };
      const response = await ctx.api('GET', path, { auth: ctx.key, query, label: 'after and before' });
      expectError(
        ctx,
        response,
        { status: 400, type: 'invalid_request', param: ['after', 'before'] },
        'X-PAG-004',
        'after and before together',
      );
    },
  }),

  check({
    id: 'pagination.walk',
    title: 'Walking pages forward covers the list once; forward and backward from one cursor partition it',
    requirements: ['X-PAG-003', 'X-PAG-005'],
    profiles: BOTH,
    tags: ['platform', 'pagination'],
    needs: ['apiKey'],
    // After the refund flows too: every order of the run makes the list longer.
    phase: PHASE.timing + 5,
    async run(ctx: CheckContext) {
      let { path } = await pickList(ctx);
      let { page: first } = await getPage(ctx, path, { limit: 100 }, 'the whole list');
      let total = first.total ?? first.ids.length;
      if (total < 2) {
        // Selected without the flows: each order they make lengthens the list.
        await flowsUntil(ctx, async () => {
          ({ path } = await pickList(ctx, true));
          ({ page: first } = await getPage(ctx, path, { limit: 100 }, 'the whole list'));
          total = first.total ?? first.ids.length;
          return total >= 2;
        });
      }
      if (total < 2) ctx.skip(`${path} holds ${total} item(s) after the success flows; a walk needs at least 2`);
      // Small pages, but never more than about 15 of them per walk.
      const limit = Math.min(100, Math.max(1, Math.ceil(total / 15)));
      const forward = await walk(ctx, path, 'after', undefined, limit);
      ctx.expect(
        'X-PAG-003',
        new Set(forward.ids).size === forward.ids.length,
        `the forward walk repeats items: ${forward.ids.length} seen, ${new Set(forward.ids).size} distinct`,
      );
      ctx.expect('X-PAG-003', forward.ids.length === total, `the forward walk saw ${forward.ids.length} items, total_count is ${total}`);
      ctx.expect(
        'X-PAG-005',
        forward.pages.every((p) => p.hasMore === (p.nextCursor !== null)),
        'next_cursor is not null exactly when has_more is false',
      );
      // Forward and backward from the cursor after the first page split the list exactly.
      const { page: head } = await getPage(ctx, path, { limit }, 'first page');
      ctx.require('X-PAG-003', head.ids.length === limit, `the first page with limit=${limit} holds ${head.ids.length} items`);
      const cursor = head.nextCursor;
      if (cursor === null) ctx.fail('the first page of a longer list has no next_cursor');
      const rest = await walk(ctx, path, 'after', cursor, limit);
      const back = await walk(ctx, path, 'before', cursor, limit);
      const union = [...back.ids, ...rest.ids];
      ctx.expect('X-PAG-005', new Set(union).size === union.length, 'forward and backward from one cursor overlap');
      ctx.expect(
        'X-PAG-005',
        new Set(union).size === total && forward.ids.every((id) => union.includes(id)),
        `forward (${rest.ids.length}) and backward (${back.ids.length}) from one cursor do not make up the ${total} items`,
      );
      ctx.expect(
        'X-PAG-003',
        back.ids.slice().sort().join() === head.ids.slice().sort().join(),
        `before the cursor: ${back.ids.join(', ')}; the first page held ${head.ids.join(', ')}`,
      );
      ctx.note(`${path}: ${total} items in ${forward.pages.length} pages of ${limit}`);
    },
  }),
];
