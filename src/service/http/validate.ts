import type { NextFunction, Request, Response } from 'express';
import type { z } from 'zod';
import { InvalidRequestError } from '../errors/api-errors.js';

export type InputLocation = 'body' | 'query' | 'params';

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let current = data;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function paramName(path: readonly PropertyKey[], location: InputLocation): string {
  if (path.length === 0) return location;
  return path.map(String).join('.');
}

/** Turns the first zod issue into a 400 naming the offending parameter (Stripe's `param`). */
export function issueToError(error: z.ZodError, data: unknown, location: InputLocation): InvalidRequestError {
  const issue = error.issues[0];
  if (issue === undefined) {
    return new InvalidRequestError({ code: 'parameter_invalid', param: location, message: 'The request is invalid.' });
  }
  if (issue.code === 'unrecognized_keys') {
    const param = paramName([...issue.path, issue.keys[0] ?? ''], location);
    return new InvalidRequestError({
      code: 'parameter_unknown',
      param,
      message: `Unknown parameter \`${param}\`.`,
    });
  }
  const param = paramName(issue.path, location);
  if (issue.path.length === 0 && location === 'body' && (data === null || typeof data !== 'object' || Array.isArray(data))) {
    return new InvalidRequestError({
      code: 'parameter_invalid',
      param: 'body',
      message: 'The request body must be a JSON object.',
    });
  }
  if (issue.code === 'invalid_type' && issue.path.length > 0 && valueAt(data, issue.path) === undefined) {
    return new InvalidRequestError({
      code: 'parameter_missing',
      param,
      message: `Missing required parameter \`${param}\`.`,
    });
  }
  return new InvalidRequestError({
    code: 'parameter_invalid',
    param,
    message: `Invalid \`${param}\`: ${issue.message}`,
  });
}

/** Parses `data` with `schema` or throws the 400 that names the first offending parameter. */
export function parseInput<S extends z.ZodType>(schema: S, data: unknown, location: InputLocation): z.output<S> {
  const result = schema.safeParse(data);
  if (!result.success) throw issueToError(result.error, data, location);
  return result.data;
}

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * The request body as JSON. A body that express did not parse (another Content-Type) is a 400, not
 * silently an empty object; no body at all is `{}`, so missing fields are named one by one.
 */
export function jsonBody(req: Request): unknown {
  if (req.body !== undefined) return req.body;
  if (hasBody(req)) {
    throw new InvalidRequestError({
      code: 'invalid_content_type',
      param: 'Content-Type',
      message: 'Send the body as JSON with `Content-Type: application/json`.',
    });
  }
  return {};
}

/** Middleware: validates the JSON body and replaces `req.body` with the parsed (typed, defaulted) value. */
export function validateBody<S extends z.ZodType>(schema: S) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    req.body = parseInput(schema, jsonBody(req), 'body');
    next();
  };
}

/** Middleware: validates `req.query` (strings, or arrays for repeated names) and replaces it. */
export function validateQuery<S extends z.ZodType>(schema: S) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const parsed = parseInput(schema, req.query, 'query');
    // express 5 defines `query` as a getter; shadow it on this request.
    Object.defineProperty(req, 'query', { value: parsed, writable: true, configurable: true, enumerable: true });
    next();
  };
}

export function validateParams<S extends z.ZodType>(schema: S) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    req.params = parseInput(schema, req.params, 'params') as Request['params'];
    next();
  };
}
