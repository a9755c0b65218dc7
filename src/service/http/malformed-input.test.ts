import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ValidationError } from '../errors/api-errors.js';
import type { ServiceModule } from '../module.js';
import { formatAError, startTestService, type TestService } from '../../../test/support/service/service.js';
import { Address, PositiveUintString } from '../api/wire.js';

const EchoRequest = z.strictObject({
  amount: PositiveUintString,
  chainId: z.number().int().positive(),
  outputs: z.array(z.strictObject({ token: Address, amount: PositiveUintString })).min(1),
  memo: z.string().max(20).optional(),
});

/** Routes used only by these tests: one Format A, one Format B, one that throws a business error. */
const echoModule: ServiceModule = {
  name: 'echo',
  setup(ctx) {
    ctx.routes().route({
      method: 'post',
      path: '/test/echo',
      operationId: 'testEcho',
      summary: 'echo',
      auth: 'public',
      idempotent: false,
      body: EchoRequest,
      responses: { 200: { description: 'echo', schema: EchoRequest } },
      handler: ({ body }) => {
        if (body.amount === '13') throw new ValidationError({ code: 'amount_too_small', param: 'amount', message: 'Too small.' });
        return { status: 200, body };
      },
    });
    ctx.routes({ errorFormat: 'B' }).route({
      method: 'post',
      path: '/test/echo-b',
      operationId: 'testEchoB',
      summary: 'echo (Reference B)',
      auth: 'required',
      idempotent: false,
      body: EchoRequest,
      responses: { 200: { description: 'echo', schema: EchoRequest } },
      handler: ({ body }) => ({ status: 200, body }),
    });
  },
};

const valid = {
  amount: '10000000000',
  chainId: 1,
  outputs: [{ token: '0x00000000000000000000000000000000000000c1', amount: '5' }],
};

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ modules: [echoModule], bodyLimitBytes: 4_096 });
});
afterAll(() => t.stop());

const post = (raw: string | Buffer, contentType = 'application/json') =>
  t.request('POST', '/api/v1/test/echo', { raw, headers: { 'Content-Type': contentType }, key: null });

describe('malformed bodies answer 4xx in Format A', () => {
  it('accepts the valid body (control)', async () => {
    const response = await post(JSON.stringify(valid));
    expect(response.status).toBe(200);
    expect(response.body).toEqual(valid);
  });

  it.each([
    ['truncated JSON', '{"amount": "1', 'invalid_json', 'body'],
    ['not JSON at all', 'amount=1', 'invalid_json', 'body'],
    ['trailing garbage', '{"amount":"1"} x', 'invalid_json', 'body'],
    ['single quotes', "{'amount':'1'}", 'invalid_json', 'body'],
    ['a bare string', '"hello"', 'invalid_json', 'body'],
    ['a bare number', '42', 'invalid_json', 'body'],
    ['null', 'null', 'invalid_json', 'body'],
    ['an array', '[1,2,3]', 'parameter_invalid', 'body'],
    ['an empty object', '{}', 'parameter_missing', 'amount'],
    ['amount as a number', JSON.stringify({ ...valid, amount: 10000000000 }), 'parameter_invalid', 'amount'],
    ['amount negative', JSON.stringify({ ...valid, amount: '-1' }), 'parameter_invalid', 'amount'],
    ['amount zero', JSON.stringify({ ...valid, amount: '0' }), 'parameter_invalid', 'amount'],
    ['amount with decimals', JSON.stringify({ ...valid, amount: '1.5' }), 'parameter_invalid', 'amount'],
    ['chainId as a string', JSON.stringify({ ...valid, chainId: '1' }), 'parameter_invalid', 'chainId'],
    ['chainId fractional', JSON.stringify({ ...valid, chainId: 1.5 }), 'parameter_invalid', 'chainId'],
    ['missing chainId', JSON.stringify({ amount: '1', outputs: valid.outputs }), 'parameter_missing', 'chainId'],
    ['outputs empty', JSON.stringify({ ...valid, outputs: [] }), 'parameter_invalid', 'outputs'],
    ['outputs an object', JSON.stringify({ ...valid, outputs: {} }), 'parameter_invalid', 'outputs'],
    ['nested bad address', JSON.stringify({ ...valid, outputs: [{ token: '0x12', amount: '1' }] }), 'parameter_invalid', 'outputs.0.token'],
    [
      'nested missing amount',
      JSON.stringify({ ...valid, outputs: [{ token: valid.outputs[0]!.token }] }),
      'parameter_missing',
      'outputs.0.amount',
    ],
    ['unknown field', JSON.stringify({ ...valid, surprise: true }), 'parameter_unknown', 'surprise'],
    ['nested unknown field', JSON.stringify({ ...valid, outputs: [{ ...valid.outputs[0], x: 1 }] }), 'parameter_unknown', 'outputs.0.x'],
    ['memo too long', JSON.stringify({ ...valid, memo: 'x'.repeat(21) }), 'parameter_invalid', 'memo'],
    ['memo null', JSON.stringify({ ...valid, memo: null }), 'parameter_invalid', 'memo'],
    ['__proto__ key', '{"__proto__": {"polluted": true}, "amount": "1"}', 'parameter_missing', 'chainId'],
  ])('%s → 400 %s naming %s', async (_name, raw, code, param) => {
    const response = await post(raw);
    expect(response.status).toBe(400);
    const error = formatAError(response);
    expect(error).toMatchObject({ type: 'invalid_request', code, param });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('an empty body with a JSON content type names the first missing field', async () => {
    const response = await post('');
    expect(response.status).toBe(400);
    expect(formatAError(response)).toMatchObject({ code: 'parameter_missing', param: 'amount' });
  });

  it('a non-JSON content type is a 400 naming Content-Type', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const response = await post(JSON.stringify(valid), type);
      expect(response.status).toBe(400);
      expect(formatAError(response)).toMatchObject({ code: 'invalid_content_type', param: 'Content-Type' });
    }
  });

  it('an unsupported charset is a 400', async () => {
    const response = await post(JSON.stringify(valid), 'application/json; charset=klingon');
    expect(response.status).toBe(400);
    expect(formatAError(response).code).toBe('invalid_content_type');
  });

  it('an oversized body is a 413 in format', async () => {
    const response = await post(JSON.stringify({ ...valid, memo: 'x'.repeat(5_000) }));
    expect(response.status).toBe(413);
    expect(formatAError(response)).toMatchObject({ type: 'invalid_request', code: 'body_too_large', param: 'body' });
  });

  it('a business rule failure is a 422 validation_error', async () => {
    const response = await post(JSON.stringify({ ...valid, amount: '13' }));
    expect(response.status).toBe(422);
    expect(formatAError(response)).toMatchObject({ type: 'validation_error', code: 'amount_too_small', param: 'amount' });
  });

  it('deeply nested JSON is rejected without a 500', async () => {
    const response = await post('['.repeat(2_000) + ']'.repeat(2_000));
    expect(response.status).toBe(400);
  });

  it('random bytes and random JSON never produce a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
          fc.json().map((text) => Buffer.from(text)),
          fc.jsonValue().map((value) => Buffer.from(JSON.stringify({ ...valid, memo: value }))),
          fc
            .record({ amount: fc.string(), chainId: fc.anything(), outputs: fc.anything() })
            .map((v) => Buffer.from(JSON.stringify(v) ?? '')),
        ),
        async (raw) => {
          const response = await post(raw);
          expect(response.status).toBeGreaterThanOrEqual(200);
          expect(response.status).toBeLessThan(500);
          if (response.status >= 400) formatAError(response);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('routing and transport errors', () => {
  it('unknown routes are a 404 in format, whatever the method', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/does-not-exist'],
      ['POST', '/api/v1/does-not-exist'],
      ['GET', '/not-a-page'],
      ['GET', '/api/v2/health'],
    ] as const) {
      const response = await t.request(method, path, { key: null });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(formatAError(response)).toMatchObject({ type: 'not_found', code: 'route_not_found' });
    }
    // A path that exists for another method is a 405 with Allow, not a 404.
    const wrongMethod = await t.request('DELETE', '/api/v1/corridors', { key: null });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(formatAError(wrongMethod)).toMatchObject({ type: 'invalid_request', code: 'method_not_allowed' });
  });

  it('a badly percent-encoded path is a 4xx in format', async () => {
    const response = await t.request('GET', '/api/v1/auth/sessions/%E0%A4%A', { key: null });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    formatAError(response);
  });

  it('every error carries a doc_url that resolves to the code on the docs page', async () => {
    const response = await post('{');
    const error = formatAError(response);
    const [page, anchor] = error.doc_url.split('#');
    const docs = await fetch(page!);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain(`id="${anchor}"`);
  });

  it('oversized headers get a JSON 431 from the transport layer', async () => {
    const port = new URL(t.url).port;
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(`GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
      });
      let data = '';
      socket.on('data', (chunk) => (data += chunk.toString()));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 431/);
    expect(answer).toContain('"code":"headers_too_large"');
  });

  it('a garbled request line gets a JSON 400', async () => {
    const port = new URL(t.url).port;
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      let data = '';
      socket.on('data', (chunk) => (data += chunk.toString()));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(answer).toContain('"type":"invalid_request"');
  });
});

describe('Format B routes', () => {
  it('render validation, auth and parse errors as {error: {code, message}}', async () => {
    const missing = await t.request('POST', '/api/v1/test/echo-b', { body: { chainId: 1 } });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: { code: 'MISSING_FIELD', message: expect.any(String) } });

    const wrongType = await t.request('POST', '/api/v1/test/echo-b', { body: { ...valid, chainId: 'x' } });
    expect(wrongType.body.error.code).toBe('INVALID_REQUEST');

    const unauthenticated = await t.request('POST', '/api/v1/test/echo-b', { body: valid, key: null });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.body).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String) } });

    const badKey = await t.request('POST', '/api/v1/test/echo-b', { body: valid, key: 'svc_live_0123456789abcdef_' + 'a'.repeat(64) });
    expect(badKey.body.error.code).toBe('INVALID_KEY');

    const malformed = await t.request('POST', '/api/v1/test/echo-b', { raw: '{', headers: { 'Content-Type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ error: { code: 'INVALID_REQUEST', message: expect.any(String) } });

    const ok = await t.request('POST', '/api/v1/test/echo-b', { body: valid });
    expect(ok.status).toBe(200);
  });
});
