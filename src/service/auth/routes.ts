import { getAddress } from 'viem';
import { AuthenticationError, InvalidRequestError, NotFoundError } from '../errors/api-errors.js';
import type { RouteTable } from '../api/route.js';
import type { OpenApiRegistry } from '../api/openapi.js';
import { pageEnvelope, PageQuery, pageSchema, toPageRequest } from '../api/pagination.js';
import { isoTime } from '../api/wire.js';
import type { PlatformRepositories } from '../store/repositories.js';
import type { Session } from '../store/sessions.js';
import type { User } from '../store/users.js';
import type { AccessService, ApiKeySummary, IssuedApiKey } from './access.js';
import type { JwtAuth } from '../api/auth-context.js';
import type { MfaService } from './mfa.js';
import * as S from './schemas.js';
import type { WalletSignIn } from './wallet-sign-in.js';

export interface AuthRouteDeps {
  signIn: WalletSignIn;
  mfa: MfaService;
  repos: PlatformRepositories;
  now(): number;
  defaultChainId: number;
}

function userView(user: User) {
  // Stored lowercase for lookups; shown in EIP-55 form, as the sign-in message and every other address on the wire.
  return { id: user.id, address: getAddress(user.address), workspaceId: user.workspaceId };
}

function sessionView(session: Session, now: number, currentSessionId: string | undefined) {
  return {
    id: session.id,
    userId: session.userId,
    workspaceId: session.workspaceId,
    createdAt: isoTime(session.createdAt),
    expiresAt: isoTime(session.expiresAt),
    mfaVerified: session.mfaVerifiedAt !== null,
    active: session.revokedAt === null && session.expiresAt > now,
    current: session.id === currentSessionId,
    userAgent: session.userAgent,
  };
}

function jwtUser(auth: unknown, repos: PlatformRepositories): { auth: JwtAuth; user: User } {
  const jwt = auth as JwtAuth;
  const user = repos.users.get(jwt.userId);
  if (user === undefined) throw new AuthenticationError({ code: 'session_revoked', message: 'The user no longer exists.' });
  return { auth: jwt, user };
}

/** Wallet sign-in, sessions and MFA: `/api/v1/auth/*`. */
export function mountAuthRoutes(api: RouteTable, openapi: OpenApiRegistry, deps: AuthRouteDeps): void {
  const { repos } = deps;
  for (const [id, schema] of Object.entries({
    ChallengeRequest: S.ChallengeRequest,
    ChallengeResponse: S.ChallengeResponse,
    VerifyRequest: S.VerifyRequest,
    VerifyResponse: S.VerifyResponse,
    User: S.UserView,
    Session: S.SessionView,
    Me: S.MeResponse,
    TotpEnrolment: S.TotpEnrolResponse,
    CodeRequest: S.CodeRequest,
    TotpVerifyResponse: S.TotpVerifyResponse,
    RecoveryCodes: S.RecoveryCodesResponse,
    RecoveryVerifyResponse: S.RecoveryVerifyResponse,
  })) {
    openapi.schema(id, schema);
  }
  const SessionPage = openapi.schema('SessionPage', pageSchema(S.SessionView));

  api.route({
    method: 'post',
    path: '/auth/challenge',
    operationId: 'createAuthChallenge',
    summary: 'Get a Sign-In with Ethereum (EIP-4361) message to sign.',
    tags: ['Auth'],
    auth: 'public',
    idempotent: false,
    body: S.ChallengeRequest,
    responses: { 200: { description: 'The message to sign, valid for 5 minutes.', schema: S.ChallengeResponse } },
    handler: ({ body }) => {
      const challenge = deps.signIn.challenge(body.address, body.chainId ?? deps.defaultChainId);
      return {
        status: 200,
        body: { message: challenge.message, nonce: challenge.nonce, expiresAt: isoTime(challenge.expiresAt) },
      };
    },
  });

  api.route({
    method: 'post',
    path: '/auth/verify',
    operationId: 'verifyAuthSignature',
    summary: 'Exchange a signed sign-in message for a session token (JWT).',
    tags: ['Auth'],
    auth: 'public',
    idempotent: false,
    body: S.VerifyRequest,
    responses: {
      200: {
        description: 'A session was opened.',
        schema: S.VerifyResponse,
        links: {
          RevokeSession: {
            operationId: 'revokeAuthSession',
            parameters: { sessionId: '$response.body#/sessionId' },
            description: 'Sign out: end this session (send its token).',
          },
        },
      },
    },
    handler: async ({ body, req }) => {
      const signedIn = await deps.signIn.verify(body.message, body.signature as `0x${string}`, {
        userAgent: req.get('User-Agent'),
        ip: req.socket.remoteAddress,
      });
      return {
        status: 200,
        body: {
          token: signedIn.token,
          tokenType: 'Bearer',
          expiresAt: isoTime(signedIn.session.expiresAt),
          sessionId: signedIn.session.id,
          user: userView(signedIn.user),
          mfaRequired: signedIn.mfaRequired,
        },
      };
    },
  });

  api.route({
    method: 'get',
    path: '/auth/me',
    operationId: 'getAuthMe',
    summary: 'The signed-in user and session (session token only).',
    tags: ['Auth'],
    auth: 'jwt',
    allowMfaPending: true,
    responses: { 200: { description: 'The current user.', schema: S.MeResponse } },
    handler: ({ auth }) => {
      const { auth: jwt, user } = jwtUser(auth, repos);
      const session = repos.sessions.get(jwt.sessionId)!;
      return {
        status: 200,
        body: {
          user: userView(user),
          session: sessionView(session, deps.now(), jwt.sessionId),
          mfa: {
            totpEnabled: jwt.mfa !== 'none',
            pending: jwt.mfa === 'pending',
            recoveryCodesRemaining: deps.mfa.remainingRecoveryCodes(user.id),
          },
        },
      };
    },
  });

  api.route({
    method: 'get',
    path: '/auth/sessions',
    operationId: 'listAuthSessions',
    summary: "Dashboard sessions: the user's own with a session token, the whole workspace's with an API key.",
    tags: ['Auth'],
    auth: 'required',
    query: PageQuery,
    responses: { 200: { description: 'A page of sessions, newest first.', schema: SessionPage } },
    handler: ({ auth: credential, query }) => {
      const auth = credential!;
      const scope = auth.kind === 'jwt' ? { workspaceId: auth.workspaceId, userId: auth.userId } : { workspaceId: auth.workspaceId };
      const page = repos.sessions.page(scope, toPageRequest(query));
      const current = auth.kind === 'jwt' ? auth.sessionId : undefined;
      const now = deps.now();
      return { status: 200, body: pageEnvelope(page, (session) => sessionView(session, now, current)) };
    },
  });

  api.route({
    method: 'delete',
    path: '/auth/sessions/:sessionId',
    operationId: 'revokeAuthSession',
    summary:
      "Ends a session at once: its tokens answer 401 from now on. A session token ends the user's own sessions; an API key any of its workspace's.",
    tags: ['Auth'],
    auth: 'required',
    params: S.SessionParams,
    responses: {
      200: { description: 'The session, now inactive (ending an ended session answers the same).', schema: S.SessionView },
      404: { description: 'No such session in your scope.' },
    },
    handler: ({ auth: credential, params }) => {
      const auth = credential!;
      const session = repos.sessions.get(params.sessionId);
      const inScope =
        session !== undefined && session.workspaceId === auth.workspaceId && (auth.kind !== 'jwt' || session.userId === auth.userId);
      if (!inScope) {
        throw new NotFoundError({ code: 'resource_not_found', param: 'sessionId', message: `No session ${params.sessionId}.` });
      }
      const now = deps.now();
      repos.sessions.revoke(session.id, now);
      const current = auth.kind === 'jwt' ? auth.sessionId : undefined;
      return { status: 200, body: sessionView(repos.sessions.get(session.id)!, now, current) };
    },
  });

  api.route({
    method: 'post',
    path: '/auth/sessions/revoke-others',
    operationId: 'revokeOtherAuthSessions',
    summary: 'Ends every other active session of the signed-in user ("sign out everywhere else"); this one stays.',
    tags: ['Auth'],
    auth: 'jwt',
    responses: { 200: { description: 'How many sessions were ended.', schema: S.RevokeOthersResponse } },
    handler: ({ auth }) => {
      const { auth: jwt } = jwtUser(auth, repos);
      const revoked = repos.sessions.revokeOthers(jwt.userId, jwt.sessionId, deps.now());
      return { status: 200, body: { object: 'session_revocation' as const, revoked, kept: jwt.sessionId } };
    },
  });

  api.route({
    method: 'post',
    path: '/auth/mfa/totp/enroll',
    operationId: 'enrollTotp',
    summary: 'Start TOTP enrolment (RFC 6238); confirm with a first code at /auth/mfa/totp/verify.',
    tags: ['Auth'],
    auth: 'jwt',
    idempotent: false,
    responses: { 200: { description: 'The TOTP secret to load into an authenticator app.', schema: S.TotpEnrolResponse } },
    handler: ({ auth }) => {
      const { user } = jwtUser(auth, repos);
      return { status: 200, body: deps.mfa.enrolTotp(user) };
    },
  });

  api.route({
    method: 'post',
    path: '/auth/mfa/totp/verify',
    operationId: 'verifyTotp',
    summary: 'Verify a TOTP code: completes enrolment (returning recovery codes) or the MFA step of this session.',
    tags: ['Auth'],
    auth: 'jwt',
    allowMfaPending: true,
    idempotent: false,
    body: S.CodeRequest,
    responses: { 200: { description: 'The session is MFA-verified.', schema: S.TotpVerifyResponse } },
    handler: ({ auth, body }) => {
      const { auth: jwt, user } = jwtUser(auth, repos);
      const result = deps.mfa.verifyTotp(user, jwt.sessionId, body.code.trim());
      return { status: 200, body: { verified: true, ...result } };
    },
  });

  api.route({
    method: 'post',
    path: '/auth/mfa/recovery/generate',
    operationId: 'generateRecoveryCodes',
    summary: 'Replace the 10 single-use recovery codes (needs an MFA-verified session).',
    tags: ['Auth'],
    auth: 'jwt',
    idempotent: false,
    responses: { 200: { description: 'New codes; the old ones stop working.', schema: S.RecoveryCodesResponse } },
    handler: ({ auth }) => {
      const { user } = jwtUser(auth, repos);
      return { status: 200, body: { recoveryCodes: deps.mfa.generateRecoveryCodes(user) } };
    },
  });

  api.route({
    method: 'post',
    path: '/auth/mfa/recovery/verify',
    operationId: 'verifyRecoveryCode',
    summary: 'Complete the MFA step of this session with a single-use recovery code.',
    tags: ['Auth'],
    auth: 'jwt',
    allowMfaPending: true,
    idempotent: false,
    body: S.CodeRequest,
    responses: { 200: { description: 'The session is MFA-verified; the code is spent.', schema: S.RecoveryVerifyResponse } },
    handler: ({ auth, body }) => {
      const { auth: jwt, user } = jwtUser(auth, repos);
      const { remaining } = deps.mfa.useRecoveryCode(user, jwt.sessionId, body.code);
      return { status: 200, body: { verified: true, recoveryCodesRemaining: remaining } };
    },
  });
}

function keyView(key: ApiKeySummary) {
  return {
    id: key.id,
    workspaceId: key.workspaceId,
    redacted: key.redacted,
    status: key.status,
    createdAt: isoTime(key.createdAt),
    expiresAt: key.expiresAt === null ? null : isoTime(key.expiresAt),
    replacedBy: key.replacedBy,
    lastUsedAt: key.lastUsedAt === null ? null : isoTime(key.lastUsedAt),
  };
}

function issuedView(key: IssuedApiKey) {
  return { ...keyView(key), key: key.key };
}

/** Sandbox-only key administration (`sandbox keys create|rotate`), authenticated by a key of the workspace. */
export function mountSandboxKeyRoutes(api: RouteTable, openapi: OpenApiRegistry, access: AccessService): void {
  openapi.schema('ApiKey', S.ApiKeyView);
  openapi.schema('IssuedApiKey', S.IssuedApiKeyView);
  openapi.schema('ApiKeyList', S.ApiKeyList);
  openapi.schema('RotateKeyRequest', S.RotateKeyRequest);
  openapi.schema('RotateKeyResponse', S.RotateKeyResponse);

  api.route({
    method: 'get',
    path: '/sandbox/keys',
    operationId: 'listSandboxKeys',
    summary: "The workspace's API keys (redacted). Sandbox only.",
    tags: ['Sandbox'],
    auth: 'required',
    responses: { 200: { description: 'Keys, oldest first.', schema: S.ApiKeyList } },
    handler: ({ auth }) => ({ status: 200, body: { data: access.listApiKeys(auth!.workspaceId).map(keyView) } }),
  });

  api.route({
    method: 'post',
    path: '/sandbox/keys',
    operationId: 'createSandboxKey',
    summary: 'Create another API key for the workspace. Sandbox only.',
    tags: ['Sandbox'],
    auth: 'required',
    responses: { 201: { description: 'The new key, shown once.', schema: S.IssuedApiKeyView } },
    handler: ({ auth }) => ({ status: 201, body: issuedView(access.createApiKey(auth!.workspaceId)) }),
  });

  api.route({
    method: 'post',
    path: '/sandbox/keys/rotate',
    operationId: 'rotateSandboxKey',
    summary: 'Rotate an API key: a successor now, the old key keeps working 24 h by the service clock. Sandbox only.',
    tags: ['Sandbox'],
    auth: 'required',
    body: S.RotateKeyRequest,
    responses: { 201: { description: 'The successor (shown once) and the rotated key.', schema: S.RotateKeyResponse } },
    handler: ({ auth: credential, body }) => {
      const auth = credential!;
      const keyId = body.keyId ?? (auth.kind === 'apiKey' ? auth.keyId : undefined);
      if (keyId === undefined) {
        throw new InvalidRequestError({ code: 'parameter_missing', param: 'keyId', message: 'Name the key to rotate (`keyId`).' });
      }
      const { issued, rotated } = access.rotateApiKey(auth.workspaceId, keyId);
      return { status: 201, body: { key: issuedView(issued), rotated: keyView(rotated) } };
    },
  });
}
