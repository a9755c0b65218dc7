import { describe, expect, it } from 'vitest';
import { buildReport } from '../core/report.js';
import type { RunOutcome } from '../core/runner.js';
import type { CheckResult } from '../core/types.js';
import { fakeTarget } from '../../test/support/conformance/fake-target.js';
import { consoleProgress, consoleSummary } from './console.js';
import { htmlReport } from './html.js';
import { junitXml } from './junit.js';

/**
 * A strict XML 1.0 well-formedness reader (elements, attributes, entities, declaration): enough to prove the JUnit
 * output parses, and to walk its tree.
 */
interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

function parseXml(xml: string): XmlElement {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(xml)) throw new Error('control character in XML');
  let i = 0;
  const fail = (why: string): never => {
    throw new Error(`${why} at ${i}: ${xml.slice(i, i + 40)}`);
  };
  const decode = (text: string) => {
    if (/&(?!(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/.test(text)) fail('bad entity');
    if (text.includes('<')) fail('raw <');
    return text
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, '&');
  };
  if (xml.startsWith('<?xml')) i = xml.indexOf('?>') + 2;
  const skipSpace = () => {
    while (/\s/.test(xml[i] ?? '')) i += 1;
  };
  const element = (): XmlElement => {
    if (xml[i] !== '<') fail('expected <');
    i += 1;
    const name = /^[A-Za-z_][\w.-]*/.exec(xml.slice(i))?.[0] ?? fail('bad name');
    i += name.length;
    const attributes: Record<string, string> = {};
    for (;;) {
      skipSpace();
      if (xml.startsWith('/>', i)) {
        i += 2;
        return { name, attributes, children: [], text: '' };
      }
      if (xml[i] === '>') {
        i += 1;
        break;
      }
      const attr = /^([A-Za-z_][\w.-]*)="([^"]*)"/.exec(xml.slice(i)) ?? fail('bad attribute');
      if (attr[1]! in attributes) fail('duplicate attribute');
      attributes[attr[1]!] = decode(attr[2]!);
      i += attr[0].length;
    }
    const children: XmlElement[] = [];
    let text = '';
    for (;;) {
      if (xml.startsWith(`</${name}>`, i)) {
        i += name.length + 3;
        return { name, attributes, children, text: decode(text) };
      }
      if (i >= xml.length) fail(`unclosed <${name}>`);
      if (xml[i] === '<') {
        if (xml[i + 1] === '/') fail(`mismatched close inside <${name}>`);
        children.push(element());
      } else {
        text += xml[i];
        i += 1;
      }
    }
  };
  skipSpace();
  const root = element();
  skipSpace();
  if (i !== xml.length) fail('content after the root element');
  return root;
}

const result = (id: string, status: CheckResult['status'], message: string, extra: Partial<CheckResult> = {}): CheckResult => ({
  id,
  title: `title of ${id} <&>`,
  status,
  message,
  requirements: ['A-ORD-003', 'X-WH-002'],
  tags: ['t'],
  profile: 'A',
  durationMs: 12,
  evidence: [
    {
      kind: 'http',
      request: { method: 'GET', url: 'http://127.0.0.1:1/api/v1/x?a=1&b=2', headers: {} },
      response: { status: 500, headers: {}, body: '{"error":"<b>\u0007bell ]]> 😀 \ud800 lone"}' },
      ms: 3,
    },
    { kind: 'note', text: 'a note with "quotes" & <tags>' },
  ],
  ...extra,
});

function sampleReport() {
  const results = [
    result('a.pass', 'PASSED', 'conforms'),
    result('a.fail', 'FAILED', 'answered 500 <script>alert(1)</script> & \u0001 control'),
    result('a.warn', 'WARNING', "X-IDM-006 not marked 'replayed'"),
    result('a.skip', 'SKIPPED', 'needs the sandbox clock'),
    result('a.expected', 'FAILED', 'known gap', { expected: { reason: 'tracked in #12', outcome: 'failed-as-expected' } }),
    result('a.unexpected', 'PASSED', 'fixed', { expected: { reason: 'tracked', outcome: 'did-not-fail' } }),
  ];
  const outcome: RunOutcome = {
    results,
    startedAt: '2030-01-01T00:00:00.000Z',
    finishedAt: '2030-01-01T00:00:05.000Z',
    durationMs: 5_000,
    seed: 42,
    expectedNotRun: [],
  };
  return buildReport({ target: fakeTarget(), outcome, checks: [] });
}

describe('JUnit reporter', () => {
  it('is checked by a reader that refuses malformed XML', () => {
    expect(() => parseXml('<a><b></a>')).toThrow();
    expect(() => parseXml('<a x="1" x="2"/>')).toThrow();
    expect(() => parseXml('<a>&bogus;</a>')).toThrow();
    expect(parseXml('<a x="&amp;"><b/>t</a>').children).toHaveLength(1);
  });

  it('writes well-formed XML with one testcase per check and the right failure/skip counts', () => {
    const report = sampleReport();
    const root = parseXml(junitXml(report));
    expect(root.name).toBe('testsuites');
    const suite = root.children.find((c) => c.name === 'testsuite')!;
    const cases = suite.children.filter((c) => c.name === 'testcase');
    expect(cases).toHaveLength(6);
    expect(suite.attributes.tests).toBe('6');
    // a.fail and the unexpected pass fail; the expected failure and the skip are skipped.
    expect(suite.attributes.failures).toBe('2');
    expect(suite.attributes.skipped).toBe('2');
    const byName = (id: string) => cases.find((c) => c.attributes.name!.startsWith(`${id}:`))!;
    expect(byName('a.fail').children.some((c) => c.name === 'failure' && c.attributes.message!.includes('<script>'))).toBe(true);
    expect(byName('a.skip').children.some((c) => c.name === 'skipped')).toBe(true);
    expect(byName('a.warn').children.find((c) => c.name === 'system-out')!.text).toContain('WARNING');
    expect(byName('a.unexpected').children.some((c) => c.name === 'failure' && c.attributes.type === 'UNEXPECTED_PASS')).toBe(true);
    expect(byName('a.pass').children.some((c) => c.name === 'failure' || c.name === 'skipped')).toBe(false);
    const properties = byName('a.pass').children.find((c) => c.name === 'properties')!;
    expect(properties.children.map((p) => p.attributes.value)).toEqual(['A-ORD-003', 'X-WH-002', 'PASSED']);
  });
});

describe('HTML reporter', () => {
  it('is one self-contained page that escapes what the target sent', () => {
    const html = htmlReport(sampleReport());
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;');
    expect(html).not.toMatch(/src=|href="http/);
    for (const id of ['a.pass', 'a.fail', 'a.warn', 'a.skip']) expect(html).toContain(id);
  });

  it('opens with the failures and skips, renders `code` spans, keeps ids on one line and JSON whole', () => {
    const report = sampleReport();
    const long = { items: Array.from({ length: 400 }, (_, i) => ({ index: i, text: 'x'.repeat(20) })) };
    report.results[3] = {
      ...report.results[3]!,
      message: 'needs `--sandbox FILE`',
      evidence: [{ kind: 'note', text: 'the `clock` route is missing', data: long }],
    };
    const html = htmlReport(report);
    const attention = html.indexOf('<h2>Failures and skips</h2>');
    expect(attention).toBeGreaterThan(0);
    expect(attention).toBeLessThan(html.indexOf('<h2>Checks</h2>'));
    expect(html.slice(attention, html.indexOf('<h2>Checks</h2>'))).toMatch(/href="#check-a\.fail"[\s\S]*href="#check-a\.skip"/);
    expect(html).toContain('needs <code>--sandbox FILE</code>');
    expect(html).toContain('the <code>clock</code> route is missing');
    expect(html).not.toMatch(/`[^`<]+`/);
    expect(html).toContain('code.id,a.id,td:first-child>code{white-space:nowrap}');
    // The evidence's JSON is all there, parseable again from the page.
    const pre = /<pre>([^<]*)<\/pre><\/div>/.exec(html.slice(html.indexOf('the <code>clock</code>')))?.[1] ?? '';
    const unescaped = pre.replaceAll('&quot;', '"').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
    expect(JSON.parse(unescaped)).toEqual(long);
  });
});

describe('console reporter', () => {
  it('prints a line per check with the reason under each non-pass, then the verdict', () => {
    let out = '';
    const stream = { write: (text: string) => (out += text) };
    const report = sampleReport();
    const progress = consoleProgress(stream);
    report.results.forEach((r, i) => {
      progress(r, i, report.results.length);
    });
    consoleSummary(report, stream);
    expect(out).toMatch(/\[1\/6\] ✓ PASSED\s+a\.pass/);
    expect(out).toMatch(/✗ FAILED\s+a\.fail[\s\S]*└ answered 500/);
    expect(out).toMatch(/FAILED\n/);
    expect(out).toContain('seed 42');
  });
});
