export { AccessService, type ApiKeyStatus, type ApiKeySummary, type IssuedApiKey } from './access.js';
export { generateApiKey, hashApiKey, keyEnvironmentOf, parseApiKey, type ParsedApiKey } from './api-key-format.js';
export { Authenticator } from './authenticator.js';
export type { ApiKeyAuth, AuthContext, AuthFailure, JwtAuth } from '../api/auth-context.js';
export { MfaService, RECOVERY_CODE_COUNT } from './mfa.js';
export { SessionTokens, type SessionClaims } from './session-tokens.js';
export { WalletSignIn, type Challenge, type SignedIn } from './wallet-sign-in.js';
