/**
 * Fuzz campaign: generated bad requests (fast-check, seeded) across every route the service documents in its
 * OpenAPI document plus the pages around it, in every part a client controls: body (near-valid objects with one
 * field broken, random JSON, random bytes, wrong content types and encodings, oversized), path parameters,
 * query strings, headers (credentials of every wrong kind, including unsigned and forged JWTs, Idempotency-Key,
 * attestation, Host, Origin, encodings), methods, unknown paths, and broken HTTP framing. Then malformed frames on
 * the taker WebSocket (/api/v1/ws) and the solver stream.
 *
 * Figures: answers with a 5xx (`serverErrors`), error answers not in the route's format — Format A on Reference A
 * routes, Format B on Reference B routes, as the OpenAPI document declares them (`nonFormatErrors`), requests
 * left without an answer, 2xx answers on a guarded route to a request without a valid credential
 * (`authBypasses`), and WebSocket error frames not in format.
 */
import fc from 'fast-check';
import { gzipSync } from 'node:zlib';
import { privateKeyToAccount } from 'viem/accounts';
import WebSocket from 'ws';
import { formatAProblems, formatBProblems } from '../conformance/checks/support/errors.js';
import { buildRequest, type RawOutcome, sendRaw } from './support/raw-http.js';
import { sleep } from './support/wire.js';

type Format = 'A' | 'B';
type JsonSchema = { [key: string]: unknown };

interface Operation {
  method: string;
  /** OpenAPI path template, e.g. `/api/v1/quotes/{quoteId}`. */
  template: string;
  pathParams: string[];
  queryParams: string[];
  body: JsonSchema | undefined;
  /** Which credentials the route takes: none, an API key, a session token (JWT), either. */
  auth: 'public' | 'optional' | 'apiKey' | 'jwt' | 'either';
  format: Format;
}

export interface FuzzCredentials {
  apiKeys: string[];
  /** A dashboard session token (SIWE sign-in). */
  jwt?: string;
}

export interface FuzzOptions {
  url: string;
  requests: number;
  seed: number;
  credentials: FuzzCredentials;
  /** Frames per WebSocket endpoint family (default requests / 10). */
  wsFrames?: number;
  concurrency?: number;
  /**
   * Called when the service refuses connections (it died): starts it again and resolves true, so the campaign can
   * count the crash and go on. Without it, refused requests count as unanswered.
   */
  revive?: () => Promise<boolean>;
  log?: (line: string) => void;
}

export interface FuzzSample {
  label: string;
  request: string;
  status: number | string;
  body: string;
  problem: string;
}

export interface FuzzFigures {
  requests: number;
  answered: number;
  serverErrors: number;
  nonFormatErrors: number;
  noAnswer: number;
  /** Broken framing or handshakes the server closed (or kept waiting on) without a status line: allowed. */
  transportClosed: number;
  /** Times the service refused connections mid-campaign and was started again (each is a crash). */
  revived: number;
  authBypasses: number;
  /** Answers granting cross-origin reads (Access-Control-Allow-Origin): the API and dashboard are same-origin only. */
  corsGrants: number;
  accepted: number;
  rateLimited: number;
  rateLimitedWithoutRetryAfter: number;
  byStatus: Record<string, number>;
  byStrategy: Record<string, number>;
  routes: number;
  wsConnections: number;
  wsFrames: number;
  wsNonFormat: number;
  wsServerErrors: number;
  wsCloseCodes: Record<string, number>;
  healthyAfter: boolean;
  wallMs: number;
  samples: FuzzSample[];
}

/** A generated request: either a method/target/headers/body to frame, or raw bytes for broken framing. */
interface FuzzCase {
  strategy: string;
  label: string;
  method: string;
  target: string;
  headers: Array<[string, string]>;
  body?: Buffer;
  raw?: Buffer;
  /** Broken framing or a WebSocket handshake: closing without an answer is an acceptable outcome. */
  transport?: boolean;
  /** The credential sent is not a valid one (or none was sent). */
  unauthenticated: boolean;
  operation?: Operation;
}

const WEIRD_STRINGS = [
  '',
  ' ',
  'null',
  'undefined',
  '0',
  '-1',
  '1e309',
  'NaN',
  'Infinity',
  '0x',
  `0x${'g'.repeat(40)}`,
  `0x${'0'.repeat(39)}`,
  `0x${'F'.repeat(40)}`,
  '0xAbCdEf0123456789aBcDeF0123456789AbCdEf01',
  '9'.repeat(90),
  '-0',
  '1.5',
  '１２３',
  '\u0000',
  '\ud800',
  '💥',
  '\u202e',
  '../../etc/passwd',
  '%00',
  '%',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log4shell-style payload sent as literal text
  '${jndi:ldap://x}',
  '__proto__',
  'constructor',
  'toString',
  'x'.repeat(10_000),
  'qt_',
  'ord_',
  'rfq_',
  'wh_',
  'slv_',
  'ws_',
  `qt_${'a'.repeat(24)}`,
  `ord_${'z'.repeat(24)}`,
  'svc_test_',
  'whsec_',
  'alpha:USDC-beta:USDC',
  'alpha:USDC-alpha:USDC',
  '*',
  '**',
  'order.*',
];
const WEIRD_VALUES: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  -0.0,
  2 ** 53 + 1,
  1e308,
  [],
  [null],
  {},
  { __proto__: { polluted: true } },
  ['x'],
  { $gt: '' },
  Number.MAX_SAFE_INTEGER,
  -Number.MAX_SAFE_INTEGER,
  ...WEIRD_STRINGS,
];
const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/json; charset=klingon',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/vnd.api+json',
  '',
  ';;;',
  'application/json; boundary=',
  'APPLICATION/JSON',
  '*/*',
  'application/xml',
];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND', 'CONNECT'];
const EXTRA_PATHS = [
  '/',
  '/docs/errors',
  '/docs/errors#x',
  '/dashboard/app.js',
  '/dashboard/index.html',
  '/dashboard/..%2f..%2fpackage.json',
  '/api/v1',
  '/api/v1/',
  '/api/v2/health',
  '/v1/health',
  '/api/v1/sandbox/info',
  '/api/v1/sandbox/faucet',
  '/api/v1/ws',
  '/ws/v1/solver/stream',
  '/api/v1/openapi.json/',
  '/API/V1/HEALTH',
  '/api/v1//health',
  '/api/v1/health/../corridors',
  '/api/v1/%2e%2e/health',
  '/api/v1/quotes/',
  '/api/v1/orders//',
  '/favicon.ico',
  '/.env',
  '/api/v1/admin/approvals',
  '/api/v1/deferred/balance',
  '/api/v1/counterparties',
];

function base64url(value: unknown): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
}

/** Credentials that must all be refused: malformed, wrong environment, unknown, unsigned and forged tokens. */
function badCredentials(valid: FuzzCredentials): string[] {
  const key = valid.apiKeys[0] ?? 'svc_test_0000000000000000_' + '0'.repeat(64);
  const now = Math.floor(Date.now() / 1000);
  const claims = {
    sub: 'usr_x',
    sid: 'ses_x',
    wid: 'ws_x',
    addr: '0x0000000000000000000000000000000000000001',
    iat: now,
    exp: now + 3600,
    iss: 'settlement-service',
    aud: 'dashboard',
  };
  const jwtParts = valid.jwt?.split('.') ?? [base64url({ alg: 'HS256', typ: 'JWT' }), base64url(claims), 'sig'];
  return [
    'Bearer',
    'Bearer ',
    'Basic dXNlcjpwYXNz',
    `bearer ${key}x`,
    `Bearer ${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}`,
    `Bearer ${key.replace('svc_test_', 'svc_live_')}`,
    `Bearer ${key.toUpperCase()}`,
    `Bearer svc_test_${'0'.repeat(16)}_${'0'.repeat(64)}`,
    `Bearer ${key} ${key}`,
    `Bearer ${'a'.repeat(8_000)}`,
    // Unsigned (alg none) and algorithm-confusion tokens with plausible claims.
    `Bearer ${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(claims)}.`,
    `Bearer ${base64url({ alg: 'HS512', typ: 'JWT' })}.${jwtParts[1]}.${jwtParts[2]}`,
    `Bearer ${base64url({ alg: 'RS256', typ: 'JWT' })}.${jwtParts[1]}.${jwtParts[2]}`,
    `Bearer ${jwtParts[0]}.${base64url({ ...claims, exp: now - 10 })}.${jwtParts[2]}`,
    `Bearer ${jwtParts[0]}.${jwtParts[1]}.${(jwtParts[2] ?? '').slice(0, -2)}AA`,
    `Bearer ${jwtParts[0]}.${jwtParts[1]}`,
    `Bearer ..`,
  ];
}

/** Resolves `$ref`s against the document's components. */
function resolve(schema: unknown, doc: JsonSchema, depth = 0): JsonSchema {
  if (typeof schema !== 'object' || schema === null) return {};
  const ref = (schema as { $ref?: string }).$ref;
  if (ref !== undefined && depth < 20) {
    const name = ref.split('/').at(-1)!;
    return resolve(((doc.components as JsonSchema)?.schemas as JsonSchema)?.[name], doc, depth + 1);
  }
  return schema as JsonSchema;
}

export function operationsOf(doc: JsonSchema): Operation[] {
  const operations: Operation[] = [];
  const paths = doc.paths as Record<string, Record<string, JsonSchema>>;
  const serverPath = new URL((doc.servers as Array<{ url: string }>)?.[0]?.url ?? 'http://x/api/v1').pathname.replace(/\/$/, '');
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (typeof op !== 'object' || op === null || op.responses === undefined) continue;
      const parameters = (op.parameters as Array<{ in: string; name: string }> | undefined) ?? [];
      const security = (op.security as Array<Record<string, unknown>> | undefined) ?? [];
      const kinds = new Set(security.flatMap((entry) => Object.keys(entry)));
      const optional = security.some((entry) => Object.keys(entry).length === 0);
      const auth: Operation['auth'] =
        security.length === 0
          ? 'public'
          : optional
            ? 'optional'
            : kinds.has('apiKey') && kinds.has('sessionToken')
              ? 'either'
              : kinds.has('sessionToken')
                ? 'jwt'
                : 'apiKey';
      const errorSchema = JSON.stringify(
        Object.entries(op.responses as Record<string, JsonSchema>).find(([status]) => status >= '400')?.[1] ?? {},
      );
      const body = resolve(((op.requestBody as JsonSchema | undefined)?.content as JsonSchema | undefined)?.['application/json'], doc);
      operations.push({
        method: method.toUpperCase(),
        template: path.startsWith('/api/') || path.startsWith('/v1/') ? path : `${serverPath}${path}`,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: parameters.filter((p) => p.in === 'query').map((p) => p.name),
        body: op.requestBody === undefined ? undefined : resolve(body.schema, doc),
        auth,
        format: errorSchema.includes('ErrorB') ? 'B' : 'A',
      });
    }
  }
  return operations;
}

function templatePattern(template: string): RegExp {
  const escaped = template
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${escaped}/?$`);
}

/** The format an error must have: B when a Reference B route matches the method and path, else A. */
export function expectedFormat(operations: readonly Operation[], method: string, path: string): Format {
  return operations.some((op) => op.format === 'B' && op.method === method && templatePattern(op.template).test(path)) ? 'B' : 'A';
}

/** A value that satisfies `schema` as far as this sampler understands it; mutations then break it. */
function validish(schema: JsonSchema, doc: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema, doc);
  if (depth > 6) return fc.constant(null);
  if (s.const !== undefined) return fc.constant(s.const);
  if (Array.isArray(s.enum) && s.enum.length > 0) return fc.constantFrom(...(s.enum as unknown[]));
  const variants = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(variants) && variants.length > 0) return fc.oneof(...variants.map((v) => validish(v, doc, depth + 1)));
  switch (s.type) {
    case 'object': {
      const properties = (s.properties as Record<string, JsonSchema> | undefined) ?? {};
      const required = new Set((s.required as string[] | undefined) ?? []);
      const shape: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, property] of Object.entries(properties)) shape[name] = validish(property, doc, depth + 1);
      return fc.record(shape, { requiredKeys: [...required].filter((name) => name in shape) });
    }
    case 'array': {
      const items = (s.items as JsonSchema | undefined) ?? {};
      return fc.array(validish(items, doc, depth + 1), {
        minLength: (s.minItems as number | undefined) ?? 0,
        maxLength: Math.min((s.maxItems as number | undefined) ?? 3, 3),
      });
    }
    case 'string': {
      if (typeof s.pattern === 'string') {
        try {
          return fc.stringMatching(new RegExp(s.pattern)).map((v) => v.slice(0, 200));
        } catch {
          return fc.string();
        }
      }
      return fc.string({
        minLength: (s.minLength as number | undefined) ?? 0,
        maxLength: Math.min((s.maxLength as number | undefined) ?? 20, 40),
      });
    }
    case 'integer':
      return fc.integer({
        min: Math.max((s.minimum as number | undefined) ?? 0, -1e9),
        max: Math.min((s.maximum as number | undefined) ?? 1e6, 1e9),
      });
    case 'number':
      return fc.double({
        min: (s.minimum as number | undefined) ?? 0,
        max: Math.min((s.maximum as number | undefined) ?? 1e6, 1e9),
        noNaN: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

type Mutation = { kind: 'drop' | 'replace' | 'extra' | 'nest'; pick: number; value: unknown };

function mutate(value: unknown, mutation: Mutation): unknown {
  if (typeof value !== 'object' || value === null) return mutation.kind === 'nest' ? deepNest(mutation.pick % 1_000) : mutation.value;
  const copy: Record<string, unknown> = Array.isArray(value) ? { ...value } : { ...(value as Record<string, unknown>) };
  const keys = Object.keys(copy);
  const key = keys.length === 0 ? undefined : keys[mutation.pick % keys.length]!;
  switch (mutation.kind) {
    case 'drop':
      if (key !== undefined) delete copy[key];
      break;
    case 'replace':
      if (key !== undefined)
        copy[key] = mutation.pick % 3 === 0 ? mutate(copy[key], { ...mutation, pick: Math.floor(mutation.pick / 3) }) : mutation.value;
      break;
    case 'extra':
      copy[String(WEIRD_STRINGS[mutation.pick % WEIRD_STRINGS.length]) || 'extra'] = mutation.value;
      break;
    case 'nest':
      if (key !== undefined) copy[key] = deepNest(100 + (mutation.pick % 900));
      break;
  }
  return Array.isArray(value) ? Object.values(copy) : copy;
}

function deepNest(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

/** Percent-encodes every byte outside the unreserved set (lone surrogates included, as their UTF-8 replacement). */
function percentEncode(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => values[name] ?? 'x');
}

const pathValue = fc.oneof(
  fc.constantFrom(...WEIRD_STRINGS).map((v) => percentEncode(v)),
  fc.constantFrom('%ZZ', '%E0%A4%A', '%', '..', '%2e%2e', '%2F', '%00', '%C0%AF', '~', "!$&'()*+,;=:@"),
  fc.string({ minLength: 1, maxLength: 60 }).map((v) => percentEncode(v)),
  fc.stringMatching(/^[a-z]{2,3}_[0-9a-z]{0,30}$/),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }).map((v) => percentEncode(v)),
);

const queryString = fc.oneof(
  fc
    .array(
      fc.tuple(fc.constantFrom('limit', 'after', 'before', 'user', 'address', 'owned', 'eventId', 'token', 'x', '__proto__'), pathValue),
      {
        minLength: 1,
        maxLength: 4,
      },
    )
    .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&')),
  fc.constantFrom(
    'limit=0',
    'limit=101',
    'limit=-1',
    'limit=1.5',
    'limit=abc',
    'limit=1e3',
    'limit=',
    'after=x&before=y',
    'limit=1&limit=2',
    '%',
    '&&&',
    '=',
    'limit[]=1',
    'limit[a]=1',
  ),
);

/**
 * Routes the campaign does not call with valid credentials: moving the sandbox clock (a valid advance of months
 * runs every hourly job on the way and legitimately takes long; it also expires the campaign's own session and
 * rotated keys) and rotating keys. Unauthenticated and wrong-method requests still reach them.
 */
const SELF_SABOTAGING = /\/sandbox\/(clock\/advance|keys\/rotate)$/;

function caseArbitrary(all: Operation[], doc: JsonSchema, credentials: FuzzCredentials): fc.Arbitrary<FuzzCase> {
  const operations = all.filter((op) => !SELF_SABOTAGING.test(op.template));
  const withBody = operations.filter((op) => op.body !== undefined);
  const withPath = operations.filter((op) => op.pathParams.length > 0);
  const bad = badCredentials(credentials);
  const weird = fc.oneof(
    fc.constantFrom(...WEIRD_VALUES),
    fc.jsonValue({ maxDepth: 2 }),
    fc.string({ maxLength: 30 }),
    fc.integer(),
    fc.double(),
  );
  const mutation = fc.record({
    kind: fc.constantFrom('drop', 'replace', 'replace', 'extra', 'nest') as fc.Arbitrary<Mutation['kind']>,
    pick: fc.nat(),
    value: weird,
  });
  const keyIndex = fc.nat(Math.max(0, credentials.apiKeys.length - 1));

  /** Valid credentials for an operation (so the request reaches validation), or none on public routes. */
  const authFor = (op: Operation, index: number): Array<[string, string]> => {
    if (op.auth === 'jwt') return credentials.jwt === undefined ? [] : [['Authorization', `Bearer ${credentials.jwt}`]];
    if (op.auth === 'public') return [];
    const key = credentials.apiKeys[index % Math.max(1, credentials.apiKeys.length)];
    return key === undefined ? [] : [['Authorization', `Bearer ${key}`]];
  };
  const pathOf = (op: Operation, values: string[]) =>
    fillTemplate(op.template, Object.fromEntries(op.pathParams.map((name, i) => [name, values[i] ?? 'x'])));

  const schemaBody = fc
    .tuple(fc.constantFrom(...withBody), fc.nat(), fc.array(mutation, { minLength: 1, maxLength: 3 }), keyIndex)
    .chain(([op, seed, mutations, index]) =>
      validish(op.body ?? {}, doc).map((value) => {
        let body = value;
        for (const m of mutations) body = mutate(body, m);
        const text = JSON.stringify(body) ?? 'null';
        return {
          strategy: 'schema-body',
          label: `${op.method} ${op.template} body ${mutations.map((m) => m.kind).join('+')}`,
          method: op.method,
          target: pathOf(
            op,
            op.pathParams.map(() => `x${seed % 7}`),
          ),
          headers: [['Content-Type', 'application/json'], ...authFor(op, index)],
          body: Buffer.from(text),
          unauthenticated: op.auth !== 'public' && op.auth !== 'optional' && authFor(op, index).length === 0,
          operation: op,
        } satisfies FuzzCase;
      }),
    );

  const rawBody = fc
    .tuple(
      fc.constantFrom(...withBody),
      fc.oneof(
        fc.uint8Array({ maxLength: 400 }).map((b) => Buffer.from(b)),
        fc.json().map((t) => Buffer.from(t)),
        fc.json().map((t) => Buffer.from(t.slice(0, Math.max(0, t.length - 1)))),
        fc
          .constantFrom(
            '',
            '{',
            '}',
            '[',
            '{"a":',
            'null',
            '"x"',
            '1',
            'true',
            '{"__proto__":{"x":1}}',
            '{"constructor":{"prototype":{"x":1}}}',
          )
          .map((t) => Buffer.from(t)),
        fc.nat(5_000).map((n) => Buffer.from('['.repeat(n + 500) + ']'.repeat(n + 500))),
        fc.constant(Buffer.from(`{"x":"${'a'.repeat(110 * 1024)}"}`)),
        fc.constant(Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d])),
        fc.constant(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])),
      ),
      fc.constantFrom(...CONTENT_TYPES),
      keyIndex,
    )
    .map(([op, body, contentType, index]) => ({
      strategy: 'raw-body',
      label: `${op.method} ${op.template} raw body (${contentType || 'no type'})`,
      method: op.method,
      target: pathOf(
        op,
        op.pathParams.map(() => 'x'),
      ),
      headers: [...(contentType === '' ? [] : [['Content-Type', contentType] as [string, string]]), ...authFor(op, index)],
      body,
      unauthenticated: false,
      operation: op,
    }));

  const encodedBody = fc
    .tuple(
      fc.constantFrom(...withBody),
      fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'compress', 'gzip, gzip', 'x-unknown'),
      fc.boolean(),
      keyIndex,
    )
    .map(([op, encoding, valid, index]) => ({
      strategy: 'encoded-body',
      label: `${op.method} ${op.template} Content-Encoding ${encoding}${valid ? '' : ' (garbage)'}`,
      method: op.method,
      target: pathOf(
        op,
        op.pathParams.map(() => 'x'),
      ),
      headers: [['Content-Type', 'application/json'], ['Content-Encoding', encoding], ...authFor(op, index)] as Array<[string, string]>,
      body:
        valid && encoding === 'gzip' ? gzipSync(Buffer.from(`{"x":"${'a'.repeat(2_000_000)}"}`)) : Buffer.from('\x1f\x8b\x08\x00garbage'),
      unauthenticated: false,
      operation: op,
    }));

  const pathParams = fc
    .tuple(fc.constantFrom(...withPath), fc.array(pathValue, { minLength: 1, maxLength: 3 }), keyIndex)
    .map(([op, values, index]) => ({
      strategy: 'path-params',
      label: `${op.method} ${op.template} path params`,
      method: op.method,
      target: pathOf(op, values),
      headers: [...(op.body ? ([['Content-Type', 'application/json']] as Array<[string, string]>) : []), ...authFor(op, index)],
      ...(op.body ? { body: Buffer.from('{}') } : {}),
      unauthenticated: false,
      operation: op,
    }));

  const query = fc
    .tuple(fc.constantFrom(...operations.filter((op) => op.method === 'GET')), queryString, keyIndex)
    .map(([op, search, index]) => ({
      strategy: 'query',
      label: `${op.method} ${op.template} query`,
      method: op.method,
      target: `${pathOf(
        op,
        op.pathParams.map(() => 'x'),
      )}?${search}`,
      headers: authFor(op, index),
      unauthenticated: false,
      operation: op,
    }));

  const headerCase = fc
    .tuple(
      fc.constantFrom(...operations),
      fc.oneof(
        fc.constantFrom(...bad).map((value) => ({ name: 'Authorization', value, auth: false })),
        fc
          .constantFrom('', ' ', 'x'.repeat(256), 'ключ', 'a\tb', 'a b c', '"quoted"', '%00')
          .map((value) => ({ name: 'Idempotency-Key', value, auth: true })),
        fc
          .constantFrom('', 'zz', `0x${'0'.repeat(64)}`, `0x${'f'.repeat(63)}`, 'x'.repeat(5_000), '0x', 'att_x')
          .map((value) => ({ name: 'X-Service-Attestation', value, auth: true })),
        fc
          .constantFrom('text/html', 'application/xml', '*/*;q=0', 'application/json;q=0', '')
          .map((value) => ({ name: 'Accept', value, auth: true })),
        fc
          .constantFrom('evil.example', 'localhost:1', '[::1]', '', 'a'.repeat(300), '127.0.0.1:99999', 'x y')
          .map((value) => ({ name: 'Host', value, auth: true })),
        fc.constantFrom('https://evil.example', 'null', 'http://localhost:1').map((value) => ({ name: 'Origin', value, auth: true })),
        fc.constantFrom('1.2.3.4', 'unknown, 127.0.0.1', '::1').map((value) => ({ name: 'X-Forwarded-For', value, auth: true })),
        fc.constantFrom('bytes=0-1', 'bytes=x').map((value) => ({ name: 'Range', value, auth: true })),
        fc.constantFrom('*', '"x"').map((value) => ({ name: 'If-None-Match', value, auth: true })),
        fc
          .tuple(fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,30}$/), fc.stringMatching(/^[\x20-\x7e]{0,200}$/))
          .map(([name, value]) => ({ name, value, auth: true })),
      ),
      keyIndex,
    )
    .map(([op, header, index]) => {
      const auth = header.auth ? authFor(op, index) : [];
      return {
        strategy: 'headers',
        label: `${op.method} ${op.template} header ${header.name}`,
        method: op.method,
        target: pathOf(
          op,
          op.pathParams.map(() => 'x'),
        ),
        headers: [
          ...(op.body ? ([['Content-Type', 'application/json']] as Array<[string, string]>) : []),
          ...auth,
          [header.name, header.value],
        ] as Array<[string, string]>,
        ...(op.body ? { body: Buffer.from('{}') } : {}),
        unauthenticated: !header.auth || auth.length === 0,
        operation: op,
      };
    });

  const method = fc.tuple(fc.constantFrom(...all), fc.constantFrom(...METHODS)).map(([op, verb]) => ({
    strategy: 'method',
    label: `${verb} ${op.template}`,
    method: verb,
    target: pathOf(
      op,
      op.pathParams.map(() => 'x'),
    ),
    headers: [] as Array<[string, string]>,
    unauthenticated: true,
    operation: { ...op, method: verb },
  }));

  const unknownPath = fc
    .tuple(
      fc.oneof(
        fc.constantFrom(...EXTRA_PATHS),
        fc.array(pathValue, { minLength: 1, maxLength: 5 }).map((parts) => `/api/v1/${parts.join('/')}`),
      ),
      fc.constantFrom('GET', 'POST', 'DELETE'),
    )
    .map(([path, verb]) => ({
      strategy: 'unknown-path',
      label: `${verb} ${path.slice(0, 60)}`,
      method: verb,
      target: path,
      headers: [] as Array<[string, string]>,
      unauthenticated: true,
    }));

  const framing = fc
    .constantFrom(
      'GET /api/v1/health HTTP/9.9\r\nHost: x\r\n\r\n',
      'GET /api/v1/health\r\n\r\n',
      'GARBAGE\r\n\r\n',
      '\r\n\r\n',
      'GET /api/v1/health HTTP/1.1\r\nHost x\r\n\r\n',
      'GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX: a\x00b\r\n\r\n',
      `GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      `GET /api/v1/${'a'.repeat(70_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      'POST /api/v1/quotes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
      'POST /api/v1/quotes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}',
      'POST /api/v1/quotes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
      'POST /api/v1/quotes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: -1\r\n\r\n{}',
      'POST /api/v1/quotes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}GET / HTTP/1.1\r\n\r\n',
      'GET /api/v1/health HTTP/1.1\r\nHost: x\r\n Folded: header\r\n\r\n',
      'GET http://evil.example/api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET * HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /api/v1/health HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n',
      'GET /api/v1/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 99\r\nSec-WebSocket-Key: x\r\n\r\n',
      'GET /ws/v1/solver/stream HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n',
      'GET /api/v1/nowhere HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
    )
    .map((raw) => ({
      strategy: 'framing',
      label: `raw ${JSON.stringify(raw.slice(0, 40))}`,
      method: 'RAW',
      target: '',
      headers: [] as Array<[string, string]>,
      raw: Buffer.from(raw, 'latin1'),
      transport: true,
      unauthenticated: true,
    }));

  // WebSocket handshakes, good and broken, on every upgrade path and on targets a URL parser may refuse.
  const upgrade = fc
    .tuple(
      fc.oneof(
        fc.constantFrom(
          '/api/v1/ws',
          '/api/v1/ws?token=x',
          '/ws/v1/solver/stream',
          '/ws/solver/stream',
          '/v1/ws/solver/stream',
          '/nowhere',
          '*',
          '//[',
          'http://[',
          '/api/v1/ws/..',
          '/%',
          '/api/v1/ws?%zz',
        ),
        fc.string({ maxLength: 24 }).map((v) => `/${v.replace(/[\s\x00-\x1f\x7f]/g, '')}`),
      ),
      fc.constantFrom('GET', 'GET', 'POST'),
      fc.constantFrom('dGhlIHNhbXBsZSBub25jZQ==', '', 'x', 'AAAAAAAAAAAAAAAAAAAAAA==', 'dGhlIHNhbXBsZSBub25jZQ'),
      fc.constantFrom('13', '13', '8', '99', '', 'x'),
      fc.constantFrom(undefined, 'chat', 'a b', ',,', 'x'.repeat(300)),
      fc.constantFrom('websocket', 'websocket', 'WebSocket', 'h2c', ''),
    )
    .map(([target, verb, key, version, protocol, upgradeTo]) => ({
      strategy: 'upgrade',
      label: `${verb} ${target.slice(0, 40)} upgrade (${upgradeTo || 'none'}, key ${key.slice(0, 6) || 'none'}, v${version || 'none'})`,
      method: verb,
      target,
      headers: [
        ['Upgrade', upgradeTo],
        ['Connection', 'Upgrade'],
        ['Sec-WebSocket-Key', key],
        ['Sec-WebSocket-Version', version],
        ...(protocol === undefined ? [] : ([['Sec-WebSocket-Protocol', protocol]] as Array<[string, string]>)),
      ] as Array<[string, string]>,
      transport: true,
      unauthenticated: true,
    }));

  return fc.oneof(
    { arbitrary: schemaBody, weight: 30 },
    { arbitrary: rawBody, weight: 12 },
    { arbitrary: encodedBody, weight: 2 },
    { arbitrary: pathParams, weight: 12 },
    { arbitrary: query, weight: 10 },
    { arbitrary: headerCase, weight: 18 },
    { arbitrary: method, weight: 5 },
    { arbitrary: unknownPath, weight: 6 },
    { arbitrary: framing, weight: 5 },
    { arbitrary: upgrade, weight: 4 },
  );
}

export async function runFuzzCampaign(options: FuzzOptions): Promise<FuzzFigures> {
  const started = Date.now();
  const log = options.log ?? (() => undefined);
  const port = Number(new URL(options.url).port);
  const doc = (await (await fetch(`${options.url}/api/v1/openapi.json`)).json()) as JsonSchema;
  const operations = operationsOf(doc);
  const figures: FuzzFigures = {
    requests: 0,
    answered: 0,
    serverErrors: 0,
    nonFormatErrors: 0,
    noAnswer: 0,
    transportClosed: 0,
    revived: 0,
    authBypasses: 0,
    corsGrants: 0,
    accepted: 0,
    rateLimited: 0,
    rateLimitedWithoutRetryAfter: 0,
    byStatus: {},
    byStrategy: {},
    routes: operations.length,
    wsConnections: 0,
    wsFrames: 0,
    wsNonFormat: 0,
    wsServerErrors: 0,
    wsCloseCodes: {},
    healthyAfter: false,
    wallMs: 0,
    samples: [],
  };
  const sample = (entry: FuzzSample) => {
    if (figures.samples.length < 40) figures.samples.push(entry);
  };

  const arbitrary = caseArbitrary(operations, doc, options.credentials);
  const concurrency = options.concurrency ?? 8;
  // Anonymous requests are rate limited per client address: spread them over loopback addresses.
  const sources = Array.from({ length: 16 }, (_, i) => `127.0.0.${i + 2}`);
  const batchSize = 500;
  for (let batch = 0; batch * batchSize < options.requests; batch++) {
    const count = Math.min(batchSize, options.requests - batch * batchSize);
    const cases = fc.sample(arbitrary, { seed: options.seed + batch, numRuns: count });
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async (_, worker) => {
        for (;;) {
          const index = next++;
          if (index >= cases.length) return;
          const fuzzCase = cases[index]!;
          const send = () =>
            sendRaw({
              port,
              localAddress: sources[(batch * batchSize + index + worker) % sources.length],
              bytes: fuzzCase.raw ?? buildRequest(fuzzCase.method, fuzzCase.target, fuzzCase.headers, fuzzCase.body),
              timeoutMs: fuzzCase.transport === true ? 3_000 : 15_000,
            });
          let outcome = await send();
          if (outcome.kind === 'no-answer' && outcome.reason === 'refused' && options.revive !== undefined) {
            // The service died (an earlier request killed it): bring it back and send this one again.
            if (await options.revive()) figures.revived += 1;
            outcome = await send();
          }
          judge(fuzzCase, outcome);
        }
      }),
    );
    log(
      `  fuzz: ${figures.requests} requests, ${figures.serverErrors} 5xx, ${figures.nonFormatErrors} not in format, ${figures.noAnswer} unanswered`,
    );
  }

  function judge(fuzzCase: FuzzCase, outcome: RawOutcome): void {
    figures.requests += 1;
    figures.byStrategy[fuzzCase.strategy] = (figures.byStrategy[fuzzCase.strategy] ?? 0) + 1;
    const request = `${fuzzCase.method} ${fuzzCase.target.slice(0, 120)}`;
    if (outcome.kind === 'no-answer') {
      if (fuzzCase.transport === true && outcome.reason !== 'refused') {
        figures.transportClosed += 1;
        return;
      }
      figures.noAnswer += 1;
      sample({ label: fuzzCase.label, request, status: 'none', body: '', problem: `no answer: ${outcome.reason} ${outcome.detail}` });
      return;
    }
    const { status, headers, body } = outcome.answer;
    figures.answered += 1;
    figures.byStatus[status] = (figures.byStatus[status] ?? 0) + 1;
    const text = body.toString('utf8');
    if (headers.has('access-control-allow-origin') || headers.has('access-control-allow-credentials')) {
      figures.corsGrants += 1;
      sample({
        label: fuzzCase.label,
        request,
        status,
        body: `ACAO: ${headers.get('access-control-allow-origin')}`,
        problem: 'a cross-origin grant',
      });
    }
    if (status >= 500) {
      figures.serverErrors += 1;
      sample({ label: fuzzCase.label, request, status, body: text.slice(0, 300), problem: 'server error' });
    }
    if (status < 400) {
      figures.accepted += 1;
      if (fuzzCase.transport === true) return;
      const guarded = fuzzCase.operation !== undefined && fuzzCase.operation.auth !== 'public' && fuzzCase.operation.auth !== 'optional';
      const matched = fuzzCase.operation !== undefined && templatePattern(fuzzCase.operation.template).test(fuzzCase.target.split('?')[0]!);
      if (guarded && matched && fuzzCase.unauthenticated && fuzzCase.method !== 'OPTIONS') {
        figures.authBypasses += 1;
        sample({
          label: fuzzCase.label,
          request,
          status,
          body: text.slice(0, 300),
          problem: 'a guarded route answered 2xx without a valid credential',
        });
      }
      return;
    }
    if (status === 429) {
      figures.rateLimited += 1;
      if (!/^\d+$/.test(headers.get('retry-after') ?? '')) figures.rateLimitedWithoutRetryAfter += 1;
    }
    if (fuzzCase.method === 'HEAD') return;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const path = (() => {
      try {
        return decodeURI(fuzzCase.target.split('?')[0]!);
      } catch {
        return fuzzCase.target.split('?')[0]!;
      }
    })();
    const format = fuzzCase.transport === true ? 'A' : expectedFormat(operations, fuzzCase.method, fuzzCase.target.split('?')[0]!);
    const problems =
      json === undefined
        ? [`the body is not JSON (${headers.get('content-type') ?? 'no content type'})`]
        : format === 'A'
          ? formatAProblems(status, json)
          : formatBProblems(status, json).format;
    if (problems.length > 0) {
      figures.nonFormatErrors += 1;
      sample({
        label: fuzzCase.label,
        request: `${fuzzCase.method} ${path.slice(0, 120)}`,
        status,
        body: text.slice(0, 300),
        problem: `not Format ${format}: ${problems.join('; ')}`,
      });
    }
  }

  await fuzzWebSockets(options, figures, sample, log);
  for (let attempt = 0; attempt < 20 && !figures.healthyAfter; attempt++) {
    figures.healthyAfter = await fetch(`${options.url}/api/v1/health`)
      .then((r) => r.status === 200)
      .catch(() => false);
    if (!figures.healthyAfter) await sleep(250);
  }
  figures.wallMs = Date.now() - started;
  return figures;
}

/** Malformed frames on the taker stream and the solver stream; every error frame must be in format. */
async function fuzzWebSockets(
  options: FuzzOptions,
  figures: FuzzFigures,
  sample: (entry: FuzzSample) => void,
  log: (line: string) => void,
): Promise<void> {
  const wsBase = options.url.replace(/^http/, 'ws');
  const total = options.wsFrames ?? Math.max(50, Math.floor(options.requests / 10));
  const frame = fc.oneof(
    fc.json().map((t) => ({ data: t as string | Buffer, binary: false })),
    fc.jsonValue({ maxDepth: 3 }).map((v) => ({ data: JSON.stringify(v) ?? 'null', binary: false })),
    fc.string({ maxLength: 200 }).map((t) => ({ data: t, binary: false })),
    fc.uint8Array({ maxLength: 200 }).map((b) => ({ data: Buffer.from(b), binary: true })),
    fc
      .record(
        {
          type: fc.constantFrom('auth', 'subscribe', 'unsubscribe', 'ping', 'pong', 'quote', 'decline', 'x', '', 'AUTH'),
          token: fc.oneof(
            fc.constantFrom(...badCredentials(options.credentials).map((c) => c.replace(/^Bearer /, ''))),
            fc.constantFrom(...WEIRD_VALUES),
          ),
          topics: fc.oneof(
            fc.array(
              fc.oneof(
                fc.constantFrom('orders:*', 'orders:ord_x', 'prices:alpha:USDC:beta:USDC:standard', 'prices:', 'orders:', '*', ''),
                fc.string(),
              ),
              { maxLength: 5 },
            ),
            fc.constantFrom(...WEIRD_VALUES),
          ),
          channels: fc.oneof(fc.array(fc.string({ maxLength: 20 }), { maxLength: 5 }), fc.constantFrom(...WEIRD_VALUES)),
          cursor: fc.constantFrom(...WEIRD_VALUES),
          rfqId: fc.constantFrom(...WEIRD_VALUES),
          outputAmount: fc.constantFrom(...WEIRD_VALUES),
        },
        { requiredKeys: ['type'] },
      )
      .map((v) => ({ data: JSON.stringify(v), binary: false })),
    fc.constantFrom(
      { data: 'x'.repeat(70 * 1024), binary: false },
      { data: Buffer.from([0xff, 0xfe, 0xfd]), binary: false },
      { data: '{"type":"subscribe","topics":' + '['.repeat(5_000) + ']'.repeat(5_000) + '}', binary: false },
    ),
  );
  const apiKey = options.credentials.apiKeys[0];
  const endpoints: Array<{ name: string; url: string; errorFormat: 'A' | 'flat' }> = [
    { name: 'taker stream (no credential)', url: `${wsBase}/api/v1/ws`, errorFormat: 'A' },
    ...(apiKey === undefined
      ? []
      : [{ name: 'taker stream (authenticated)', url: `${wsBase}/api/v1/ws?token=${apiKey}`, errorFormat: 'A' as const }]),
    { name: 'solver stream', url: `${wsBase}/ws/v1/solver/stream`, errorFormat: 'flat' },
  ];
  const perEndpoint = Math.ceil(total / endpoints.length);
  for (const endpoint of endpoints) {
    const frames = fc.sample(frame, { seed: options.seed + endpoint.name.length, numRuns: perEndpoint });
    let index = 0;
    while (index < frames.length) {
      // A connection takes frames until the server closes it (a bad auth frame closes with 4401, a huge one 1009).
      const ws = new WebSocket(endpoint.url, { perMessageDeflate: false, maxPayload: 4 * 1024 * 1024 });
      figures.wsConnections += 1;
      const closed = new Promise<number>((resolve) => {
        ws.on('close', (code) => resolve(code));
        ws.on('error', () => undefined);
      });
      ws.on('message', (data, isBinary) => {
        let message: unknown;
        try {
          message = JSON.parse(data.toString());
        } catch {
          message = undefined;
        }
        const problem = wsProblem(message, isBinary, endpoint.errorFormat);
        if (problem !== undefined) {
          figures.wsNonFormat += 1;
          sample({ label: endpoint.name, request: 'frame', status: 'ws', body: data.toString().slice(0, 300), problem });
        }
        const code =
          (message as { error?: { code?: string }; code?: string } | undefined)?.error?.code ??
          (message as { code?: string } | undefined)?.code;
        if (code === 'internal_error') figures.wsServerErrors += 1;
      });
      const opened = await new Promise<boolean>((resolve) => {
        ws.once('open', () => resolve(true));
        ws.once('error', () => resolve(false));
        ws.once('close', () => resolve(false));
      });
      if (!opened) {
        index += 1;
        continue;
      }
      while (index < frames.length && ws.readyState === WebSocket.OPEN) {
        const { data, binary } = frames[index++]!;
        figures.wsFrames += 1;
        ws.send(data, { binary });
        await sleep(2);
      }
      await sleep(20);
      if (ws.readyState === WebSocket.OPEN) ws.close(1000);
      const code = await Promise.race([closed, sleep(3_000).then(() => -1)]);
      if (code === -1) ws.terminate();
      figures.wsCloseCodes[code] = (figures.wsCloseCodes[code] ?? 0) + 1;
      if (code === 1011) figures.wsServerErrors += 1;
    }
    log(`  fuzz: ${endpoint.name}: ${figures.wsFrames} frames so far, ${figures.wsNonFormat} not in format`);
  }
}

function wsProblem(message: unknown, isBinary: boolean, errorFormat: 'A' | 'flat'): string | undefined {
  if (isBinary) return 'the server sent a binary frame';
  if (typeof message !== 'object' || message === null || typeof (message as { type?: unknown }).type !== 'string')
    return 'a frame that is not a JSON object with a type';
  const m = message as { type: string; error?: unknown; code?: unknown; message?: unknown };
  if (m.type !== 'error') return undefined;
  if (errorFormat === 'A') {
    const problems = formatAProblems(400, { error: m.error }).filter((p) => !p.startsWith('status'));
    return problems.length === 0 ? undefined : `error frame not in Format A: ${problems.join('; ')}`;
  }
  return typeof m.code === 'string' && m.code !== '' && typeof m.message === 'string' && m.message !== ''
    ? undefined
    : 'error frame without code and message';
}

/** Signs in with a wallet (SIWE) for a dashboard session token, so JWT-only routes are fuzzed past authentication. */
export async function signInForJwt(url: string, privateKey: `0x${string}`): Promise<string | undefined> {
  const account = privateKeyToAccount(privateKey);
  const challenge = await fetch(`${url}/api/v1/auth/challenge`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ address: account.address }),
  });
  if (challenge.status !== 200) return undefined;
  const { message } = (await challenge.json()) as { message: string };
  const verify = await fetch(`${url}/api/v1/auth/verify`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ message, signature: await account.signMessage({ message }) }),
  });
  if (verify.status !== 200) return undefined;
  return ((await verify.json()) as { token: string }).token;
}
