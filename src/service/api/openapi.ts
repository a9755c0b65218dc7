import { z } from 'zod';

export type Security = 'public' | 'optional' | 'required' | 'apiKey' | 'jwt';

/** An OpenAPI link: how a client passes a value of this response to another operation (its id, say). */
export interface LinkSpec {
  operationId: string;
  /** Target parameter → runtime expression, e.g. `{ orderId: '$response.body#/orderId' }`. */
  parameters: Record<string, string>;
  description?: string;
}

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /** Operations that take what this response returns (OpenAPI `links`). */
  links?: Record<string, LinkSpec>;
}

export interface OperationSpec {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Full path in OpenAPI form, e.g. `/api/v1/quotes/{quoteId}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string | undefined;
  tags?: string[] | undefined;
  security: Security;
  body?: z.ZodType | undefined;
  /** Emitted as the request body's `example`. */
  bodyExample?: unknown;
  query?: z.ZodObject | undefined;
  params?: z.ZodObject | undefined;
  responses: Record<number, ResponseSpec>;
  idempotent: boolean;
  errorFormat: 'A' | 'B';
}

/**
 * What the service reads as an Idempotency-Key, exactly: printable ASCII, 1 to 255 characters. Not starting or ending
 * with a space: HTTP strips whitespace at both ends of a header value (RFC 9110 §5.5), so such a key never arrives as
 * sent. `http/idempotency.ts` refuses everything else with 400 idempotency_key_invalid.
 */
export const IDEMPOTENCY_KEY_PATTERN = '^[!-~]([ -~]{0,253}[!-~])?$';

type SchemaMeta = { id: string; description?: string };

export const ErrorA = z
  .object({
    error: z.object({
      type: z.enum([
        'invalid_request',
        'authentication_error',
        'compliance_error',
        'not_found',
        'conflict',
        'validation_error',
        'rate_limit_error',
        'api_error',
        'maintenance',
      ]),
      code: z.string(),
      message: z.string(),
      param: z.string().optional(),
      doc_url: z.string(),
    }),
  })
  .meta({ description: 'Format A error (Reference A routes).' });

export const ErrorB = z
  .object({ error: z.object({ code: z.string(), message: z.string() }) })
  .meta({ description: 'Format B error (Reference B routes).' });

const JSON_SCHEMA_OPTIONS = { target: 'draft-2020-12', unrepresentable: 'any' } as const;

/** Drops the per-schema `$schema`/`$id` that zod emits; OpenAPI 3.1 sets the dialect once. */
function clean(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return rest;
}

/**
 * Collects operations as routes are declared and builds the OpenAPI 3.1 document from the same zod
 * schemas that validate requests and responses. Shared shapes become `components.schemas` entries.
 */
export class OpenApiRegistry {
  private readonly schemas = z.registry<SchemaMeta>();
  private readonly ids = new Map<string, z.ZodType>();
  private readonly inputIds = new Set<string>();
  private readonly _operations: OperationSpec[] = [];
  private cached: { key: string; document: Record<string, unknown> } | undefined;

  constructor() {
    this.schema('Error', ErrorA);
    this.schema('ErrorB', ErrorB);
  }

  /** Names a schema in `components.schemas`; returns it for chaining. Names are unique. */
  schema<S extends z.ZodType>(id: string, schema: S): S {
    if (this.schemas.has(schema)) return schema;
    if (this.ids.has(id)) throw new Error(`OpenAPI schema id "${id}" is already taken by another schema`);
    this.ids.set(id, schema);
    this.schemas.add(schema, { id });
    return schema;
  }

  add(operation: OperationSpec): void {
    const duplicate = this._operations.find(
      (op) => op.operationId === operation.operationId || (op.path === operation.path && op.method === operation.method),
    );
    if (duplicate !== undefined) {
      throw new Error(`OpenAPI: ${operation.method.toUpperCase()} ${operation.path} (${operation.operationId}) declared twice`);
    }
    if (operation.body !== undefined) {
      const id = this.schemas.get(operation.body)?.id ?? `${capitalise(operation.operationId)}Request`;
      this.schema(id, operation.body);
      this.inputIds.add(id);
    }
    for (const [status, response] of Object.entries(operation.responses)) {
      if (response.schema !== undefined) {
        this.schema(`${capitalise(operation.operationId)}${status}`, response.schema);
      }
    }
    this._operations.push(operation);
  }

  operations(): readonly OperationSpec[] {
    return this._operations;
  }

  /** Built once per set of operations (routes are declared before the server listens). */
  document(info: { title: string; version: string; description?: string }, serverUrl?: string): Record<string, unknown> {
    const key = `${this._operations.length}:${this.ids.size}:${serverUrl ?? ''}`;
    if (this.cached?.key !== key) this.cached = { key, document: this.build(info, serverUrl) };
    return this.cached.document;
  }

  private build(info: { title: string; version: string; description?: string }, serverUrl?: string): Record<string, unknown> {
    const uri = (id: string) => `#/components/schemas/${id}`;
    const output = z.toJSONSchema(this.schemas, { ...JSON_SCHEMA_OPTIONS, io: 'output', uri }).schemas;
    const input = z.toJSONSchema(this.schemas, { ...JSON_SCHEMA_OPTIONS, io: 'input', uri }).schemas;
    const components: Record<string, unknown> = {};
    for (const [id, schema] of Object.entries(output)) {
      components[id] = clean((this.inputIds.has(id) ? input[id] : schema) as Record<string, unknown>);
    }
    const ref = (schema: z.ZodType) => ({ $ref: uri(this.schemas.get(schema)!.id) });

    const paths: Record<string, Record<string, unknown>> = {};
    for (const op of this._operations) {
      const parameters = [
        ...parametersOf(op.params, 'path'),
        ...parametersOf(op.query, 'query'),
        ...(op.idempotent
          ? [
              {
                name: 'Idempotency-Key',
                in: 'header',
                required: false,
                description:
                  'Replays the first response for 24 h; 1 to 255 printable ASCII characters (spaces inside only: HTTP drops them at the ends).',
                schema: { type: 'string', minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY_PATTERN },
              },
            ]
          : []),
      ];
      const errorRef = { $ref: uri(op.errorFormat === 'B' ? 'ErrorB' : 'Error') };
      const responses: Record<string, unknown> = {};
      for (const [status, response] of Object.entries(op.responses)) {
        // An error status declared without a body schema answers the route's error format.
        const schema = response.schema !== undefined ? ref(response.schema) : Number(status) >= 400 ? errorRef : undefined;
        responses[status] = {
          description: response.description,
          ...(schema === undefined ? {} : { content: { 'application/json': { schema } } }),
          ...(response.links === undefined ? {} : { links: response.links }),
        };
      }
      const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: errorRef } } });
      responses['400'] ??= errorResponse('Malformed request or invalid parameter.');
      if (op.security !== 'public') responses['401'] ??= errorResponse('Missing, invalid or expired credential.');
      responses['429'] ??= errorResponse('Rate limit exceeded; honour Retry-After.');
      responses.default ??= errorResponse('Error.');
      paths[op.path] ??= {};
      paths[op.path]![op.method] = {
        operationId: op.operationId,
        summary: op.summary,
        ...(op.description === undefined ? {} : { description: op.description }),
        ...(op.tags === undefined ? {} : { tags: op.tags }),
        security: securityOf(op.security),
        ...(parameters.length === 0 ? {} : { parameters }),
        ...(op.body === undefined
          ? {}
          : {
              requestBody: {
                required: true,
                content: {
                  'application/json': { schema: ref(op.body), ...(op.bodyExample === undefined ? {} : { example: op.bodyExample }) },
                },
              },
            }),
        responses,
      };
    }
    return {
      openapi: '3.1.0',
      jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
      info,
      ...(serverUrl === undefined ? {} : { servers: [{ url: serverUrl }] }),
      paths,
      components: {
        schemas: components,
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'API key `svc_test_…` (sandbox) or `svc_live_…` (production).' },
          sessionToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Dashboard session from wallet sign-in.' },
        },
      },
    };
  }
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function securityOf(security: Security): Array<Record<string, string[]>> {
  switch (security) {
    case 'public':
      return [];
    case 'optional':
      return [{}, { apiKey: [] }];
    case 'apiKey':
      return [{ apiKey: [] }];
    case 'jwt':
      return [{ sessionToken: [] }];
    case 'required':
      return [{ apiKey: [] }, { sessionToken: [] }];
  }
}

function parametersOf(schema: z.ZodObject | undefined, location: 'path' | 'query'): unknown[] {
  if (schema === undefined) return [];
  return Object.entries(schema.shape).map(([name, field]) => {
    const fieldSchema = field as z.ZodType;
    const json = clean(z.toJSONSchema(fieldSchema, { ...JSON_SCHEMA_OPTIONS, io: 'input' }) as Record<string, unknown>);
    const { description, ...schemaWithoutDescription } = json;
    return {
      name,
      in: location,
      required: location === 'path' || !fieldSchema.safeParse(undefined).success,
      ...(typeof description === 'string' ? { description } : {}),
      schema: schemaWithoutDescription,
    };
  });
}
