import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { newId } from '../store/ids.js';

/**
 * Gives every request a `req_` id (echoed in `X-Request-Id`) and a child logger carrying it, and
 * writes one structured log line per response.
 */
export function requestContext(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const requestId = newId('req');
    const started = process.hrtime.bigint();
    req.requestId = requestId;
    req.log = logger.child({ requestId });
    res.setHeader('X-Request-Id', requestId);
    res.on('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      const fields = {
        method: req.method,
        path: req.originalUrl.split('?')[0],
        status: res.statusCode,
        durationMs: Math.round(durationMs * 10) / 10,
        keyId: req.auth?.keyId,
        workspaceId: req.auth?.workspaceId,
      };
      // A sandbox fault switch's deliberate answer (marked by the error handler) is a warning with its `fault`.
      if (res.locals.fault !== undefined) req.log.warn({ ...fields, fault: res.locals.fault }, 'request answered by a fault switch');
      else if (res.locals.unavailable === true) req.log.warn(fields, 'request answered unavailable');
      else if (res.statusCode >= 500) req.log.error(fields, 'request failed');
      else req.log.info(fields, 'request');
    });
    next();
  };
}
