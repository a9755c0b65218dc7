import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keysetPage, type PageGap, type PageRequest } from './pagination.js';
import { Store } from './store.js';

interface Row {
  id: string;
  created_at: number;
}

function emptyStore(): Store {
  return Store.open({
    path: ':memory:',
    migrations: [
      {
        module: 'items',
        migrations: [{ name: '001', up: (db) => db.exec('CREATE TABLE items (id TEXT PRIMARY KEY, created_at INTEGER NOT NULL)') }],
      },
    ],
  });
}

/** Makes `rows` the table's only content. */
function fill(store: Store, rows: readonly Row[]): Store {
  store.db.exec('DELETE FROM items');
  const insert = store.db.prepare('INSERT INTO items (id, created_at) VALUES (?, ?)');
  for (const row of rows) insert.run(row.id, row.created_at);
  return store;
}

const storeWith = (rows: readonly Row[]): Store => fill(emptyStore(), rows);

function page(store: Store, order: 'asc' | 'desc', request: PageRequest) {
  return keysetPage<Row>(store.db, {
    from: 'items',
    where: '1=1',
    params: [],
    sortColumn: 'created_at',
    order,
    request,
    position: (row) => ({ key: row.created_at, id: row.id }),
  });
}

function walk(store: Store, order: 'asc' | 'desc', limit: number, direction: 'after' | 'before', start?: PageGap): string[] {
  const seen: string[][] = [];
  let cursor = start;
  for (let guard = 0; guard < 1_000; guard++) {
    const result = page(store, order, { limit, [direction]: cursor });
    expect(result.items.length).toBeLessThanOrEqual(limit);
    expect(result.next === undefined).toBe(!result.hasMore);
    seen.push(result.items.map((row) => row.id));
    if (!result.hasMore) break;
    cursor = result.next;
  }
  // Backward pages arrive last-first; each page is already in display order.
  if (direction === 'before') seen.reverse();
  return seen.flat();
}

const rowsArbitrary = fc.uniqueArray(
  fc.record({ id: fc.string({ minLength: 1, maxLength: 6 }), created_at: fc.integer({ min: 0, max: 5 }) }),
  { selector: (row) => row.id, maxLength: 40 },
);

describe('keysetPage', () => {
  it('orders newest first with ties broken by id, and counts everything', () => {
    const store = storeWith([
      { id: 'a', created_at: 1 },
      { id: 'b', created_at: 2 },
      { id: 'c', created_at: 2 },
      { id: 'd', created_at: 3 },
    ]);
    const first = page(store, 'desc', { limit: 2 });
    expect(first.items.map((row) => row.id)).toEqual(['d', 'c']);
    expect(first.hasMore).toBe(true);
    expect(first.total).toBe(4);
    const second = page(store, 'desc', { limit: 2, after: first.next });
    expect(second.items.map((row) => row.id)).toEqual(['b', 'a']);
    expect(second.hasMore).toBe(false);
    expect(second.next).toBeUndefined();
    const back = page(store, 'desc', { limit: 5, before: { position: { key: 2, id: 'b' }, side: 'after' } });
    expect(back.items.map((row) => row.id)).toEqual(['d', 'c', 'b']);
    store.close();
  });

  it('walking forward equals walking backward reversed, from any cursor, in both orders', () => {
    // One store for all cases, refilled for each (opening a store is most of a case's time on Postgres).
    const store = emptyStore();
    try {
      fc.assert(
        fc.property(
          rowsArbitrary,
          fc.integer({ min: 1, max: 7 }),
          fc.constantFrom('asc' as const, 'desc' as const),
          (rows, limit, order) => {
            fill(store, rows);
            const all = walk(store, order, limit, 'after');
            expect(all).toHaveLength(rows.length);
            expect(new Set(all).size).toBe(rows.length);
            // Every cursor of the forward walk splits the list: backward from it ++ forward from it = all.
            let cursor: PageGap | undefined;
            for (;;) {
              const result = page(store, order, { limit, after: cursor });
              if (!result.hasMore) break;
              cursor = result.next!;
              const before = walk(store, order, limit, 'before', cursor);
              const after = walk(store, order, limit, 'after', cursor);
              expect([...before, ...after]).toEqual(all);
            }
          },
        ),
        { numRuns: 150 },
      );
    } finally {
      store.close();
    }
  });

  it('after and before together: the rows between the two gaps, walked forward', () => {
    const store = storeWith(Array.from({ length: 10 }, (_, i) => ({ created_at: i, id: `r${i}` })));
    try {
      const all = walk(store, 'asc', 100, 'after');
      const from: PageGap = { position: { key: 2, id: 'r2' }, side: 'after' };
      const to: PageGap = { position: { key: 7, id: 'r7' }, side: 'before' };
      const first = page(store, 'asc', { limit: 3, after: from, before: to });
      expect(first.items.map((row) => row.id)).toEqual(['r3', 'r4', 'r5']);
      expect(first.hasMore).toBe(true);
      const second = page(store, 'asc', { limit: 3, after: first.next, before: to });
      expect(second.items.map((row) => row.id)).toEqual(['r6']);
      expect(second.hasMore).toBe(false);
      expect(all).toHaveLength(10);
      // Crossed gaps name no rows.
      expect(page(store, 'asc', { limit: 3, after: to, before: from }).items).toEqual([]);
    } finally {
      store.close();
    }
  });
});
