/**
 * URLs (and e-mail addresses) the service is given to call or to show (webhook endpoints, solver callbacks, a solver's website). Each is
 * checked against a stated pattern, so the OpenAPI document says exactly what is accepted: a generator (Schemathesis,
 * a client's own tests) that follows the pattern is never refused, and one that breaks it is.
 *
 * The host grammar is what WHATWG's URL parser (Node's, and so every delivery's) takes: a host name whose last label
 * starts with a letter (the parser reads `t.s7.0` or `a.0x1` as an IPv4 address and refuses it), a dotted-quad IPv4
 * address or `[::1]`; a port up to 65535; no credentials, no fragment. RFC 3986's `format: uri` is wider than that.
 */

const IPV4_OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
// Underscores too: not valid in a DNS host name, but WHATWG's parser takes them and container networks name services
// that way (`https://my_solver:8443/cb` in a compose file).
const LABEL = '[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?';
const LAST_LABEL = '[A-Za-z]([A-Za-z0-9_-]*[A-Za-z0-9_])?';
/** E-mail domains keep to DNS host names: letters, digits and inner hyphens. */
const MAIL_LABEL = '[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?';
const HOST = `(\\[::1\\]|${IPV4_OCTET}(\\.${IPV4_OCTET}){3}|(${LABEL}\\.)*${LAST_LABEL})`;
const PORT = '(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4})';
// After the host: anything but ASCII controls, space and `#`, spelled as a range. `\s` meant different characters to
// different regex engines (JavaScript's takes U+00A0, which Schemathesis's generator did not avoid), and the parser
// percent-encodes everything else in a path or query, U+00A0 and C1 controls included.
const REST = `(:${PORT})?([/?][^\\x00-\\x20\\x7f#]*)?`;
/** The hosts the sandbox also calls over plain http (as URL.hostname spells them). */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** An absolute http(s) URL: webhook endpoints (whose policy is checked afterwards, with its own error) and websites. */
export const WEB_URL_PATTERN = new RegExp(`^https?://${HOST}${REST}$`);

const LOOPBACK = LOOPBACK_HOSTS.map((host) => host.replace(/[.[\]]/g, '\\$&')).join('|');
/** A solver callback: https to any host; http only to a loopback host (and only in the sandbox environment). */
export const CALLBACK_URL_PATTERN = new RegExp(`^(https://${HOST}|http://(${LOOPBACK}))${REST}$`);

/**
 * An e-mail address: dot-separated words of letters, digits and `_ ' + -` before the `@`, a host name after it whose
 * labels do not start or end with a hyphen and whose last label is 2 or more letters. Stated as a pattern, not
 * `format: email`: validators of that format disagree at the edges (label lengths, trailing hyphens, quoted parts).
 */
export const EMAIL_PATTERN = new RegExp(`^[A-Za-z0-9_'+-]+(\\.[A-Za-z0-9_'+-]+)*@(${MAIL_LABEL}\\.)+[A-Za-z]{2,}$`);
