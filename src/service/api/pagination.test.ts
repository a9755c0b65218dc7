import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from './pagination.js';
import { formatAError, startTestService, type TestService } from '../../../test/support/service/service.js';
import { widgetsModule } from '../../../test/support/service/widgets.js';

let t: TestService;
const TOTAL = 23;

beforeAll(async () => {
  t = await startTestService({ modules: [widgetsModule()], rateLimit: { perSecond: 10_000, burst: 100_000 } });
  for (let i = 0; i < TOTAL; i++) {
    await t.request('POST', '/api/v1/test/widgets', { body: { name: `w${i}` } });
    // Several widgets share a timestamp: ties are broken by id.
    if (i % 3 === 0) await t.clock.advance(1_000);
  }
});
afterAll(() => t.stop());

const list = (query: string) => t.request('GET', `/api/v1/test/widgets${query}`);

async function walk(limit: number, direction: 'after' | 'before', start?: string): Promise<string[]> {
  const pages: string[][] = [];
  let cursor = start;
  for (;;) {
    const query = `?limit=${limit}${cursor === undefined ? '' : `&${direction}=${cursor}`}`;
    const page = await list(query);
    expect(page.status).toBe(200);
    expect(page.body.total_count).toBe(TOTAL);
    expect(page.body.data.length).toBeLessThanOrEqual(limit);
    expect(page.body.next_cursor === null).toBe(!page.body.has_more);
    pages.push(page.body.data.map((w: { name: string }) => w.name));
    if (!page.body.has_more) break;
    cursor = page.body.next_cursor;
  }
  if (direction === 'before') pages.reverse();
  return pages.flat();
}

describe('cursor pagination over HTTP', () => {
  it('defaults to 25 and caps at 100', async () => {
    const page = await list('');
    expect(page.body.data).toHaveLength(TOTAL);
    expect(page.body).toMatchObject({ has_more: false, next_cursor: null, total_count: TOTAL });
    expect((await list('?limit=100')).status).toBe(200);
  });

  it('walking forward equals walking backward reversed, from every cursor, for several page sizes', async () => {
    for (const limit of [1, 4, 7, 25]) {
      const all = await walk(limit, 'after');
      expect(all).toHaveLength(TOTAL);
      expect(new Set(all).size).toBe(TOTAL);
      // Newest first.
      expect(all[0]).toBe(`w${TOTAL - 1}`);
      let cursor: string | undefined;
      for (;;) {
        const page = await list(`?limit=${limit}${cursor === undefined ? '' : `&after=${cursor}`}`);
        if (!page.body.has_more) break;
        cursor = page.body.next_cursor as string;
        expect([...(await walk(limit, 'before', cursor)), ...(await walk(limit, 'after', cursor))]).toEqual(all);
      }
    }
  });

  it.each([
    ['?limit=0', 'limit'],
    ['?limit=101', 'limit'],
    ['?limit=-1', 'limit'],
    ['?limit=abc', 'limit'],
    ['?limit=1.5', 'limit'],
    ['?limit=', 'limit'],
    ['?limit=1&limit=2', 'limit'],
    ['?after=garbage', 'after'],
    ['?before=%7B%7D', 'before'],
    ['?after=a&after=b', 'after'],
  ])('%s → 400 naming %s', async (query, param) => {
    const response = await list(query);
    expect(response.status).toBe(400);
    expect(formatAError(response)).toMatchObject({ type: 'invalid_request', param });
  });

  it('after and before together → 400 naming before (they exclude each other; conventions.md)', async () => {
    const first = await list('?limit=2');
    const from = first.body.next_cursor as string;
    const second = await list(`?limit=5&after=${from}`);
    const both = await list(`?limit=2&after=${from}&before=${second.body.next_cursor as string}`);
    expect(both.status).toBe(400);
    expect(formatAError(both)).toMatchObject({ type: 'invalid_request', code: 'parameter_invalid', param: 'before' });
  });

  it('a query parameter the list does not name is refused, naming it: a misspelt limit is not ignored', async () => {
    const misspelt = await list('?limt=2');
    expect(misspelt.status).toBe(400);
    expect(formatAError(misspelt)).toMatchObject({ type: 'invalid_request', code: 'parameter_unknown', param: 'limt' });
    // Schemathesis sent names like these (and `=x`, a parameter without a name): a 200 had ignored them.
    const odd = await list('?limit=2&G%F2%98%95%9D=D');
    expect(formatAError(odd)).toMatchObject({ code: 'parameter_unknown', param: 'G\u{9855d}' });
    const nameless = await list('?limit=2&=x');
    expect(formatAError(nameless)).toMatchObject({ code: 'parameter_unknown', param: 'query' });
    expect((await list('?limit=2')).status).toBe(200);
  });

  it('a cursor is a position: side, sort key and row id; whatever matches the pattern is one', () => {
    const gap = { position: { key: 5, id: 'wdg_x' }, side: 'after' as const };
    const text = encodeCursor(gap);
    expect(text).toBe('a5.wdg_x');
    expect(decodeCursor(text)).toEqual(gap);
    expect(decodeCursor('b0.0')).toEqual({ position: { key: 0, id: '0' }, side: 'before' });
    for (const bad of ['', 'a5', 'c5.x', 'a05.x', 'a-1.x', 'a5.x-y', `a5.${'x'.repeat(129)}`])
      expect(decodeCursor(bad), bad).toBeUndefined();
    expect(() => encodeCursor({ position: { key: 'text', id: 'x' }, side: 'after' })).toThrow(RangeError);
  });

  it('the document states what a cursor is; an empty one is a 400 naming it, a well-formed one of another list is a position (a fuzzer sent after=0&before=0)', async () => {
    const document = (await t.request('GET', '/api/v1/openapi.json', { key: null })).body;
    const parameters = document.paths['/api/v1/auth/sessions'].get.parameters as Array<{ name: string; schema: { pattern?: string } }>;
    for (const name of ['after', 'before']) {
      const pattern = parameters.find((p) => p.name === name)?.schema.pattern;
      expect(pattern, name).toBeDefined();
      expect(new RegExp(pattern!).test('')).toBe(false);
      expect(new RegExp(pattern!).test(encodeCursor({ position: { key: 1, id: 'x' }, side: 'after' }))).toBe(true);
      expect(new RegExp(pattern!).test('0')).toBe(false);
    }
    const empty = await t.request('GET', '/api/v1/auth/sessions?after=&before=');
    expect(empty.status).toBe(400);
    expect(['after', 'before']).toContain(formatAError(empty).param);
    const foreign = await t.request('GET', '/api/v1/auth/sessions?after=a0.0');
    expect(foreign.status).toBe(200);
    const foreignBefore = await t.request('GET', '/api/v1/auth/sessions?before=b0.0');
    expect(foreignBefore.status).toBe(200);
  });
});
