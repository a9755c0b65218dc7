import type { ErrorRequestHandler, NextFunction, Request, Response } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ApiError, formatBCode, InternalError, InvalidRequestError, MaintenanceError, NotFoundError } from '../errors/api-errors.js';

import type { ErrorFormat } from '../errors/error-format.js';

export type { ErrorFormat } from '../errors/error-format.js';

/**
 * Which routes answer errors in Format B (Reference B). Known before routing, so that errors raised
 * ahead of the route (rate limit, malformed JSON, bad credentials) already use the route's format.
 */
export class ErrorFormatRoutes {
  private readonly routes: Array<{ method: string; path: string; pattern: RegExp; rank: string; format: ErrorFormat }> = [];

  /** `path` in express form, e.g. `/api/v1/settlements/:id`. Every declared route is kept: it also answers 405s. */
  add(method: string, path: string, format: ErrorFormat): void {
    const segments = path.split('/');
    const pattern = segments
      // A parameter may follow literal text inside a segment (`rfq_:rfqId`): escape the text, match the parameter.
      .map((segment) =>
        segment
          .split(/(:[A-Za-z_][A-Za-z0-9_]*)/)
          .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
          .join(''),
      )
      .join('/');
    // Segment by segment, literal (2) before partly literal (1) before a bare parameter (0).
    const rank = segments.map((segment) => (!segment.includes(':') ? '2' : segment.startsWith(':') ? '0' : '1')).join('');
    this.routes.push({ method: method.toUpperCase(), path, pattern: new RegExp(`^${pattern}/?$`), rank, format });
  }

  /**
   * The routes that own a request path: of the templates matching it, the most specific (OpenAPI's rule: a
   * concrete path is matched before a templated one), so `/auth/sessions/revoke-others` belongs to that route
   * alone, not also to `/auth/sessions/:sessionId`.
   */
  private owners(path: string) {
    const matching = this.routes.filter((route) => route.pattern.test(path));
    const best = matching
      .map((route) => route.rank)
      .sort()
      .at(-1);
    return matching.filter((route) => route.rank === best);
  }

  /** False when a more specific template owns `path`: the route declared as `template` must let it pass. */
  owns(template: string, path: string): boolean {
    return this.owners(path).some((route) => route.path === template);
  }

  formatFor(method: string, path: string): ErrorFormat {
    // A method the path does not support has no route, so no Format B: its 405 (like a 404) is Format A.
    return this.owners(path).some((route) => route.format === 'B' && route.method === method) ? 'B' : 'A';
  }

  /** The methods a path supports (HEAD with GET, and OPTIONS), for `Allow`; empty when no route has the path. */
  allowedMethods(path: string): string[] {
    const methods = new Set(this.owners(path).map((route) => route.method));
    if (methods.size === 0) return [];
    if (methods.has('GET')) methods.add('HEAD');
    methods.add('OPTIONS');
    return [...methods].sort();
  }

  /** Early middleware: records the format of the route this request is heading to. */
  middleware() {
    return (req: Request, res: Response, next: NextFunction): void => {
      res.locals.errorFormat = this.formatFor(req.method, req.path);
      next();
    };
  }
}

interface HttpLikeError {
  status?: unknown;
  statusCode?: unknown;
  type?: unknown;
  expose?: unknown;
  message?: unknown;
}

const STORE_DOWN_CODES = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_IOERR', 'SQLITE_FULL', 'SQLITE_CANTOPEN', 'SQLITE_READONLY']);

/** The store is closed, locked or failing on disk: a 503 the client may retry, not a bug. */
function isStoreUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof TypeError && /database connection is not open/.test(error.message)) return true;
  const code = (error as { code?: unknown }).code;
  // Postgres: connection exceptions (08), insufficient resources (53), operator intervention (57: shutdown, timeout).
  if (error.name === 'PostgresError') return typeof code === 'string' && /^(08|53|57)/.test(code);
  return error.name === 'SqliteError' && typeof code === 'string' && [...STORE_DOWN_CODES].some((c) => code.startsWith(c));
}

/** Errors of body-parser, the router and node itself, mapped onto the typed errors. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const e = (typeof error === 'object' && error !== null ? error : {}) as HttpLikeError;
  const status = typeof e.status === 'number' ? e.status : typeof e.statusCode === 'number' ? e.statusCode : undefined;
  switch (e.type) {
    case 'entity.parse.failed':
      return new InvalidRequestError({ code: 'invalid_json', param: 'body', message: 'The request body is not valid JSON.' });
    case 'entity.too.large':
      return new InvalidRequestError({
        code: 'body_too_large',
        param: 'body',
        status: 413,
        message: 'The request body is larger than this endpoint accepts.',
      });
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new InvalidRequestError({
        code: 'invalid_content_type',
        param: 'Content-Type',
        message: 'The body must be UTF-8 JSON (Content-Type: application/json).',
      });
    case 'request.size.invalid':
    case 'request.aborted':
      return new InvalidRequestError({ code: 'invalid_json', param: 'body', message: 'The request body was incomplete.' });
    default:
      break;
  }
  if (isStoreUnavailable(error)) {
    return new MaintenanceError({ code: 'store_unavailable', message: 'The database is unavailable; retry shortly.', cause: error });
  }
  if (error instanceof URIError) {
    return new InvalidRequestError({ code: 'parameter_invalid', param: 'path', message: 'The URL is not validly percent-encoded.' });
  }
  if (status !== undefined && status >= 400 && status < 500) {
    return new InvalidRequestError({
      code: 'parameter_invalid',
      message: e.expose === true && typeof e.message === 'string' ? e.message : 'The request is malformed.',
    });
  }
  return new InternalError({ cause: error });
}

function docBase(req: Request): string {
  const configured = req.app.locals.publicUrl as string | undefined;
  return configured ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}

export function errorBody(error: ApiError, format: ErrorFormat, docUrlBase: string): unknown {
  if (format === 'B') return { error: { code: formatBCode(error), message: error.message } };
  return {
    error: {
      type: error.type,
      code: error.code,
      message: error.message,
      ...(error.param === undefined ? {} : { param: error.param }),
      doc_url: `${docUrlBase}/docs/errors#${error.code}`,
    },
  };
}

/** The last middleware: every error leaves as a typed 4xx/5xx in the route's format. */
export function errorHandler(): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    const apiError = toApiError(error);
    // A sandbox fault switch's deliberate answer (marked `fault` where it fires) is expected: a warning, not an error.
    const fault = (error as { fault?: unknown } | undefined)?.fault;
    if (typeof fault === 'object' && fault !== null) {
      req.log?.warn({ fault, code: apiError.code, status: apiError.status }, 'fault fired');
      // The access line (request-context.ts) says the same: a deliberate 503 is no failed request.
      res.locals.fault = fault;
    } else if (error instanceof ApiError && apiError.status >= 500 && apiError.status !== 500) {
      // A 502/503/504 the service chose to answer (a chain that did not confirm yet, maintenance, an upstream that
      // timed out) is a handled, documented condition the caller retries: a warning. "unhandled error" (and the
      // access line's "request failed") stay for the 500s nobody planned, which a log full of these would hide.
      req.log?.warn(
        { code: apiError.code, status: apiError.status, message: apiError.message },
        'service unavailable, answered with a retry',
      );
      res.locals.unavailable = true;
    } else if (apiError.status >= 500) req.log?.error({ err: error }, 'unhandled error');
    else req.log?.debug({ code: apiError.code, param: apiError.param }, 'request rejected');
    if (res.headersSent) {
      next(error);
      return;
    }
    const format: ErrorFormat = res.locals.errorFormat === 'B' ? 'B' : 'A';
    // Nothing was changed (a marked error, or the store refused before any write): a retry may run again.
    if ((error as { nothingDone?: boolean } | undefined)?.nothingDone === true || isStoreUnavailable(error))
      res.locals.idempotencyNothingDone = true;
    res.status(apiError.status);
    for (const [name, value] of Object.entries(apiError.headers)) res.setHeader(name, value);
    res.json(errorBody(apiError, format, docBase(req)));
  };
}

/**
 * Unknown routes: a 404 in format, never express's HTML page. A path that exists but not for this method answers
 * 405 with `Allow` listing the methods it supports (the list OPTIONS reports too).
 */
export function notFoundHandler(routes?: ErrorFormatRoutes) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const allowed = routes?.allowedMethods(req.path) ?? [];
    if (allowed.length > 0 && !allowed.includes(req.method)) {
      next(
        new InvalidRequestError({
          status: 405,
          code: 'method_not_allowed',
          message: `${req.method} is not supported on ${req.path}; it supports ${allowed.join(', ')}.`,
          headers: { Allow: allowed.join(', ') },
        }),
      );
      return;
    }
    next(
      new NotFoundError({
        code: 'route_not_found',
        message: `No endpoint ${req.method} ${req.path}.`,
      }),
    );
  };
}

/**
 * The callback express calls when its router gives up before any middleware ran — a request target it cannot
 * parse (`GET http://[`), where express would answer its own HTML page — or when an error escapes after the answer
 * started. Answers Format A (there is no route, so no Format B), or drops a half-sent answer.
 */
export function unroutedRequestHandler(req: IncomingMessage, res: ServerResponse): (error?: unknown) => void {
  return (error?: unknown) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const apiError =
      error === undefined
        ? new InvalidRequestError({ code: 'parameter_invalid', param: 'path', message: 'The request target is not a valid URL path.' })
        : toApiError(error);
    const body = JSON.stringify(errorBody(apiError, 'A', socketDocBase(req.socket)));
    res.writeHead(apiError.status, {
      ...apiError.headers,
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
    });
    res.end(body);
  };
}

/**
 * Where `doc_url` points for answers written straight onto a socket (broken HTTP, refused WebSocket handshakes),
 * where no express request exists: the service's public URL (app.locals of the server's request listener), else
 * the address the client reached.
 */
export function socketDocBase(socket: Duplex): string {
  const server = (socket as Duplex & { server?: { listeners?: (event: string) => unknown[] } }).server;
  const app = server?.listeners?.('request')[0] as { locals?: { publicUrl?: unknown } } | undefined;
  if (typeof app?.locals?.publicUrl === 'string') return app.locals.publicUrl;
  const { localAddress, localPort } = socket as Duplex & { localAddress?: string; localPort?: number };
  if (localAddress === undefined || localPort === undefined) return 'http://localhost';
  const address = localAddress.startsWith('::ffff:') ? localAddress.slice('::ffff:'.length) : localAddress;
  return `http://${address.includes(':') ? `[${address}]` : address}:${localPort}`;
}

/** A complete HTTP/1.1 error response in Format A, for writing onto a raw socket (then closing it). */
export function rawErrorResponse(
  status: number,
  statusText: string,
  error: { type: string; code: string; message: string; param?: string },
  docBase: string,
): string {
  const body = JSON.stringify({ error: { ...error, doc_url: `${docBase}/docs/errors#${error.code}` } });
  return (
    `HTTP/1.1 ${status} ${statusText}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

/**
 * Requests node rejects before express sees them (oversized headers, broken HTTP) still get a typed
 * JSON answer instead of a bare status line.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable || (error as { code?: string }).code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  socket.end(
    rawErrorResponse(
      tooLarge ? 431 : 400,
      tooLarge ? 'Request Header Fields Too Large' : 'Bad Request',
      {
        type: 'invalid_request',
        code: tooLarge ? 'headers_too_large' : 'malformed_request',
        message: tooLarge ? 'The request headers are too large.' : 'The HTTP request is malformed.',
      },
      socketDocBase(socket),
    ),
  );
}
