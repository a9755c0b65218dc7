import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { planLifecycles } from './crash.js';
import { expectedFormat, operationsOf } from './fuzz.js';
import { tableCells } from './tamper.js';

const folder = mkdtempSync(join(tmpdir(), 'harden-units-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('crash campaign plan', () => {
  it('20 lifecycles cover every lock type on both rails, settles and refunds, both directions; the seed fixes the kills', () => {
    const plans = planLifecycles(20, 7, 0.7);
    const combos = new Set(plans.map((p) => `${p.lockType}/${p.rail}`));
    expect(combos.size).toBe(6);
    expect(new Set(plans.map((p) => p.outcome))).toEqual(new Set(['settle', 'refund']));
    expect(new Set(plans.map((p) => p.origin))).toEqual(new Set([0, 1]));
    expect(plans.filter((p) => p.kill !== undefined).length).toBeGreaterThanOrEqual(8);
    expect(planLifecycles(20, 7, 0.7)).toEqual(plans);
    expect(planLifecycles(20, 8, 0.7)).not.toEqual(plans);
    // A refund never waits for a fill or an attestation that will not come.
    for (const plan of plans) if (plan.outcome === 'refund') expect(['filled', 'attested']).not.toContain(plan.kill?.at);
  });
});

describe('fuzz campaign: the error format a route owes', () => {
  const doc = {
    servers: [{ url: 'http://127.0.0.1:1/api/v1' }],
    paths: {
      '/quotes/{quoteId}': {
        get: { responses: { 400: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } } } },
      },
      '/quotes/rfq_{rfqIdSuffix}': {
        get: { responses: { 400: { content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorB' } } } } } },
      },
      '/rfq': { post: { security: [{}, { apiKey: [] }], responses: { 400: { $ref: 'ErrorB' } } } },
    },
  };
  const operations = operationsOf(doc);

  it('reads the format, auth and templates from the OpenAPI document', () => {
    expect(operations.map((op) => [op.method, op.template, op.format, op.auth])).toEqual([
      ['GET', '/api/v1/quotes/{quoteId}', 'A', 'public'],
      ['GET', '/api/v1/quotes/rfq_{rfqIdSuffix}', 'B', 'public'],
      ['POST', '/api/v1/rfq', 'B', 'optional'],
    ]);
  });

  it('a path any Reference B route matches owes Format B; everything else Format A', () => {
    expect(expectedFormat(operations, 'GET', '/api/v1/quotes/rfq_abc')).toBe('B');
    expect(expectedFormat(operations, 'GET', '/api/v1/quotes/qt_abc')).toBe('A');
    expect(expectedFormat(operations, 'POST', '/api/v1/rfq')).toBe('B');
    expect(expectedFormat(operations, 'GET', '/api/v1/rfq')).toBe('A');
    expect(expectedFormat(operations, 'POST', '/api/v1/rfq/x')).toBe('A');
  });
});

describe('tamper campaign: finding a row in the SQLite file', () => {
  it('locates every row of a table, overflow pages included, by walking its b-tree', () => {
    const path = join(folder, 'cells.sqlite');
    const db = new Database(path);
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    const bodies = new Map<number, string>();
    for (let id = 1; id <= 300; id++) {
      // Small rows, rows just over a page, and rows over several pages.
      const body = `row-${id}-` + String.fromCharCode(97 + (id % 26)).repeat(id % 10 === 0 ? 9_000 : id % 7 === 0 ? 4_200 : 40);
      bodies.set(id, body);
      db.prepare('INSERT INTO t (id, body) VALUES (?, ?)').run(id, body);
    }
    const root = (db.prepare("SELECT rootpage FROM sqlite_master WHERE name = 't'").get() as { rootpage: number }).rootpage;
    db.close();
    const file = readFileSync(path);
    const cells = tableCells(file, root);
    expect([...cells.keys()].sort((a, b) => a - b)).toEqual([...bodies.keys()]);
    for (const [id, body] of bodies) {
      const cell = cells.get(id)!;
      const stored = Buffer.concat(
        cell.ranges
          .filter((r) => r.region !== 'cell header (payload size, rowid)' && r.region !== 'overflow pointer')
          .map((r) => file.subarray(r.start, r.end)),
      );
      // The record is a header (serial types) followed by the column bytes: the body is its tail.
      expect(stored.subarray(stored.length - Buffer.byteLength(body)).toString()).toBe(body);
      expect(cell.ranges.some((r) => r.region === 'overflow page')).toBe(body.length > 4_000);
    }
  });
});
