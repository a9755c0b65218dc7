import { BaseError } from '../../contracts/errors/base-error.js';
/**
 * Typed API errors. Domain modules throw these (they carry no express types); the error renderer turns
 * them into Format A (`{error: {type, code, message, param, doc_url}}`) or, on routes flagged as
 * Reference B, Format B (`{error: {code, message}}`).
 */

import { ERROR_TYPES, type ErrorType } from '../../contracts/errors/error-codes.js';

export { ERROR_TYPES, type ErrorType };

export interface ApiErrorOptions {
  /** Lowercase snake case, e.g. `amount_too_small`. */
  code: string;
  message: string;
  /** The offending parameter: a body path like `outputs.0.amount`, a query name, or a header name. */
  param?: string | undefined;
  /** Overrides the status implied by the type, e.g. 413 for an oversized body (type `invalid_request`). */
  status?: number;
  /** Extra response headers, e.g. `Retry-After`. */
  headers?: Record<string, string>;
  /** Format B code when it is not derived from the status (e.g. `QUOTE_EXPIRED`). */
  codeB?: string;
  cause?: unknown;
}

export class ApiError extends BaseError {
  override readonly name: string = 'ApiError';
  readonly type: ErrorType;
  readonly status: number;
  override readonly code: string;
  readonly param: string | undefined;
  readonly headers: Record<string, string>;
  readonly codeB: string | undefined;

  constructor(type: ErrorType, options: ApiErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.type = type;
    this.status = options.status ?? ERROR_TYPES[type];
    this.code = options.code;
    this.param = options.param;
    this.headers = options.headers ?? {};
    this.codeB = options.codeB;
  }
}

type Options = Omit<ApiErrorOptions, 'status'> & { status?: number };

/** 400: malformed request or missing/invalid parameter. */
export class InvalidRequestError extends ApiError {
  override readonly name = 'InvalidRequestError';
  constructor(options: Options) {
    super('invalid_request', options);
  }
}

/** 401: missing, invalid, expired or wrong-environment credentials. */
export class AuthenticationError extends ApiError {
  override readonly name = 'AuthenticationError';
  constructor(options: Options) {
    super('authentication_error', options);
  }
}

/** 403: the participant may not trade (or the attestation is stale). */
export class ComplianceError extends ApiError {
  override readonly name = 'ComplianceError';
  constructor(options: Options) {
    super('compliance_error', options);
  }
}

/** 404: unknown route or resource. */
export class NotFoundError extends ApiError {
  override readonly name = 'NotFoundError';
  constructor(options: Options) {
    super('not_found', options);
  }
}

/** 409: duplicate request, idempotency violation or a state that forbids the change. */
export class ConflictError extends ApiError {
  override readonly name = 'ConflictError';
  constructor(options: Options) {
    super('conflict', options);
  }
}

/** 422: well-formed input that breaks a business rule (e.g. `amount_too_small`). */
export class ValidationError extends ApiError {
  override readonly name = 'ValidationError';
  constructor(options: Options) {
    super('validation_error', options);
  }
}

/** 429: always carries `Retry-After` (whole seconds, at least 1). */
export class RateLimitError extends ApiError {
  override readonly name = 'RateLimitError';
  constructor(retryAfterSeconds: number, options?: Partial<Options>) {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
    super('rate_limit_error', {
      code: 'rate_limit_exceeded',
      message: `Too many requests; retry after ${seconds} s.`,
      ...options,
      headers: { 'Retry-After': String(seconds), ...options?.headers },
    });
  }
}

/** 500: a bug or an unexpected failure. Its message is generic on the wire; the cause goes to the log. */
export class InternalError extends ApiError {
  override readonly name = 'InternalError';
  constructor(options?: Partial<Options>) {
    super('api_error', {
      code: 'internal_error',
      message: 'An internal error occurred; retry with backoff.',
      ...options,
    });
  }
}

/** 503: the service or a dependency (a chain, the store) is unavailable. */
export class MaintenanceError extends ApiError {
  override readonly name = 'MaintenanceError';
  constructor(options: Options) {
    super('maintenance', options);
  }
}

/** Format B codes derived from the status when an error does not name its own. */
export function formatBCode(error: ApiError): string {
  if (error.codeB !== undefined) return error.codeB;
  switch (error.status) {
    case 400:
    case 413:
      return error.code === 'parameter_missing' ? 'MISSING_FIELD' : 'INVALID_REQUEST';
    case 401:
      return error.code === 'invalid_api_key' ? 'INVALID_KEY' : 'UNAUTHORIZED';
    case 403:
      return error.code === 'attestation_expired' ? 'ATTESTATION_EXPIRED' : 'COMPLIANCE_FAILED';
    case 404:
      return 'NOT_FOUND';
    case 409:
      return error.code.toUpperCase();
    case 422:
      return 'VALIDATION_ERROR';
    case 429:
      return 'RATE_LIMITED';
    case 503:
      return 'MAINTENANCE';
    default:
      return error.status >= 500 ? 'API_ERROR' : error.code.toUpperCase();
  }
}

/**
 * Marks an error raised before the request changed anything (the chain did not answer its pre-flight): its answer
 * is not kept for the Idempotency-Key, so a retry with the same key runs again instead of replaying the error.
 * Stripe keeps a result only once an endpoint has begun to change something; this is that rule.
 */
export function nothingDone<E extends Error>(error: E): E {
  return Object.assign(error, { nothingDone: true as const });
}
