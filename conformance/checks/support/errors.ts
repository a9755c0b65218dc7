import type { CheckContext } from '../../core/context.js';
import type { WireResponse } from '../../wire/http.js';
import { isNonEmptyString, isObject } from './shape.js';

/** The closed list of Format A types with their status (interface.md, Errors / Format A). */
export const FORMAT_A_TYPES: Readonly<Record<string, number>> = {
  invalid_request: 400,
  authentication_error: 401,
  compliance_error: 403,
  not_found: 404,
  conflict: 409,
  validation_error: 422,
  rate_limit_error: 429,
  api_error: 500,
  maintenance: 503,
};

/** Format B codes by status (interface.md, Errors / Format B); 5xx share one row. */
export const FORMAT_B_CODES: Readonly<Record<string, readonly string[]>> = {
  '400': ['INVALID_REQUEST', 'MISSING_FIELD'],
  '401': ['UNAUTHORIZED', 'INVALID_KEY'],
  '403': ['COMPLIANCE_FAILED', 'ATTESTATION_EXPIRED'],
  '404': ['NOT_FOUND'],
  '409': ['QUOTE_EXPIRED', 'ALREADY_ACCEPTED'],
  '422': ['VALIDATION_ERROR'],
  '429': ['RATE_LIMITED'],
  '5xx': ['API_ERROR', 'MAINTENANCE'],
};

export type ErrorFormat = 'A' | 'B';

/** Reference B routes answer Format B; a shared path (`/quotes/{id}`) follows the id's prefix. */
export function routeFormat(method: string, path: string): ErrorFormat {
  const p = path.replace(/\/+$/, '');
  const m = method.toUpperCase();
  if (m === 'POST' && /^\/api\/v1\/(rfq|accept|solver\/register)$/.test(p)) return 'B';
  if (m === 'GET' && /^\/api\/v1\/(compliance\/status|settlements\/[^/]+|audit\/[^/]+)$/.test(p)) return 'B';
  if (m === 'GET' && /^\/api\/v1\/quotes\/rfq_[^/]+$/.test(p)) return 'B';
  return 'A';
}

/** Everything wrong with a Format A error body, judged against its status. */
export function formatAProblems(status: number, body: unknown): string[] {
  if (!isObject(body) || !isObject(body.error)) return [`the ${status} body is not {error: {...}}`];
  const error = body.error;
  const problems: string[] = [];
  if (!isNonEmptyString(error.type)) problems.push('error.type is missing');
  else if (!(error.type in FORMAT_A_TYPES)) problems.push(`error.type ${JSON.stringify(error.type)} is not in the closed list`);
  else {
    const expected = FORMAT_A_TYPES[error.type]!;
    const tableStatuses = Object.values(FORMAT_A_TYPES);
    if (tableStatuses.includes(status) && expected !== status)
      problems.push(`status ${status} carries type ${error.type} (the table pairs it with ${expected})`);
    if (!tableStatuses.includes(status) && Math.floor(expected / 100) !== Math.floor(status / 100)) {
      problems.push(`status ${status} carries type ${error.type} of another status class`);
    }
  }
  if (!isNonEmptyString(error.code)) problems.push('error.code is missing');
  else if (!/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/.test(error.code))
    problems.push(`error.code ${JSON.stringify(error.code)} is not lowercase snake case`);
  if (!isNonEmptyString(error.message)) problems.push('error.message is missing');
  if (!isNonEmptyString(error.doc_url)) problems.push('error.doc_url is missing');
  if ('param' in error && error.param !== null && typeof error.param !== 'string') problems.push('error.param is not a string');
  return problems;
}

export function formatBProblems(status: number, body: unknown): { format: string[]; registry: string[] } {
  if (!isObject(body) || !isObject(body.error)) return { format: [`the ${status} body is not {error: {...}}`], registry: [] };
  const error = body.error;
  const format: string[] = [];
  const registry: string[] = [];
  if (!isNonEmptyString(error.code)) format.push('error.code is missing');
  else if (!/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/.test(error.code)) format.push(`error.code ${JSON.stringify(error.code)} is not uppercase`);
  else {
    const row = FORMAT_B_CODES[status >= 500 ? '5xx' : String(status)];
    if (row && !row.includes(error.code)) registry.push(`status ${status} carries ${error.code}; the table lists ${row.join('/')}`);
  }
  if (!isNonEmptyString(error.message)) format.push('error.message is missing');
  return { format, registry };
}

export interface ExpectedError {
  /** Allowed statuses (any 4xx when omitted). */
  status?: number | readonly number[];
  type?: string;
  /** Format A code or Format B code. */
  code?: string | readonly string[];
  param?: string | readonly string[];
}

function list<T>(value: T | readonly T[] | undefined): readonly T[] | undefined {
  return value === undefined ? undefined : Array.isArray(value) ? (value as readonly T[]) : [value as T];
}

/**
 * Holds an error answer to the expected status/type/code/param under `requirementId`, and its body to the
 * route's format (A-ERR-* or B-ERR-*). Returns the parsed error object.
 */
export function expectError(
  ctx: CheckContext,
  response: WireResponse,
  expected: ExpectedError,
  requirementId: string,
  what: string,
): Record<string, unknown> | undefined {
  const path = new URL(response.evidence.request.url).pathname;
  const format = routeFormat(response.evidence.request.method, path);
  const statuses = list(expected.status);
  const statusOk = statuses ? statuses.includes(response.status) : response.status >= 400 && response.status < 500;
  ctx.expect(requirementId, statusOk, `${what}: answered ${response.status}, expected ${statuses ? statuses.join(' or ') : 'a 4xx'}`);
  ctx.expect(
    'X-ERR-001',
    response.status < 500 || (statuses?.includes(response.status) ?? false),
    `${what}: answered ${response.status} (a server error for bad input)`,
  );
  if (response.status < 400) return undefined;
  const body = response.json;
  if (format === 'A') {
    const problems = formatAProblems(response.status, body);
    ctx.expect('A-ERR-001', problems.length === 0, `${what}: not Format A: ${problems.join('; ')}`);
  } else {
    const problems = formatBProblems(response.status, body);
    ctx.expect('B-ERR-001', problems.format.length === 0, `${what}: not Format B: ${problems.format.join('; ')}`);
    ctx.expect('B-ERR-002', problems.registry.length === 0, `${what}: ${problems.registry.join('; ')}`);
  }
  const error = isObject(body) && isObject(body.error) ? body.error : undefined;
  if (error === undefined) return undefined;
  if (expected.type !== undefined && format === 'A') {
    ctx.expect(requirementId, error.type === expected.type, `${what}: error.type ${JSON.stringify(error.type)}, expected ${expected.type}`);
  }
  const codes = list(expected.code);
  if (codes !== undefined) {
    ctx.expect(
      requirementId,
      codes.includes(error.code as string),
      `${what}: error.code ${JSON.stringify(error.code)}, expected ${codes.join(' or ')}`,
    );
  }
  const params = list(expected.param);
  if (params !== undefined && format === 'A') {
    ctx.expect(
      format === 'A' ? 'A-ERR-004' : requirementId,
      typeof error.param === 'string' && params.some((p) => (error.param as string).toLowerCase() === p.toLowerCase()),
      `${what}: error.param ${JSON.stringify(error.param)}, expected ${params.join(' or ')}`,
    );
  }
  return error;
}
