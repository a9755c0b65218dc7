import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { BaseError } from '../../contracts/errors/base-error.js';
import { LOOPBACK_HOSTS } from '../../contracts/wire/urls.js';

/**
 * Which URLs may receive webhooks. Production: HTTPS only, and the host must not be (or resolve to) a private,
 * loopback, link-local or otherwise non-public address, so the service cannot be aimed at its own network. The
 * sandbox additionally accepts `http://` and `https://` on `localhost`, `127.0.0.1` and `[::1]` for receivers on
 * the developer's machine. Resolution is checked at registration and again before every delivery (a host that
 * later resolves inward is refused then).
 */

const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['100::', 64],
  ['2001::', 23],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

// The hosts the sandbox calls over plain http (wire/urls.ts), and IPv6's loopback without brackets as well.
const LOOPBACK = new Set([...LOOPBACK_HOSTS, '::1']);

/** IPv4 inside IPv6 (`::ffff:10.0.0.1`, NAT64 `64:ff9b::a00:1`) is judged by its IPv4 part. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const high = parseInt(hex[1]!, 16);
    const low = parseInt(hex[2]!, 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return undefined;
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !NON_PUBLIC.check(address, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4 !== undefined) return !NON_PUBLIC.check(v4, 'ipv4');
    return !NON_PUBLIC.check(address, 'ipv6');
  }
  return false;
}

export type Resolver = (hostname: string) => Promise<string[]>;

export const systemResolver: Resolver = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/**
 * A URL the service will not deliver to. `malformed`: credentials or a fragment (a 400, as any malformed field);
 * `destination`: a well-formed URL whose destination the policy refuses (scheme, private address, unresolvable host,
 * a host WHATWG's URL parser refuses): a business rule, answered 422.
 */
export class UrlRefused extends BaseError {
  override readonly name = 'UrlRefused';
  constructor(
    message: string,
    readonly kind: 'malformed' | 'destination' = 'destination',
  ) {
    super(message);
  }
}

export interface UrlPolicyOptions {
  environment: 'sandbox' | 'production';
  resolver?: Resolver;
}

export class WebhookUrlPolicy {
  private readonly resolver: Resolver;

  constructor(private readonly options: UrlPolicyOptions) {
    this.resolver = options.resolver ?? systemResolver;
  }

  /** Throws UrlRefused with a message for people; returns the normalised URL. */
  async check(text: string): Promise<string> {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      // The request schema already took it for an absolute URL (RFC 3986's syntax), so what WHATWG's parser, the one
      // deliveries go through, still refuses is a host it cannot use, e.g. an `xn--` label that is not valid punycode.
      throw new UrlRefused('is not a URL deliveries can reach: its host is not a valid domain name or IP address');
    }
    if (url.username !== '' || url.password !== '')
      throw new UrlRefused('must not carry credentials; authenticate with the signature', 'malformed');
    if (url.hash !== '') throw new UrlRefused('must not have a #fragment', 'malformed');
    const hostname = url.hostname.toLowerCase();
    const loopback = LOOPBACK.has(hostname);
    if (this.options.environment === 'sandbox' && loopback && (url.protocol === 'http:' || url.protocol === 'https:'))
      return url.toString();
    if (url.protocol !== 'https:') {
      throw new UrlRefused(
        this.options.environment === 'sandbox'
          ? 'must use https (http is accepted only for localhost, 127.0.0.1 and [::1] in the sandbox)'
          : 'must use https',
      );
    }
    const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
    if (isIP(bare) !== 0) {
      if (!isPublicAddress(bare)) throw new UrlRefused('must not point at a private, loopback or reserved address');
      return url.toString();
    }
    if (loopback || bare.endsWith('.localhost') || bare.endsWith('.local') || bare.endsWith('.internal')) {
      throw new UrlRefused('must not point at a private, loopback or reserved address');
    }
    let addresses: string[];
    try {
      addresses = await this.resolver(bare);
    } catch {
      throw new UrlRefused(`host ${bare} does not resolve`);
    }
    if (addresses.length === 0) throw new UrlRefused(`host ${bare} does not resolve`);
    if (addresses.some((address) => !isPublicAddress(address))) {
      throw new UrlRefused(`host ${bare} resolves to a private, loopback or reserved address`);
    }
    return url.toString();
  }
}
