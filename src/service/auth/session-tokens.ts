import type { Clock } from '../../clock/index.js';
import { AuthenticationError } from '../errors/api-errors.js';
import { lazyModule } from '../lazy-module.js';

const ISSUER = 'settlement-service';

// jose loads on the first sign-in or token check rather than at start-up (about 30 ms of module loading that
// `sandbox up` would wait for; most sandboxes are driven by API keys only).
const loadJose = lazyModule(() => import('jose'));
const AUDIENCE = 'dashboard';

export interface SessionClaims {
  userId: string;
  sessionId: string;
  workspaceId: string;
  address: string;
}

/**
 * Dashboard session tokens: HS256 JWTs whose `iat`/`exp` come from the service clock, so that advancing
 * the sandbox clock expires them like everything else. The session row stays authoritative (revocation,
 * MFA state); the token only names it.
 */
export class SessionTokens {
  private readonly key: Uint8Array;

  constructor(
    secret: Uint8Array,
    private readonly clock: Clock,
  ) {
    if (secret.length < 32) throw new RangeError('SessionTokens: the signing secret must be at least 32 bytes');
    this.key = secret;
  }

  async issue(claims: SessionClaims, expiresAt: number): Promise<string> {
    const { SignJWT } = await loadJose();
    const now = Math.floor(this.clock.now() / 1_000);
    return new SignJWT({ sid: claims.sessionId, wid: claims.workspaceId, addr: claims.address })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject(claims.userId)
      .setIssuedAt(now)
      .setExpirationTime(Math.floor(expiresAt / 1_000))
      .sign(this.key);
  }

  async verify(token: string): Promise<SessionClaims> {
    const { errors: joseErrors, jwtVerify } = await loadJose();
    try {
      const { payload } = await jwtVerify(token, this.key, {
        issuer: ISSUER,
        audience: AUDIENCE,
        algorithms: ['HS256'],
        currentDate: this.clock.date(),
        requiredClaims: ['sub', 'exp', 'iat'],
      });
      const { sub, sid, wid, addr } = payload as Record<string, unknown>;
      if (typeof sub !== 'string' || typeof sid !== 'string' || typeof wid !== 'string' || typeof addr !== 'string') {
        throw new AuthenticationError({ code: 'invalid_token', message: 'The session token lacks its claims.' });
      }
      return { userId: sub, sessionId: sid, workspaceId: wid, address: addr };
    } catch (error) {
      if (error instanceof AuthenticationError) throw error;
      const expired = error instanceof joseErrors.JWTExpired;
      throw new AuthenticationError({
        code: 'invalid_token',
        message: expired ? 'The session token has expired; sign in again.' : 'The session token is not valid.',
        cause: error,
      });
    }
  }
}

/** Three base64url segments: worth handing to the JWT verifier. */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
}
