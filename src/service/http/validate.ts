import type { NextFunction, Request, Response } from 'express';
import type { z } from 'zod';
import { parseInput } from '../api/parse-input.js';
import { InvalidRequestError } from '../errors/api-errors.js';

export { type InputLocation, issueToError, parseInput } from '../api/parse-input.js';

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
