import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../../test/support/service/service.js';

/**
 * The served document against the OpenAPI 3.1 specification's own schema, checked by an outside validator (not our
 * zod model of the document): what a code generator or an OpenAPI-driven fuzzer reads first.
 */
let t: TestService;
let document: Record<string, unknown>;
beforeAll(async () => {
  t = await startTestService();
  document = (await t.request('GET', '/api/v1/openapi.json', { key: null })).body as Record<string, unknown>;
});
afterAll(() => t.stop());

describe('OpenAPI document against the OpenAPI 3.1 schema', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(validator.version).toBe('3.1');
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('the validator refuses a broken copy (no info, a response description that is not a string)', async () => {
    const broken = structuredClone(document) as {
      info?: unknown;
      paths: Record<string, Record<string, { responses: Record<string, { description: unknown }> }>>;
    };
    delete broken.info;
    broken.paths['/api/v1/health']!.get!.responses['200']!.description = 5;
    const result = await new Validator().validate(broken);
    expect(result.valid).toBe(false);
  });
});
