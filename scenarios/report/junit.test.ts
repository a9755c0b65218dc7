import { describe, expect, it } from 'vitest';
import type { RunReport } from '../runner/result.js';
import { junitReport, xmlText } from './junit.js';

const scenario = (name: string, status: 'passed' | 'failed' | 'skipped', extra: object = {}) => ({
  name,
  title: name,
  tags: ['success'],
  status,
  durationMs: 1234,
  target: 'in-process',
  steps: [{ title: 'quote q', status: 'passed' as const, durationMs: 12, summary: '3 quote(s)' }],
  invariantChecks: 1,
  notes: [],
  participants: {},
  orders: {},
  escrow: [],
  ...extra,
});

const report: RunReport = {
  seed: 7,
  runSalt: '0123456789abcdef',
  target: 'in-process <sandbox> & "friends"',
  startedAt: '2030-01-01T00:00:00.000Z',
  durationMs: 2_500,
  summary: { total: 3, passed: 1, failed: 1, skipped: 1 },
  invariants: {} as RunReport['invariants'],
  scenarios: [
    scenario('a', 'passed'),
    scenario('b', 'failed', {
      failure: { step: 'expect order o', message: 'did not reach <Claimed>', details: '✗ status  Claimed  Refunded\u0007' },
    }),
    scenario('c', 'skipped', { reason: 'needs the "sandbox" clock' }),
  ],
};

describe('JUnit report', () => {
  it('escapes markup and drops characters XML 1.0 cannot carry', () => {
    expect(xmlText(`<a href="x">'&'</a>\u0000\u001b`)).toBe('&lt;a href=&quot;x&quot;&gt;&apos;&amp;&apos;&lt;/a&gt;');
  });

  it('has one test case per scenario, failures with the timeline diff, skips with their reason', () => {
    const xml = junitReport(report);
    expect(xml).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="settlement scenarios" tests="3" failures="1" errors="0" skipped="1" time="2.500">/,
    );
    expect(xml).toContain('<property name="target" value="in-process &lt;sandbox&gt; &amp; &quot;friends&quot;"/>');
    expect(xml).toContain('<testcase classname="scenarios.success" name="b" time="1.234">');
    expect(xml).toContain(
      '<failure message="did not reach &lt;Claimed&gt;" type="expect order o">step: expect order o\n\ndid not reach &lt;Claimed&gt;\n\n✗ status  Claimed  Refunded</failure>',
    );
    expect(xml).toContain('<skipped message="needs the &quot;sandbox&quot; clock"/>');
    expect(xml).toContain('<system-out>✓ quote q (12 ms): 3 quote(s)</system-out>');
    expect(xml.match(/<testcase /g)).toHaveLength(3);
  });
});
