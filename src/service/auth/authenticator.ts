import type { Clock } from '../../clock/index.js';
import { AuthenticationError } from '../errors/api-errors.js';
import type { PlatformRepositories } from '../store/repositories.js';
import type { AccessService } from './access.js';
import { looksLikeApiKey } from './api-key-format.js';
import { mfaEnabled } from './mfa.js';
import type { AuthContext, JwtAuth } from '../api/auth-context.js';
import { looksLikeJwt, type SessionTokens } from './session-tokens.js';

/**
 * Resolves a bearer credential (API key or session JWT) to an AuthContext, or throws the 401. Used by
 * the HTTP middleware and by WebSocket handshakes alike.
 */
export class Authenticator {
  constructor(
    private readonly access: AccessService,
    private readonly tokens: SessionTokens,
    private readonly repos: PlatformRepositories,
    private readonly clock: Clock,
  ) {}

  /** `Authorization` header value → credential; undefined when no header was sent. */
  async fromAuthorizationHeader(header: string | undefined): Promise<AuthContext | undefined> {
    if (header === undefined) return undefined;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (match === null) {
      throw new AuthenticationError({
        code: 'authentication_required',
        param: 'Authorization',
        message: 'Use `Authorization: Bearer <API key or session token>`.',
      });
    }
    return this.fromToken(match[1]!);
  }

  async fromToken(token: string): Promise<AuthContext> {
    if (looksLikeApiKey(token)) return this.access.verifyApiKey(token);
    if (looksLikeJwt(token)) return this.fromJwt(token);
    throw new AuthenticationError({ code: 'invalid_api_key', message: 'The credential is neither an API key nor a session token.' });
  }

  private async fromJwt(token: string): Promise<JwtAuth> {
    const claims = await this.tokens.verify(token);
    const session = this.repos.sessions.get(claims.sessionId);
    const now = this.clock.now();
    if (session === undefined || session.userId !== claims.userId || session.revokedAt !== null || session.expiresAt <= now) {
      throw new AuthenticationError({ code: 'session_revoked', message: 'The session has ended; sign in again.' });
    }
    const secondFactor = mfaEnabled(this.repos, session.userId);
    return {
      kind: 'jwt',
      workspaceId: session.workspaceId,
      keyId: session.id,
      sessionId: session.id,
      userId: session.userId,
      address: claims.address,
      mfa: !secondFactor ? 'none' : session.mfaVerifiedAt !== null ? 'verified' : 'pending',
    };
  }
}
