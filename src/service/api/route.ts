import type { IncomingHttpHeaders } from 'node:http';
import type { z } from 'zod';
import type { AuthContext } from '../api/auth-context.js';
import type { ErrorFormat } from '../errors/error-format.js';
import type { ResponseSpec, Security } from './openapi.js';

/**
 * How a domain declares its HTTP routes without knowing express: the route table (`RouteTable`) and the shape of
 * one route. `http/api-router.ts` implements the table on express; domain `routes.ts` files only see these types.
 */

type Infer<S> = S extends z.ZodType ? z.output<S> : undefined;

/** The parts of the HTTP request a handler may read (express's Request has them all). */
export interface RouteRequest {
  readonly headers: IncomingHttpHeaders;
  /** `req_…`, also in the `Request-Id` response header and in error bodies. */
  readonly requestId: string;
  get(name: string): string | undefined;
  readonly socket: { readonly remoteAddress?: string | undefined };
}

export interface RouteInput<Body, Query, Params> {
  body: Body;
  query: Query;
  params: Params;
  auth: AuthContext | undefined;
  req: RouteRequest;
}

/** What a handler returns; the router checks `body` against the declared schema of `status`. */
export interface RouteResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface RouteDefinition<B extends z.ZodType | undefined, Q extends z.ZodObject | undefined, P extends z.ZodObject | undefined> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Path relative to the table's base, with `:name` parameters, e.g. `/orders/:orderId`. */
  path: string;
  /** Unique, camelCase: names the operation and its schemas in the OpenAPI document. */
  operationId: string;
  summary: string;
  description?: string;
  tags?: string[];
  /** `public`, `optional` (a present credential must be valid), `required`, `apiKey` or `jwt` only. */
  auth: Security;
  /** JWT sessions that still owe an MFA code may call this route. */
  allowMfaPending?: boolean;
  body?: B;
  /** A request body that works against this deployment as it starts (built from its corridors, say). */
  bodyExample?: unknown;
  query?: Q;
  params?: P;
  responses: Record<number, ResponseSpec>;
  /** Honour `Idempotency-Key`; default true for POST (every creating POST), false otherwise. */
  idempotent?: boolean;
  /**
   * `false`: served but described by another operation of the same path (one path, one entry in the document);
   * that operation's description states which requests this route answers.
   */
  documented?: boolean;
  /** Returns the response. Errors thrown here (ApiError subclasses) render in the route's error format. */
  handler(input: RouteInput<Infer<B>, Infer<Q>, Infer<P>>): RouteResult | Promise<RouteResult>;
}

/** A documented set of routes mounted at `base`; every route lands in the OpenAPI document. */
export interface RouteTable {
  readonly base: string;
  readonly errorFormat: ErrorFormat;
  route<
    B extends z.ZodType | undefined = undefined,
    Q extends z.ZodObject | undefined = undefined,
    P extends z.ZodObject | undefined = undefined,
  >(definition: RouteDefinition<B, Q, P>): this;
}
