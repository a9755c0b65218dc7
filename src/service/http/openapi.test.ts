import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validateJson } from '../../../test/support/service/json-schema.js';
import { sampleChains, startTestService, type ApiResponse, type TestService } from '../../../test/support/service/service.js';
import { widgetsModule } from '../../../test/support/service/widgets.js';

/** The OpenAPI 3.1 object model, as far as this document uses it (strict where the spec fixes the keys). */
const Reference = z.strictObject({ $ref: z.string().startsWith('#/') });
const MediaType = z.strictObject({ schema: z.union([Reference, z.record(z.string(), z.unknown())]), example: z.unknown().optional() });
const Parameter = z.strictObject({
  name: z.string().min(1),
  in: z.enum(['query', 'header', 'path', 'cookie']),
  description: z.string().optional(),
  required: z.boolean(),
  schema: z.record(z.string(), z.unknown()),
});
const Link = z.strictObject({
  operationId: z.string(),
  parameters: z.record(z.string(), z.string().regex(/^\$(response\.body#\/|request\.path\.)/)),
  description: z.string().optional(),
});
const ResponseObject = z.strictObject({
  description: z.string(),
  content: z.record(z.string(), MediaType).optional(),
  links: z.record(z.string().regex(/^[A-Za-z][A-Za-z0-9]*$/), Link).optional(),
});
const Operation = z.strictObject({
  operationId: z.string().regex(/^[A-Za-z][A-Za-z0-9]*$/),
  summary: z.string().min(1),
  description: z.string().optional(),
  tags: z.array(z.string()).optional(),
  security: z.array(z.record(z.string(), z.array(z.string()))),
  parameters: z.array(Parameter).optional(),
  requestBody: z.strictObject({ required: z.boolean(), content: z.record(z.string(), MediaType) }).optional(),
  responses: z.record(z.string().regex(/^([1-5]\d\d|[1-5]XX|default)$/), ResponseObject),
});
const PathItem = z.strictObject({
  get: Operation.optional(),
  post: Operation.optional(),
  put: Operation.optional(),
  patch: Operation.optional(),
  delete: Operation.optional(),
});
const OpenApiDocument = z.strictObject({
  openapi: z.string().regex(/^3\.1\.\d+$/),
  jsonSchemaDialect: z.string().url(),
  info: z.strictObject({ title: z.string(), version: z.string(), description: z.string().optional() }),
  servers: z.array(z.strictObject({ url: z.string().url() })).optional(),
  paths: z.record(z.string().regex(/^\//), PathItem),
  components: z.strictObject({
    schemas: z.record(z.string().regex(/^[A-Za-z0-9._-]+$/), z.record(z.string(), z.unknown())),
    securitySchemes: z.record(
      z.string(),
      z.strictObject({
        type: z.literal('http'),
        scheme: z.literal('bearer'),
        bearerFormat: z.string().optional(),
        description: z.string(),
      }),
    ),
  }),
});
type Doc = z.infer<typeof OpenApiDocument>;

function collectRefs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const child of node) collectRefs(child, out);
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') out.push(value);
      else collectRefs(value, out);
    }
  }
  return out;
}

let t: TestService;
let doc: Doc;

beforeAll(async () => {
  t = await startTestService({ chains: sampleChains(), modules: [widgetsModule()] });
  const response = await t.request('GET', '/api/v1/openapi.json', { key: null });
  expect(response.status).toBe(200);
  doc = OpenApiDocument.parse(response.body);
});
afterAll(() => t.stop());

function resolveRef(ref: string): Record<string, unknown> {
  const id = ref.replace('#/components/schemas/', '');
  const schema = doc.components.schemas[id];
  if (schema === undefined) throw new Error(`unresolved ${ref}`);
  return schema;
}

/** Holds a live response against what the document says that operation answers. */
function conforms(method: string, path: string, response: ApiResponse): void {
  const operation = doc.paths[path]?.[method as 'get'];
  if (operation === undefined) throw new Error(`${method} ${path} is not documented`);
  const documented = operation.responses[String(response.status)] ?? operation.responses.default;
  expect(documented, `${method} ${path} ${response.status} documented`).toBeDefined();
  const schema = documented!.content?.['application/json']?.schema;
  if (schema === undefined) return;
  const errors = validateJson(response.body, schema as Record<string, unknown>, resolveRef);
  expect(errors, `${method} ${path} ${response.status}`).toEqual([]);
}

describe('OpenAPI document', () => {
  it('servers + path is the route: a client generated from the document reaches every path once under /api/v1', async () => {
    const server = doc.servers?.[0]?.url;
    expect(server).toBe(t.url);
    for (const path of Object.keys(doc.paths)) {
      // OpenAPI joins the server URL and the path as written.
      const target = new URL(`${server}${path}`);
      // Reference A serves its webhook routes under /v1 too (the spec lists both).
      expect(target.pathname.startsWith('/api/v1/') || target.pathname.startsWith('/v1/'), path).toBe(true);
      expect(target.pathname.includes('/api/v1/api/v1'), path).toBe(false);
    }
    const health = Object.keys(doc.paths).find((path) => path.endsWith('/health'));
    expect(health).toBe('/api/v1/health');
    // The health route itself answers (503 here: the sample chains of this test service do not run).
    const answer = await fetch(`${server}${health}`);
    expect([200, 503]).toContain(answer.status);
    const body = (await answer.json()) as { error?: { code?: string } };
    expect(body.error?.code).not.toBe('route_not_found');
    conforms('get', health!, { status: answer.status, body } as ApiResponse);
  });

  it('is a structurally valid OpenAPI 3.1 document whose $refs all resolve', () => {
    for (const ref of collectRefs(doc)) expect(() => resolveRef(ref)).not.toThrow();
    const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op!.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    for (const [path, item] of Object.entries(doc.paths)) {
      const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const operation of Object.values(item)) {
        const declared = (operation!.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
        expect(declared.sort()).toEqual(templated.sort());
      }
    }
    for (const ref of collectRefs(doc.components.securitySchemes)) expect(ref).toBeUndefined();
  });

  it('documents every platform route, with security and idempotency where they apply', () => {
    const routes = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(routes).toEqual(
      expect.arrayContaining([
        'GET /api/v1/health',
        'GET /api/v1/openapi.json',
        'GET /api/v1/corridors',
        'POST /api/v1/auth/challenge',
        'POST /api/v1/auth/verify',
        'GET /api/v1/auth/me',
        'GET /api/v1/auth/sessions',
        'POST /api/v1/auth/mfa/totp/enroll',
        'POST /api/v1/auth/mfa/totp/verify',
        'POST /api/v1/auth/mfa/recovery/generate',
        'POST /api/v1/auth/mfa/recovery/verify',
        'GET /api/v1/sandbox/keys',
        'POST /api/v1/sandbox/keys',
        'POST /api/v1/sandbox/keys/rotate',
        'GET /api/v1/sandbox/clock',
        'POST /api/v1/sandbox/clock/advance',
        'POST /api/v1/test/widgets',
        'GET /api/v1/test/widgets',
      ]),
    );
    expect(doc.paths['/api/v1/auth/me']!.get!.security).toEqual([{ sessionToken: [] }]);
    expect(doc.paths['/api/v1/health']!.get!.security).toEqual([]);
    const createWidget = doc.paths['/api/v1/test/widgets']!.post!;
    expect(createWidget.parameters?.map((p) => p.name)).toContain('Idempotency-Key');
    const listWidgets = doc.paths['/api/v1/test/widgets']!.get!;
    expect(listWidgets.parameters?.map((p) => [p.name, p.in, p.required])).toEqual([
      ['limit', 'query', false],
      ['after', 'query', false],
      ['before', 'query', false],
    ]);
  });

  it('request schemas come from the validating zod schemas (required fields, no extra properties)', () => {
    const challenge = resolveRef(
      doc.paths['/api/v1/auth/challenge']!.post!.requestBody!.content['application/json']!.schema.$ref as string,
    );
    expect(challenge).toMatchObject({ type: 'object', required: ['address'], additionalProperties: false });
    const errors = validateJson({ address: '0x12' }, challenge, resolveRef);
    expect(errors.join()).toMatch(/address/);
  });

  it('live responses conform to the document', async () => {
    const anon = { key: null } as const;
    conforms('get', '/api/v1/health', await t.request('GET', '/api/v1/health', anon));
    conforms('get', '/api/v1/corridors', await t.request('GET', '/api/v1/corridors', anon));
    conforms('get', '/api/v1/sandbox/clock', await t.request('GET', '/api/v1/sandbox/clock', anon));
    conforms(
      'post',
      '/api/v1/sandbox/clock/advance',
      await t.request('POST', '/api/v1/sandbox/clock/advance', { body: { duration: '1m' } }),
    );
    conforms('get', '/api/v1/sandbox/keys', await t.request('GET', '/api/v1/sandbox/keys'));
    conforms('post', '/api/v1/sandbox/keys', await t.request('POST', '/api/v1/sandbox/keys'));
    conforms('post', '/api/v1/test/widgets', await t.request('POST', '/api/v1/test/widgets', { body: { name: 'doc' } }));
    conforms('get', '/api/v1/test/widgets', await t.request('GET', '/api/v1/test/widgets?limit=1'));
    conforms('post', '/api/v1/test/widgets', await t.request('POST', '/api/v1/test/widgets', { body: { name: 42 } }));
    conforms('get', '/api/v1/auth/me', await t.request('GET', '/api/v1/auth/me'));

    const account = privateKeyToAccount(generatePrivateKey());
    const challenge = await t.request('POST', '/api/v1/auth/challenge', { ...anon, body: { address: account.address } });
    conforms('post', '/api/v1/auth/challenge', challenge);
    const message = challenge.body.message as string;
    const verified = await t.request('POST', '/api/v1/auth/verify', {
      ...anon,
      body: { message, signature: await account.signMessage({ message }) },
    });
    conforms('post', '/api/v1/auth/verify', verified);
    const jwt = { key: verified.body.token as string };
    conforms('get', '/api/v1/auth/me', await t.request('GET', '/api/v1/auth/me', jwt));
    conforms('get', '/api/v1/auth/sessions', await t.request('GET', '/api/v1/auth/sessions', jwt));
    conforms('post', '/api/v1/auth/mfa/totp/enroll', await t.request('POST', '/api/v1/auth/mfa/totp/enroll', jwt));
  });
});
