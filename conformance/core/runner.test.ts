import { describe, expect, it } from 'vitest';
import type { CheckContext } from './context.js';
import { buildReport } from './report.js';
import { runChecks, type Check } from './runner.js';
import { parseExpectedFailures, selectChecks } from './selection.js';
import { fakeTarget } from '../../test/support/conformance/fake-target.js';

const check = (id: string, run: (ctx: CheckContext) => Promise<void>, extra: Partial<Check> = {}): Check => ({
  id,
  title: `check ${id}`,
  requirements: ['X-IDM-001'],
  profiles: ['A'],
  tags: ['t'],
  run,
  ...extra,
});

const passes = check('p.pass', async (ctx) => ctx.note('fine'));
const fails = check('p.fail', async (ctx) => {
  ctx.expect('X-IDM-001', false, 'replay differs');
});
const warns = check(
  'p.warn',
  async (ctx) => {
    ctx.expect('X-IDM-006', false, 'not marked replayed');
  },
  { requirements: ['X-IDM-006'] },
);
const skips = check('p.skip', async (ctx) => ctx.skip('nothing to test'));
const needsClock = check('p.clock', async () => undefined, { needs: ['clock'] });
const throws = check('p.throw', async () => {
  throw new TypeError('cannot read x of undefined');
});
const slow = check('p.slow', () => new Promise((r) => setTimeout(r, 5_000)), { timeoutMs: 50 });
const onlyB = check('p.b', async () => undefined, { profiles: ['B'] });

describe('runner', () => {
  it('maps findings to PASSED / FAILED / WARNING / SKIPPED with messages', async () => {
    const outcome = await runChecks({
      target: fakeTarget(),
      checks: [passes, fails, warns, skips, needsClock, throws, slow, onlyB],
      seed: 7,
    });
    const status = Object.fromEntries(outcome.results.map((r) => [r.id, r.status]));
    expect(status).toEqual({
      'p.pass': 'PASSED',
      'p.fail': 'FAILED',
      'p.warn': 'WARNING',
      'p.skip': 'SKIPPED',
      'p.clock': 'SKIPPED',
      'p.throw': 'FAILED',
      'p.slow': 'FAILED',
    });
    const byId = new Map(outcome.results.map((r) => [r.id, r]));
    expect(byId.get('p.fail')!.message).toContain('[X-IDM-001] replay differs');
    expect(byId.get('p.clock')!.message).toBe('no sandbox clock control');
    expect(byId.get('p.slow')!.message).toMatch(/did not finish/);
    expect(outcome.seed).toBe(7);
  });

  it('runs checks in phase order', async () => {
    const order: string[] = [];
    const late = check('late', async () => void order.push('late'), { phase: 90 });
    const early = check('early', async () => void order.push('early'), { phase: 1 });
    await runChecks({ target: fakeTarget(), checks: [late, early] });
    expect(order).toEqual(['early', 'late']);
  });

  it('fails the run when an expected failure passes, and not when it fails', async () => {
    const expected = parseExpectedFailures('p.fail # known gap\np.pass # fixed meanwhile?\n');
    const outcome = await runChecks({ target: fakeTarget(), checks: [passes, fails], expectedFailures: expected });
    const report = buildReport({ target: fakeTarget(), outcome, checks: [passes, fails] });
    expect(report.summary.expectedFailures).toBe(1);
    expect(report.summary.unexpectedPasses).toBe(1);
    expect(report.summary.verdict).toBe('FAILED');
    const onlyExpected = await runChecks({
      target: fakeTarget(),
      checks: [passes, fails],
      expectedFailures: [{ check: 'p.fail', reason: 'gap' }],
    });
    expect(buildReport({ target: fakeTarget(), outcome: onlyExpected, checks: [passes, fails] }).summary.verdict).toBe('PASSED');
  });

  it('selects by id glob, requirement id, tags and profile', () => {
    const all = [passes, fails, warns, onlyB, check('q.tagged', async () => undefined, { tags: ['slow'] })];
    expect(selectChecks(all, 'A', { only: ['p.*'] }).map((c) => c.id)).toEqual(['p.pass', 'p.fail', 'p.warn']);
    expect(selectChecks(all, 'A', { only: ['X-IDM-006'] }).map((c) => c.id)).toEqual(['p.warn']);
    expect(selectChecks(all, 'A', { skipTags: ['slow'] }).map((c) => c.id)).not.toContain('q.tagged');
    expect(selectChecks(all, 'A', { tags: ['slow'] }).map((c) => c.id)).toEqual(['q.tagged']);
    expect(selectChecks(all, 'B').map((c) => c.id)).toEqual(['p.b']);
  });

  it('reads expected failures as JSON or text', () => {
    expect(parseExpectedFailures('[{"check":"a","reason":"r"}]')).toEqual([{ check: 'a', reason: 'r' }]);
    expect(parseExpectedFailures('{"a": "r", "b": ""}')).toEqual([
      { check: 'a', reason: 'r' },
      { check: 'b', reason: '' },
    ]);
    expect(parseExpectedFailures('# comment\na\nb # why\n')).toEqual([
      { check: 'a', reason: '' },
      { check: 'b', reason: 'why' },
    ]);
    expect(() => parseExpectedFailures('[{"reason":"x"}]')).toThrow(/no "check"/);
  });
});
