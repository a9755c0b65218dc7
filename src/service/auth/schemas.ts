import { z } from 'zod';
import { Address, ChainId, HexBytes, IsoTimestamp } from '../api/wire.js';

export const ChallengeRequest = z.strictObject({
  address: Address,
  chainId: ChainId.optional().meta({ description: 'Chain the session is bound to (EIP-4361); default: the first chain.' }),
});

export const ChallengeResponse = z.object({
  message: z.string().meta({ description: 'EIP-4361 (Sign-In with Ethereum) message to sign with personal_sign.' }),
  nonce: z.string(),
  expiresAt: IsoTimestamp,
});

export const VerifyRequest = z.strictObject({
  message: z.string().min(1).max(4_096),
  signature: HexBytes,
});

export const UserView = z.object({
  id: z.string(),
  address: Address,
  workspaceId: z.string(),
});

export const VerifyResponse = z.object({
  token: z.string().meta({ description: 'Session JWT: send as `Authorization: Bearer <token>`.' }),
  tokenType: z.literal('Bearer'),
  expiresAt: IsoTimestamp,
  sessionId: z.string(),
  user: UserView,
  mfaRequired: z.boolean().meta({ description: 'True: verify a TOTP or recovery code before using other routes.' }),
});

export const SessionView = z.object({
  id: z.string(),
  userId: z.string(),
  workspaceId: z.string(),
  createdAt: IsoTimestamp,
  expiresAt: IsoTimestamp,
  mfaVerified: z.boolean(),
  active: z.boolean(),
  current: z.boolean().meta({ description: 'The session of the token making this request.' }),
  userAgent: z.string().nullable(),
});

export const SessionParams = z.object({
  sessionId: z
    .string()
    .regex(/^ses_[A-Za-z0-9]+$/)
    .meta({ description: 'A session id (`ses_…`), as listed by `GET /api/v1/auth/sessions`.', example: 'ses_0example' }),
});

export const RevokeOthersResponse = z.object({
  object: z.literal('session_revocation'),
  revoked: z.number().int().nonnegative().meta({ description: 'How many other active sessions of the user were ended.' }),
  kept: z.string().meta({ description: 'The session that made the request; it stays active.' }),
});

export const MeResponse = z.object({
  user: UserView,
  session: SessionView,
  mfa: z.object({
    totpEnabled: z.boolean(),
    pending: z.boolean().meta({ description: 'This session still owes an MFA code.' }),
    recoveryCodesRemaining: z.number().int().nonnegative(),
  }),
});

export const TotpEnrolResponse = z.object({
  secret: z.string().meta({ description: 'Base32 TOTP secret.' }),
  otpauthUrl: z.string(),
  algorithm: z.literal('SHA1'),
  digits: z.number().int(),
  period: z.number().int(),
});

export const CodeRequest = z.strictObject({ code: z.string().min(1).max(64) });

export const TotpVerifyResponse = z.object({
  verified: z.literal(true),
  enrolled: z.boolean().meta({ description: 'True when this code completed the enrolment.' }),
  recoveryCodes: z.array(z.string()).optional().meta({ description: 'The 10 single-use recovery codes, shown once.' }),
});

export const RecoveryCodesResponse = z.object({ recoveryCodes: z.array(z.string()) });

export const RecoveryVerifyResponse = z.object({
  verified: z.literal(true),
  recoveryCodesRemaining: z.number().int().nonnegative(),
});

export const ApiKeyView = z.object({
  id: z.string(),
  workspaceId: z.string(),
  redacted: z.string(),
  status: z.enum(['active', 'rotating', 'expired', 'revoked']),
  createdAt: IsoTimestamp,
  expiresAt: IsoTimestamp.nullable().meta({ description: 'Set once rotated: the end of the grace period.' }),
  replacedBy: z.string().nullable(),
  lastUsedAt: IsoTimestamp.nullable(),
});

export const IssuedApiKeyView = ApiKeyView.extend({
  key: z.string().meta({ description: 'The full key, shown once.' }),
});

export const ApiKeyList = z.object({ data: z.array(ApiKeyView) });

export const RotateKeyRequest = z.strictObject({
  keyId: z.string().optional().meta({ description: 'Key to rotate; default: the key making the request.' }),
});

export const RotateKeyResponse = z.object({ key: IssuedApiKeyView, rotated: ApiKeyView });
