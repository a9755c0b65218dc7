import type { z } from 'zod';
import { InvalidRequestError } from '../errors/api-errors.js';

/** Zod parsing of request input into typed values, or a 400 naming the offending parameter (express-free). */
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
    const key = issue.keys[0] ?? '';
    // `?=x` names no parameter: the query string itself is the offender.
    if (key === '' && issue.path.length === 0) {
      return new InvalidRequestError({ code: 'parameter_unknown', param: location, message: `A ${location} parameter without a name.` });
    }
    const param = paramName([...issue.path, key], location);
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
  // A required field left out, whatever its type (zod reports a missing enum as a bad value): missing, not invalid.
  if (
    (issue.code === 'invalid_type' || issue.code === 'invalid_value') &&
    issue.path.length > 0 &&
    valueAt(data, issue.path) === undefined
  ) {
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
