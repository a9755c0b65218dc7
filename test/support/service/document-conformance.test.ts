import { describe, expect, it } from 'vitest';
import { DocumentConformance } from './document-conformance.js';

const document = {
  paths: {
    '/api/v1/things/{id}': {
      get: {
        responses: {
          200: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
          404: { content: { 'application/json': { schema: { type: 'object', required: ['error'] } } } },
        },
      },
    },
    '/api/v1/things/special': { get: { responses: { 200: { content: { 'application/json': { schema: { type: 'string' } } } } } } },
  },
  components: {
    schemas: { Thing: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false } },
  },
};

describe('DocumentConformance', () => {
  it('passes responses the document describes, and ignores paths it does not document', () => {
    const check = new DocumentConformance(document);
    check.check('GET', 'http://x/api/v1/things/t1', 200, { id: 't1' });
    check.check('GET', 'http://x/api/v1/things/t1', 404, { error: {} });
    check.check('GET', 'http://x/api/v1/things/special', 200, 'yes');
    check.check('GET', 'http://x/api/v1/elsewhere', 500, { anything: true });
    expect(check.violations).toEqual([]);
  });

  it('names an undocumented status and a body that breaks its schema', () => {
    const check = new DocumentConformance(document);
    check.check('GET', 'http://x/api/v1/things/t1', 409, {});
    check.check('GET', 'http://x/api/v1/things/t1', 200, { id: 1, extra: true });
    check.check('GET', 'http://x/api/v1/things/special', 200, { id: 't' });
    expect(check.violations).toHaveLength(4);
    expect(check.violations[0]).toMatch(/answered 409, which the document does not list/);
    expect(check.violations.join('\n')).toMatch(/things\/special 200/);
  });
});

describe('the JSON Schema checker behind it', () => {
  it('reads a tuple as prefixItems plus items: false (extra elements refused, described ones checked)', async () => {
    const { validateJson } = await import('./json-schema.js');
    const tuple = { type: 'array', prefixItems: [{ type: 'string' }, { type: 'string' }], items: false };
    const none = () => false as const;
    expect(validateJson([['a', 'b']], { type: 'array', items: tuple }, none)).toEqual([]);
    expect(validateJson(['a', 'b', 'c'], tuple, none)).toEqual(['$[2]: no value allowed']);
    expect(validateJson(['a', 1], tuple, none)).toHaveLength(1);
  });
});
