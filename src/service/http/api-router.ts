import { Router, type RequestHandler } from 'express';
import type { z } from 'zod';
import type { RouteDefinition, RouteTable } from '../api/route.js';
import { optionalAuth, requireAuth } from './auth-middleware.js';
import type { ErrorFormat, ErrorFormatRoutes } from './error-handler.js';
import { InternalError } from '../errors/api-errors.js';
import type { OpenApiRegistry, Security } from '../api/openapi.js';
import { jsonBody, parseInput } from './validate.js';

type Infer<S> = S extends z.ZodType ? z.output<S> : undefined;

export type { RouteDefinition, RouteInput, RouteResult } from '../api/route.js';

export interface ApiRouterDeps {
  /** Mount path, e.g. `/api/v1`; prefixes the OpenAPI paths. */
  base: string;
  openapi: OpenApiRegistry;
  idempotency: RequestHandler;
  /** Where Format B routes are registered, so early errors on them render in B too. */
  formats: ErrorFormatRoutes;
  errorFormat?: ErrorFormat;
}

function guardFor(security: Security, allowMfaPending: boolean): RequestHandler[] {
  switch (security) {
    case 'public':
      return [];
    case 'optional':
      return [optionalAuth({ allowMfaPending })];
    case 'required':
      return [requireAuth({ allowMfaPending })];
    case 'apiKey':
      return [requireAuth({ kinds: ['apiKey'], allowMfaPending })];
    case 'jwt':
      return [requireAuth({ kinds: ['jwt'], allowMfaPending })];
  }
}

/**
 * An express Router whose routes are declared once, with zod schemas that validate the request, check
 * the response and document both in the OpenAPI document. Order per route: auth guard → body, query and
 * path validation → idempotency → handler.
 */
export class ApiRouter implements RouteTable {
  readonly router = Router({ mergeParams: true });
  readonly base: string;
  readonly errorFormat: ErrorFormat;

  constructor(private readonly deps: ApiRouterDeps) {
    this.base = deps.base;
    this.errorFormat = deps.errorFormat ?? 'A';
    // OPTIONS lists the methods of the route that owns the path (express would list those of every route whose
    // pattern matches, so `/solvers/register` would also advertise GET of `/solvers/:solverId`).
    this.router.use((req, res, next) => {
      if (req.method !== 'OPTIONS') return next();
      const allowed = deps.formats.allowedMethods(`${req.baseUrl}${req.path}`).filter((method) => method !== 'OPTIONS');
      if (allowed.length === 0) return next();
      res.setHeader('Allow', allowed.join(', '));
      res.status(200).type('text/plain').send(allowed.join(', '));
    });
  }

  route<
    B extends z.ZodType | undefined = undefined,
    Q extends z.ZodObject | undefined = undefined,
    P extends z.ZodObject | undefined = undefined,
  >(definition: RouteDefinition<B, Q, P>): this {
    const idempotent = definition.idempotent ?? definition.method === 'post';
    if (definition.documented !== false)
      this.deps.openapi.add({
        method: definition.method,
        path: `${this.base}${definition.path}`.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}'),
        operationId: definition.operationId,
        summary: definition.summary,
        description: definition.description,
        tags: definition.tags,
        security: definition.auth,
        body: definition.body,
        bodyExample: definition.bodyExample,
        query: definition.query,
        params: definition.params,
        responses: definition.responses,
        idempotent,
        errorFormat: this.errorFormat,
      });

    this.deps.formats.add(definition.method, `${this.base}${definition.path}`, this.errorFormat);
    const format: ErrorFormat = this.errorFormat;
    const markFormat: RequestHandler = (_req, res, next) => {
      res.locals.errorFormat = format;
      next();
    };

    // A query parameter the route does not name is refused (400 parameter_unknown naming it), as a body field is:
    // the document lists a route's parameters, and a misspelt filter silently ignored would answer the wrong page.
    const query = definition.query?.strict();
    const parse: RequestHandler = (req, res, next) => {
      res.locals.input = {
        body: definition.body === undefined ? undefined : parseInput(definition.body, jsonBody(req), 'body'),
        query: query === undefined ? undefined : parseInput(query, req.query, 'query'),
        params: definition.params === undefined ? undefined : parseInput(definition.params, req.params, 'params'),
      };
      next();
    };

    const handle: RequestHandler = async (req, res) => {
      const input = res.locals.input as { body: unknown; query: unknown; params: unknown };
      const result = await definition.handler({
        body: input.body as Infer<B>,
        query: input.query as Infer<Q>,
        params: input.params as Infer<P>,
        auth: req.auth,
        req,
      });
      if (result === undefined || res.headersSent) return;
      const declared = definition.responses[result.status];
      if (declared === undefined) {
        throw new InternalError({ cause: new Error(`${definition.operationId} answered undeclared status ${result.status}`) });
      }
      let body = result.body;
      if (declared.schema !== undefined) {
        const checked = declared.schema.safeParse(result.body);
        if (!checked.success) {
          throw new InternalError({
            cause: new Error(`${definition.operationId} ${result.status} response breaks its schema: ${checked.error.message}`),
          });
        }
        body = checked.data;
      }
      for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
      res.status(result.status).json(body);
    };

    // A templated route lets a path pass that a more specific route owns (`DELETE /auth/sessions/revoke-others` is
    // not `DELETE /auth/sessions/:sessionId`): it then answers 405 with that route's methods, or runs it.
    const template = `${this.base}${definition.path}`;
    const ownPath: RequestHandler = (req, _res, next) => {
      next(this.deps.formats.owns(template, `${req.baseUrl}${req.path}`) ? undefined : 'route');
    };

    const chain: RequestHandler[] = [
      ...(definition.path.includes(':') ? [ownPath] : []),
      markFormat,
      ...guardFor(definition.auth, definition.allowMfaPending ?? false),
      parse,
      ...(idempotent ? [this.deps.idempotency] : []),
      handle,
    ];
    this.router[definition.method](definition.path, ...chain);
    return this;
  }
}
