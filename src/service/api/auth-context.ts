import type { AuthenticationError } from '../errors/api-errors.js';

interface AuthBase {
  workspaceId: string;
  /** The credential's id: the API key's key_id, or the session id for a JWT. Rate limits and logs use it. */
  keyId: string;
}

export interface ApiKeyAuth extends AuthBase {
  kind: 'apiKey';
}

export interface JwtAuth extends AuthBase {
  kind: 'jwt';
  sessionId: string;
  userId: string;
  /** Lowercase wallet address that signed in. */
  address: string;
  /** `pending`: the user has MFA and this session has not completed it yet. */
  mfa: 'none' | 'pending' | 'verified';
}

/** Who is calling: set on `req.auth` by the authenticate middleware. */
export type AuthContext = ApiKeyAuth | JwtAuth;

export type AuthFailure = AuthenticationError;
