import type { HttpEvidence } from '../core/types.js';
import { BaseError } from '../../src/contracts/errors/base-error.js';

/** What a check sees of one HTTP exchange. Header names are lowercase. */
export interface WireResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  json: unknown;
  ms: number;
  evidence: HttpEvidence;
}

export interface WireRequest {
  method: string;
  /** A path under the target (`/api/v1/health`) or an absolute URL. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** JSON-encoded with `Content-Type: application/json`. */
  body?: unknown;
  /** Sent byte for byte (malformed JSON, other content types); set the content type in `headers`. */
  raw?: string | Buffer;
  headers?: Record<string, string>;
  /** `Authorization: Bearer <auth>`. */
  auth?: string;
  label?: string;
  timeoutMs?: number;
}

/** Raised when the target does not answer at all (refused, reset, timed out). */
export class WireError extends BaseError {
  override readonly name = 'WireError';
  constructor(
    message: string,
    readonly evidence: HttpEvidence,
  ) {
    super(message);
  }
}

const EVIDENCE_BODY_LIMIT = 8_192;

export function clip(text: string, limit = EVIDENCE_BODY_LIMIT): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length - limit} more characters)`;
}

/** Keys and tokens never land in a report in full: enough stays to tell them apart. */
export function redactCredential(value: string): string {
  const match = /^(Bearer\s+)?(.*)$/i.exec(value);
  const prefix = match?.[1] ?? '';
  const secret = match?.[2] ?? value;
  if (secret.length <= 16) return `${prefix}${secret.slice(0, 4)}…`;
  return `${prefix}${secret.slice(0, 14)}…(${secret.length} chars)`;
}

function redactHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name] = /^(authorization|x-service-attestation)$/i.test(name) ? redactCredential(value) : value;
  }
  return out;
}

function joinUrl(base: string, path: string, query: WireRequest['query']): string {
  const url = /^https?:\/\//.test(path) ? new URL(path) : new URL(base.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`));
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  return url.toString();
}

/**
 * A small HTTP client that keeps every exchange as evidence. It is the certifier's own: it depends on
 * nothing of the service, so it judges any deployment the same way.
 */
export class HttpClient {
  readonly baseUrl: string;
  private readonly observers: Array<(response: WireResponse, request: WireRequest) => void> = [];

  constructor(baseUrl: string) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  /** Sees every response (the observer checks: rate-limit headers everywhere, every error in format). */
  observe(observer: (response: WireResponse, request: WireRequest) => void): void {
    this.observers.push(observer);
  }

  url(path: string, query?: WireRequest['query']): string {
    return joinUrl(this.baseUrl, path, query);
  }

  async request(spec: WireRequest): Promise<WireResponse> {
    const url = joinUrl(this.baseUrl, spec.path, spec.query);
    const headers: Record<string, string> = { Accept: 'application/json', ...spec.headers };
    let body: string | Buffer | undefined;
    if (spec.raw !== undefined) body = spec.raw;
    else if (spec.body !== undefined) {
      body = JSON.stringify(spec.body);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/json';
    }
    if (spec.auth !== undefined) headers.Authorization = `Bearer ${spec.auth}`;
    const started = performance.now();
    const evidence: HttpEvidence = {
      kind: 'http',
      ...(spec.label === undefined ? {} : { label: spec.label }),
      request: {
        method: spec.method.toUpperCase(),
        url,
        headers: redactHeaders(headers),
        ...(body === undefined ? {} : { body: clip(typeof body === 'string' ? body : body.toString('utf8')) }),
      },
      ms: 0,
    };
    let response: Response;
    try {
      response = await fetch(url, {
        method: spec.method.toUpperCase(),
        headers,
        ...(body === undefined ? {} : { body }),
        redirect: 'manual',
        signal: AbortSignal.timeout(spec.timeoutMs ?? 15_000),
      });
    } catch (error) {
      evidence.ms = Math.round(performance.now() - started);
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      evidence.error = `${(error as Error).message}${cause?.code ? ` (${cause.code})` : cause?.message ? ` (${cause.message})` : ''}`;
      throw new WireError(`${spec.method.toUpperCase()} ${url}: ${evidence.error}`, evidence);
    }
    const text = await response.text();
    const ms = Math.round(performance.now() - started);
    const responseHeaders: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      responseHeaders[name.toLowerCase()] = value;
    });
    let json: unknown;
    if (text.length > 0) {
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
    }
    evidence.ms = ms;
    evidence.response = { status: response.status, headers: responseHeaders, body: clip(text) };
    const result: WireResponse = { status: response.status, headers: responseHeaders, text, json, ms, evidence };
    for (const observer of this.observers) observer(result, spec);
    return result;
  }
}
