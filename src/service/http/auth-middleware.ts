import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AuthenticationError } from '../errors/api-errors.js';
import type { Authenticator } from '../auth/authenticator.js';
import type { AuthContext } from '../api/auth-context.js';

/**
 * Resolves `Authorization` on every request, before rate limiting (which keys on the credential). A
 * rejected credential is remembered, not thrown: public routes ignore it, guarded routes answer 401.
 */
export function authenticate(authenticator: Authenticator): RequestHandler {
  return async (req: Request, _res: Response, next: NextFunction) => {
    try {
      const auth = await authenticator.fromAuthorizationHeader(req.headers.authorization);
      if (auth !== undefined) req.auth = auth;
    } catch (error) {
      if (!(error instanceof AuthenticationError)) throw error;
      req.authFailure = error;
    }
    next();
  };
}

export interface RequireAuthOptions {
  /** Credential kinds the route accepts; default both. */
  kinds?: ReadonlyArray<AuthContext['kind']>;
  /** Let a JWT session that still owes its MFA code through (the MFA routes themselves, `auth/me`). */
  allowMfaPending?: boolean;
}

function checkAuth(req: Request, options: RequireAuthOptions, required: boolean): void {
  if (req.authFailure !== undefined) throw req.authFailure;
  const auth = req.auth;
  if (auth === undefined) {
    if (!required) return;
    throw new AuthenticationError({
      code: 'authentication_required',
      param: 'Authorization',
      message: 'This endpoint needs `Authorization: Bearer <API key>`.',
    });
  }
  const kinds = options.kinds ?? ['apiKey', 'jwt'];
  if (!kinds.includes(auth.kind)) {
    throw new AuthenticationError(
      auth.kind === 'apiKey'
        ? { code: 'jwt_required', param: 'Authorization', message: 'This endpoint accepts only a dashboard session token (JWT).' }
        : { code: 'api_key_required', param: 'Authorization', message: 'This endpoint accepts only an API key.' },
    );
  }
  if (auth.kind === 'jwt' && auth.mfa === 'pending' && options.allowMfaPending !== true) {
    throw new AuthenticationError({
      code: 'mfa_required',
      message: 'Complete MFA for this session first (POST /api/v1/auth/mfa/totp/verify).',
    });
  }
}

/** 401 unless the request carries a valid credential of an accepted kind; sets nothing new (see `req.auth`). */
export function requireAuth(options: RequireAuthOptions = {}): RequestHandler {
  return (req, _res, next) => {
    checkAuth(req, options, true);
    next();
  };
}

/** Anonymous is fine, but a credential that is present must be valid (a bad key is a 401, not ignored). */
export function optionalAuth(options: RequireAuthOptions = {}): RequestHandler {
  return (req, _res, next) => {
    checkAuth(req, options, false);
    next();
  };
}
