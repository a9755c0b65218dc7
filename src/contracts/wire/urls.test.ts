import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CALLBACK_URL_PATTERN, EMAIL_PATTERN, LOOPBACK_HOSTS, WEB_URL_PATTERN } from './urls.js';

// The patterns are what the OpenAPI document promises; a client generating from them must never be refused by the
// parser the service (and every delivery) uses. fc.stringMatching generates from the pattern as a fuzzer would.
describe('URL patterns', () => {
  it('every URL the web pattern admits parses as http(s) with the host it names', () => {
    fc.assert(
      fc.property(fc.stringMatching(WEB_URL_PATTERN), (text) => {
        const url = new URL(text);
        expect(['http:', 'https:']).toContain(url.protocol);
        expect(url.username + url.password + url.hash).toBe('');
      }),
      { numRuns: 2000 },
    );
  });

  it('every URL the callback pattern admits parses, and is https or http to a loopback host', () => {
    fc.assert(
      fc.property(fc.stringMatching(CALLBACK_URL_PATTERN), (text) => {
        const url = new URL(text);
        expect(url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.includes(url.hostname))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['https://acme.example/hook', true, true],
    ['https://1.2.3.4:8443/x?y=1', true, true],
    ['http://127.0.0.1:9/hook', true, true],
    ['http://localhost/hook', true, true],
    ['http://[::1]:80', true, true],
    ['http://acme.example/hook', true, false],
    ['http://localhost.acme.example/', true, false],
    // Underscores: WHATWG's parser takes them, and compose files name services so.
    ['https://my_solver:8443/cb', true, true],
    ['http://hooks_1.internal/x', true, false],
    // Valid by RFC 3986 (format: uri) but refused by WHATWG's parser: a last label that is a number.
    ['https://t.S7.y.Ltfz.0:56130/', false, false],
    ['https://1.2.3.256/', false, false],
    ['https://a.example:65536/', false, false],
    ['https://user:pw@a.example/', false, false],
    ['https://a.example/#frag', false, false],
    ['ftp://a.example/', false, false],
    ['HTTPS://a.example/', false, false],
    // Path and query: what the parser percent-encodes is admitted, ASCII controls and spaces are not.
    ['https://223.250.236.123?\u00f7T/\u0092*\u00e6\u00a0\u00d9_\u00ea', true, true],
    ['https://a.example/x\u00a0y', true, true],
    ['https://a.example/x y', false, false],
    ['https://a.example/x\ty', false, false],
    ['https://a.example/?q=\u0000', false, false],
    ['https://a.example/\u007f', false, false],
  ])('%s: web %s, callback %s', (text, web, callback) => {
    expect(WEB_URL_PATTERN.test(text)).toBe(web);
    expect(CALLBACK_URL_PATTERN.test(text)).toBe(callback);
  });

  it.each([
    ['ops@acme.example', true],
    ["o'neil+solver@mail.acme.io", true],
    ['a.b_c@x-1.example', true],
    // zod's own pattern takes these; RFC 5321 validators (Schemathesis') do not.
    ['a@x-.example', false],
    ['a@-x.example', false],
    ['a..b@acme.example', false],
    ['.a@acme.example', false],
    ['a@acme.e', false],
    ['a@acme.123', false],
    ['a@acme', false],
    ['a@my_host.example', false],
  ])('e-mail %s: %s', (text, ok) => {
    expect(EMAIL_PATTERN.test(text)).toBe(ok);
  });
});
