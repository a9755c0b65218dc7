import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import type { CheckContext } from '../../core/context.js';
import { BOTH, check, ONLY_A, ONLY_B, PHASE } from '../support/define.js';
import { expectError, formatAProblems, formatBProblems, routeFormat } from '../support/errors.js';
import { isObject } from '../support/shape.js';

/** A route to throw bad input at, with a valid-looking base body to corrupt field by field. */
interface FuzzRoute {
  method: 'POST' | 'GET';
  path: string;
  auth: boolean;
  fields: string[];
}

const ROUTES_A: FuzzRoute[] = [
  {
    method: 'POST',
    path: '/quotes',
    auth: false,
    fields: ['inputToken', 'outputToken', 'inputAmount', 'originChainId', 'destinationChainId', 'preference', 'swapType'],
  },
  { method: 'POST', path: '/orders', auth: true, fields: ['quoteId', 'signature', 'nonce'] },
  { method: 'POST', path: '/webhooks', auth: true, fields: ['url', 'events', 'secret'] },
  { method: 'POST', path: '/solvers/register', auth: true, fields: ['name', 'corridors', 'callbackUrl'] },
];
const ROUTES_B: FuzzRoute[] = [
  { method: 'POST', path: '/rfq', auth: true, fields: ['pair', 'side', 'amount', 'chain'] },
  { method: 'POST', path: '/accept', auth: true, fields: ['rfqId', 'quoteId', 'signature', 'nonce'] },
  { method: 'POST', path: '/solver/register', auth: true, fields: ['name', 'corridors'] },
];

/** Values of every wrong kind: other types, negatives, huge, unicode, injection-looking text, deep nesting. */
const badValue = fc.oneof(
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -1,
    1.5,
    1e308,
    -0,
    '',
    ' ',
    '-5',
    '1.5',
    '1e6',
    '0x',
    '0xZZ',
    'NaN',
    '∞',
    '🙂',
    '\u0000',
    '<script>',
    "' OR 1=1 --",
  ),
  fc.string({ maxLength: 40 }),
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  fc.string({ minLength: 300, maxLength: 2_000 }),
);

/** Whole bodies that are not what any route takes. */
const badBody = (fields: string[]) =>
  fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.record(Object.fromEntries(fields.map((f) => [f, badValue])), { requiredKeys: [] }),
    fc.tuple(fc.constantFrom(...fields), badValue).map(([field, value]) => ({ [field]: value })),
  );

/** Raw texts that are not JSON or not the declared content. */
const badRaw = fc.oneof(
  fc.constantFrom('{', '{"a":', '[1,2', '{"a":1}}', 'null', '"string"', 'true', '\u0000\u0001', '{"__proto__": {"x": 1}}', '{"a":1,"a":2}'),
  fc.string({ maxLength: 200 }),
);

interface FuzzCase {
  route: FuzzRoute;
  kind: 'body' | 'raw' | 'content-type' | 'query' | 'idempotency-key';
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
  query?: Record<string, string>;
}

function cases(routes: FuzzRoute[], seed: number, perRoute: number): FuzzCase[] {
  const out: FuzzCase[] = [];
  routes.forEach((route, index) => {
    const s = seed + index * 7919;
    for (const body of fc.sample(badBody(route.fields), { seed: s, numRuns: perRoute })) out.push({ route, kind: 'body', body });
    for (const raw of fc.sample(badRaw, { seed: s + 1, numRuns: Math.ceil(perRoute / 4) })) {
      out.push({ route, kind: 'raw', raw, headers: { 'Content-Type': 'application/json' } });
    }
    out.push({ route, kind: 'content-type', raw: 'inputAmount=1', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    out.push({ route, kind: 'content-type', raw: '{"a":1}', headers: { 'Content-Type': 'text/plain' } });
    for (const key of fc.sample(fc.oneof(fc.string({ minLength: 256, maxLength: 400 }), fc.constantFrom('\t', 'ключ', 'a\u007fb')), {
      seed: s + 2,
      numRuns: 2,
    })) {
      out.push({ route, kind: 'idempotency-key', body: {}, headers: { 'Idempotency-Key': key } });
    }
  });
  return out;
}

const LIST_QUERIES = fc.record(
  {
    limit: fc.oneof(fc.constantFrom('0', '-1', '101', '1e3', 'abc', '', '1.5', '99999999999999999999'), fc.string({ maxLength: 10 })),
    after: fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('%%%', 'AAAA', 'eyJ4Ijp9')),
    before: fc.string({ maxLength: 40 }),
  },
  { requiredKeys: [] },
);

/** Sends one bad request; returns a problem description or undefined when the answer conforms. */
async function send(ctx: CheckContext, c: FuzzCase, key: string | undefined): Promise<string | undefined> {
  const headers: Record<string, string> = { ...c.headers };
  const idempotencyKey = headers['Idempotency-Key'];
  // fetch refuses to send bytes outside visible ASCII in a header; percent-encoding keeps the case meaningful.
  if (idempotencyKey !== undefined && /[^\x20-\x7e]/.test(idempotencyKey)) headers['Idempotency-Key'] = encodeURIComponent(idempotencyKey);
  let response: Awaited<ReturnType<typeof ctx.state.http.request>>;
  try {
    response = await ctx.state.http.request({
      method: c.route.method,
      path: `/api/v1${c.route.path}`,
      ...(c.query === undefined ? {} : { query: c.query }),
      ...(c.raw !== undefined ? { raw: c.raw } : c.body !== undefined ? { body: c.body } : {}),
      headers,
      ...(c.route.auth && key !== undefined ? { auth: key } : {}),
      label: `fuzz ${c.kind}`,
    });
  } catch (error) {
    return `${c.route.method} ${c.route.path} (${c.kind}): no answer (${(error as Error).message})`;
  }
  const input = c.raw ?? JSON.stringify(c.body ?? c.query ?? {});
  const where = `${c.route.method} ${c.route.path} (${c.kind}) with ${input.slice(0, 120)}`;
  if (response.status >= 500) {
    ctx.evidence.push(response.evidence);
    return `${where} → ${response.status}`;
  }
  if (response.status >= 400) {
    const format = routeFormat(c.route.method, `/api/v1${c.route.path}`);
    const problems =
      format === 'A' ? formatAProblems(response.status, response.json) : formatBProblems(response.status, response.json).format;
    if (problems.length > 0) {
      ctx.evidence.push(response.evidence);
      return `${where} → ${response.status} not in Format ${format}: ${problems[0]}`;
    }
  }
  return undefined;
}

async function fuzz(ctx: CheckContext, routes: FuzzRoute[], listPaths: string[]): Promise<void> {
  const key = ctx.target.apiKey;
  const all = cases(routes, ctx.seed, 24);
  for (const [i, query] of fc.sample(LIST_QUERIES, { seed: ctx.seed + 3, numRuns: 16 }).entries()) {
    const path = listPaths[i % listPaths.length]!;
    all.push({ route: { method: 'GET', path, auth: true, fields: [] }, kind: 'query', query: query as Record<string, string> });
  }
  const problems: string[] = [];
  // A few at a time: fast, and gentle with the rate limiter.
  for (let i = 0; i < all.length; i += 8) {
    const batch = await Promise.all(all.slice(i, i + 8).map((c) => send(ctx, c, key)));
    problems.push(...batch.filter((p): p is string => p !== undefined));
  }
  ctx.note(`${all.length} generated bad requests (seed ${ctx.seed}); ${problems.length} answered outside the rules`);
  const serverErrors = problems.filter((p) => /→ 5\d\d/.test(p));
  const formatErrors = problems.filter((p) => !/→ 5\d\d/.test(p));
  ctx.expect(
    'X-ERR-001',
    serverErrors.length === 0,
    `${serverErrors.length} bad inputs got a 5xx: ${serverErrors.slice(0, 3).join(' | ')}`,
  );
  const formatRequirement = routes[0] && routeFormat(routes[0].method, `/api/v1${routes[0].path}`) === 'B' ? 'B-ERR-001' : 'A-ERR-001';
  ctx.expect(
    formatRequirement,
    formatErrors.length === 0,
    `${formatErrors.length} errors not in format: ${formatErrors.slice(0, 3).join(' | ')}`,
  );
}

export const errorChecks = [
  check({
    id: 'errors.a.unknown-route',
    title: 'An unknown route is a Format A 404 not_found',
    requirements: ['A-ERR-001', 'A-ERR-002', 'A-ERR-003'],
    profiles: ONLY_A,
    tags: ['platform', 'errors'],
    phase: PHASE.platform,
    async run(ctx: CheckContext) {
      const response = await ctx.api('GET', `/conformance-no-such-route-${randomBytes(3).toString('hex')}`);
      expectError(ctx, response, { status: 404, type: 'not_found' }, 'A-ERR-002', 'an unknown route');
    },
  }),

  check({
    id: 'errors.a.malformed-json',
    title: 'Malformed JSON and a wrong content type are a Format A 400 invalid_request',
    requirements: ['A-ERR-004', 'A-ERR-001', 'X-ERR-001'],
    profiles: ONLY_A,
    tags: ['platform', 'errors'],
    phase: PHASE.platform,
    async run(ctx: CheckContext) {
      const broken = await ctx.api('POST', '/quotes', {
        raw: '{"inputToken": "0x',
        headers: { 'Content-Type': 'application/json' },
        label: 'truncated JSON',
      });
      expectError(ctx, broken, { status: 400, type: 'invalid_request' }, 'A-ERR-004', 'a truncated JSON body');
      const text = await ctx.api('POST', '/quotes', {
        raw: 'inputAmount=1',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        label: 'form-encoded body',
      });
      expectError(ctx, text, { status: [400, 415], type: 'invalid_request' }, 'A-ERR-004', 'a form-encoded body');
    },
  }),

  check({
    id: 'errors.a.doc-url-resolves',
    title: 'The doc_url of an error resolves',
    requirements: ['A-ERR-005'],
    profiles: ONLY_A,
    tags: ['platform', 'errors'],
    phase: PHASE.platform,
    async run(ctx: CheckContext) {
      const response = await ctx.api('GET', `/conformance-no-such-route-${randomBytes(3).toString('hex')}`);
      const docUrl = isObject(response.json) && isObject(response.json.error) ? response.json.error.doc_url : undefined;
      if (typeof docUrl !== 'string') ctx.fail('the error has no doc_url');
      let url: URL | undefined;
      try {
        url = new URL(docUrl);
      } catch {
        url = undefined;
      }
      if (url === undefined) ctx.fail(`doc_url ${docUrl} is not a URL`);
      const page = await ctx.request({
        method: 'GET',
        path: url.toString().replace(/#.*$/, ''),
        headers: { Accept: 'text/html' },
        label: 'doc_url',
      });
      ctx.expect('A-ERR-005', page.status === 200, `doc_url ${docUrl} answered ${page.status}`);
      if (url.hash.length > 1)
        ctx.expect('A-ERR-005', page.text.includes(url.hash.slice(1)), `the page at ${docUrl} does not mention ${url.hash.slice(1)}`);
    },
  }),

  check({
    id: 'errors.a.fuzz-no-5xx',
    title: 'Generated bad bodies, content types, headers and queries get a Format A 4xx, never a 5xx',
    requirements: ['X-ERR-001', 'A-ERR-001'],
    profiles: ONLY_A,
    tags: ['platform', 'errors', 'fuzz'],
    phase: PHASE.platform,
    timeoutMs: 90_000,
    async run(ctx: CheckContext) {
      await fuzz(ctx, ROUTES_A, ['/settlements', '/auth/sessions']);
    },
  }),

  check({
    id: 'errors.b.fuzz-no-5xx',
    title: 'Generated bad input on Reference B routes gets a Format B 4xx, never a 5xx',
    requirements: ['X-ERR-001', 'B-ERR-001'],
    profiles: ONLY_B,
    tags: ['platform', 'errors', 'fuzz'],
    phase: PHASE.platform,
    timeoutMs: 90_000,
    async run(ctx: CheckContext) {
      await fuzz(ctx, ROUTES_B, ['/settlements']);
    },
  }),

  check({
    id: 'errors.b.format',
    title: 'Reference B routes answer Format B errors with uppercase codes from the table',
    requirements: ['B-ERR-001', 'B-ERR-002'],
    profiles: ONLY_B,
    tags: ['errors', 'reference-b'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const missing = await ctx.api('POST', '/rfq', {
        body: {},
        ...(ctx.target.apiKey ? { auth: ctx.target.apiKey } : {}),
        label: 'RFQ without fields',
      });
      expectError(ctx, missing, { status: 400, code: ['MISSING_FIELD', 'INVALID_REQUEST'] }, 'B-ERR-001', 'POST /rfq with {}');
      const broken = await ctx.api('POST', '/accept', {
        raw: '{',
        headers: { 'Content-Type': 'application/json' },
        ...(ctx.target.apiKey ? { auth: ctx.target.apiKey } : {}),
        label: 'truncated JSON',
      });
      expectError(ctx, broken, { status: 400, code: 'INVALID_REQUEST' }, 'B-ERR-001', 'POST /accept with truncated JSON');
      const unknown = await ctx.api('GET', `/settlements/stl_conformance${randomBytes(6).toString('hex')}`, {
        ...(ctx.target.apiKey ? { auth: ctx.target.apiKey } : {}),
        label: 'unknown settlement',
      });
      expectError(ctx, unknown, { status: 404, code: 'NOT_FOUND' }, 'B-ERR-001', 'GET an unknown settlement');
      const badKey = await ctx.api('POST', '/rfq', {
        body: {},
        auth: `svc_test_conformance_${randomBytes(16).toString('hex')}`,
        label: 'unknown key',
      });
      if (badKey.status === 401)
        expectError(ctx, badKey, { status: 401, code: ['UNAUTHORIZED', 'INVALID_KEY'] }, 'B-ERR-001', 'POST /rfq with an unknown key');
    },
  }),

  check({
    id: 'errors.observed-traffic',
    title: 'Every error the run provoked was in its route format with a closed-list type, and nothing answered 500',
    requirements: ['A-ERR-001', 'A-ERR-002', 'A-ERR-003', 'B-ERR-001', 'X-ERR-001'],
    profiles: BOTH,
    tags: ['platform', 'errors', 'observer'],
    phase: PHASE.observers,
    async run(ctx: CheckContext) {
      const errors = ctx.state.observed.filter((o) => o.status >= 400 && o.path.startsWith('/api/v1'));
      const problems: string[] = [];
      for (const seen of errors) {
        const format = routeFormat(seen.method, seen.path);
        const found = format === 'A' ? formatAProblems(seen.status, seen.json) : formatBProblems(seen.status, seen.json).format;
        if (found.length > 0) problems.push(`${seen.method} ${seen.path} → ${seen.status} (${seen.check}): ${found[0]}`);
      }
      const internal = ctx.state.observed.filter((o) => o.status === 500);
      ctx.note(`${ctx.state.observed.length} responses observed, ${errors.length} errors`);
      const aProblems = problems.filter((p) => !/not uppercase|Format B/.test(p));
      ctx.expect(
        ctx.profile === 'A' ? 'A-ERR-001' : 'B-ERR-001',
        problems.length === 0,
        `${problems.length} error answers out of format: ${problems.slice(0, 4).join(' | ')}`,
      );
      if (ctx.profile === 'A')
        ctx.expect(
          'A-ERR-002',
          aProblems.every((p) => !/closed list|table pairs/.test(p)),
          'error types do not match their status',
        );
      ctx.expect(
        'X-ERR-001',
        internal.length === 0,
        `${internal.length} requests answered 500: ${internal
          .slice(0, 3)
          .map((o) => `${o.method} ${o.path} (${o.check})`)
          .join(', ')}`,
      );
    },
  }),
];
