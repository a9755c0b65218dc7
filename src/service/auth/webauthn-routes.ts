import { z } from 'zod';
import type { OpenApiRegistry } from '../api/openapi.js';
import { pageEnvelope, PageQuery, pageSchema, toPageRequest } from '../api/pagination.js';
import type { RouteTable } from '../api/route.js';
import { IsoTimestamp, nonBlankText } from '../api/wire.js';
import { AuthenticationError } from '../errors/api-errors.js';
import type { PlatformRepositories } from '../store/repositories.js';
import type { User } from '../store/users.js';
import type { WebAuthnCredential } from '../store/webauthn.js';
import type { JwtAuth } from '../api/auth-context.js';
import type { WebAuthnService } from './webauthn.js';

const BASE = '/auth/mfa/webauthn';

/** The ceremony options as WebAuthn's JSON serialisation defines them (pass them to the browser as they are). */
const CreationOptions = z
  .looseObject({
    challenge: z.string().meta({ description: 'base64url; answered once, within 5 minutes of service clock.' }),
    rp: z.looseObject({ id: z.string().optional(), name: z.string() }),
    user: z.looseObject({ id: z.string(), name: z.string(), displayName: z.string() }),
    pubKeyCredParams: z.array(z.looseObject({ type: z.string(), alg: z.number() })),
  })
  .meta({ description: 'PublicKeyCredentialCreationOptionsJSON (WebAuthn Level 3): give it to navigator.credentials.create().' });
const RequestOptions = z
  .looseObject({
    challenge: z.string().meta({ description: 'base64url; answered once, within 5 minutes of service clock.' }),
    rpId: z.string().optional(),
    allowCredentials: z.array(z.looseObject({ id: z.string(), type: z.string() })).optional(),
  })
  .meta({ description: 'PublicKeyCredentialRequestOptionsJSON (WebAuthn Level 3): give it to navigator.credentials.get().' });

/** The browser's PublicKeyCredential in its JSON form (`credential.toJSON()`, or @simplewebauthn/browser's output). */
const CredentialResponse = z.looseObject({
  id: z.string().min(1).max(1_024),
  rawId: z.string().min(1).max(1_024),
  type: z.literal('public-key'),
  response: z.looseObject({ clientDataJSON: z.string().min(1).max(16_384) }),
  clientExtensionResults: z.looseObject({}),
});

const RegisterRequest = z.strictObject({
  response: CredentialResponse.meta({ description: 'The result of navigator.credentials.create() in JSON form.' }),
  name: nonBlankText(100).optional().meta({ description: 'A label for the key (stored trimmed); default "Security key N".' }),
});
const AuthenticateRequest = z.strictObject({
  response: CredentialResponse.meta({ description: 'The result of navigator.credentials.get() in JSON form.' }),
});

const CredentialView = z.object({
  object: z.literal('webauthn_credential'),
  id: z.string().meta({ description: '`wac_…`' }),
  name: z.string(),
  credentialId: z.string().meta({ description: "The authenticator's credential id, base64url." }),
  transports: z.array(z.string()),
  deviceType: z.string().meta({ description: '`singleDevice` or `multiDevice` (a synced passkey).' }),
  backedUp: z.boolean(),
  signCount: z.number().int().min(0),
  createdAt: IsoTimestamp,
  lastUsedAt: IsoTimestamp.nullable(),
});
const RegisterResponse = z.object({
  credential: CredentialView,
  recoveryCodes: z
    .array(z.string())
    .optional()
    .meta({ description: "Only with the user's first second factor: 10 single-use recovery codes, shown once." }),
});
const AuthenticateResponse = z.object({ verified: z.literal(true), credentialId: z.string() });
const DeletedResponse = z.object({ object: z.literal('webauthn_credential'), id: z.string(), deleted: z.literal(true) });
const CredentialParams = z.object({
  credentialId: z
    .string()
    .regex(/^wac_[A-Za-z0-9]+$/)
    .meta({ description: '`wac_…`' }),
});

function credentialView(credential: WebAuthnCredential) {
  return {
    object: 'webauthn_credential' as const,
    id: credential.id,
    name: credential.name,
    credentialId: credential.credentialId,
    transports: credential.transports,
    deviceType: credential.deviceType,
    backedUp: credential.backedUp,
    signCount: credential.signCount,
    createdAt: new Date(credential.createdAt).toISOString(),
    lastUsedAt: credential.lastUsedAt === null ? null : new Date(credential.lastUsedAt).toISOString(),
  };
}

/** FIDO2 / WebAuthn security keys as a second factor: `/api/v1/auth/mfa/webauthn/*` (dashboard sessions only). */
export function mountWebAuthnRoutes(
  api: RouteTable,
  openapi: OpenApiRegistry,
  deps: { webauthn: WebAuthnService; repos: PlatformRepositories },
): void {
  const { webauthn, repos } = deps;
  const session = (auth: unknown): { sessionId: string; user: User } => {
    const jwt = auth as JwtAuth;
    const user = repos.users.get(jwt.userId);
    if (user === undefined) throw new AuthenticationError({ code: 'session_revoked', message: 'The user no longer exists.' });
    return { sessionId: jwt.sessionId, user };
  };
  openapi.schema('WebAuthnCredential', CredentialView);
  const CredentialPage = openapi.schema('WebAuthnCredentialPage', pageSchema(CredentialView));

  api.route({
    method: 'post',
    path: `${BASE}/register/options`,
    operationId: 'webauthnRegistrationOptions',
    summary: 'Start registering a security key (FIDO2 / WebAuthn): options for navigator.credentials.create().',
    description:
      'Needs an MFA-verified session when the user already has a second factor. The relying party id is the host the ' +
      'dashboard is served from (`localhost` on a local sandbox; WebAuthn does not allow IP addresses).',
    tags: ['Auth'],
    auth: 'jwt',
    idempotent: false,
    responses: { 200: { description: 'Creation options with a fresh challenge.', schema: CreationOptions } },
    handler: async ({ auth }) => {
      const { user, sessionId } = session(auth);
      return { status: 200, body: await webauthn.registrationOptions(user, sessionId) };
    },
  });

  api.route({
    method: 'post',
    path: `${BASE}/register/verify`,
    operationId: 'webauthnRegister',
    summary: 'Finish registering a security key: verifies the attestation against the pending challenge and origin.',
    tags: ['Auth'],
    auth: 'jwt',
    idempotent: false,
    body: RegisterRequest,
    responses: {
      201: {
        description: 'The key is registered; this session is MFA-verified.',
        schema: RegisterResponse,
        links: {
          Credential: { operationId: 'getWebAuthnCredential', parameters: { credentialId: '$response.body#/credential/id' } },
          RemoveCredential: { operationId: 'deleteWebAuthnCredential', parameters: { credentialId: '$response.body#/credential/id' } },
        },
      },
    },
    handler: async ({ auth, body }) => {
      const { user, sessionId } = session(auth);
      const result = await webauthn.register(user, sessionId, body.response as never, body.name);
      return {
        status: 201,
        body: {
          credential: credentialView(result.credential),
          ...(result.recoveryCodes === undefined ? {} : { recoveryCodes: result.recoveryCodes }),
        },
      };
    },
  });

  api.route({
    method: 'post',
    path: `${BASE}/authenticate/options`,
    operationId: 'webauthnAuthenticationOptions',
    summary: "Start the MFA step with a security key: options for navigator.credentials.get() over the user's keys.",
    tags: ['Auth'],
    auth: 'jwt',
    allowMfaPending: true,
    idempotent: false,
    responses: { 200: { description: 'Request options with a fresh challenge.', schema: RequestOptions } },
    handler: async ({ auth }) => {
      const { user, sessionId } = session(auth);
      return { status: 200, body: await webauthn.authenticationOptions(user, sessionId) };
    },
  });

  api.route({
    method: 'post',
    path: `${BASE}/authenticate/verify`,
    operationId: 'webauthnAuthenticate',
    summary: 'Finish the MFA step with a security key: verifies the assertion and its signature counter.',
    tags: ['Auth'],
    auth: 'jwt',
    allowMfaPending: true,
    idempotent: false,
    body: AuthenticateRequest,
    responses: { 200: { description: 'The session is MFA-verified.', schema: AuthenticateResponse } },
    handler: async ({ auth, body }) => {
      const { user, sessionId } = session(auth);
      const credential = await webauthn.authenticate(user, sessionId, body.response as never);
      return { status: 200, body: { verified: true, credentialId: credential.id } };
    },
  });

  api.route({
    method: 'get',
    path: `${BASE}/credentials`,
    operationId: 'listWebAuthnCredentials',
    summary: "The user's registered security keys, newest first.",
    tags: ['Auth'],
    auth: 'jwt',
    query: PageQuery,
    responses: { 200: { description: 'A page of security keys.', schema: CredentialPage } },
    handler: ({ auth, query }) => {
      const { user } = session(auth);
      return { status: 200, body: pageEnvelope(repos.webauthn.page(user.id, toPageRequest(query)), credentialView) };
    },
  });

  api.route({
    method: 'get',
    path: `${BASE}/credentials/:credentialId`,
    operationId: 'getWebAuthnCredential',
    summary: 'One registered security key.',
    tags: ['Auth'],
    auth: 'jwt',
    params: CredentialParams,
    responses: { 200: { description: 'The security key.', schema: CredentialView } },
    handler: ({ auth, params }) => {
      const { user } = session(auth);
      return { status: 200, body: credentialView(webauthn.get(user, params.credentialId)) };
    },
  });

  api.route({
    method: 'delete',
    path: `${BASE}/credentials/:credentialId`,
    operationId: 'deleteWebAuthnCredential',
    summary: 'Remove a security key (needs an MFA-verified session); it can no longer complete the MFA step.',
    tags: ['Auth'],
    auth: 'jwt',
    params: CredentialParams,
    responses: { 200: { description: 'Removed.', schema: DeletedResponse } },
    handler: ({ auth, params }) => {
      const { user } = session(auth);
      webauthn.remove(user, params.credentialId);
      return { status: 200, body: { object: 'webauthn_credential', id: params.credentialId, deleted: true } };
    },
  });
}
