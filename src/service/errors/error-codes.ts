/**
 * The error codes the service emits, with a sentence each. `doc_url` in every error points at the
 * locally served page built from this list (`/docs/errors#<code>`), so every doc_url resolves.
 * Modules add their codes with `describeErrorCode` at import time.
 */
const codes = new Map<string, string>([
  // Interface spec codes.
  ['pair_not_supported', 'The pair is not available on the requested corridor.'],
  ['amount_too_small', 'Below the minimum trade size (10,000 USD equivalent, the corridor minNotional).'],
  ['amount_too_large', "Above the maximum trade size for the caller's tier (the corridor maxNotional)."],
  ['attestation_expired', 'The compliance attestation (X-Service-Attestation) is missing or needs renewal.'],
  ['corridor_unavailable', 'No solvers cover the corridor.'],
  ['rfq_expired', 'The quote window has passed; request a new quote.'],
  // Request shape.
  ['parameter_missing', 'A required parameter is missing; `param` names it.'],
  ['parameter_invalid', 'A parameter has the wrong type or an invalid value; `param` names it.'],
  ['parameter_unknown', 'The request carries a parameter this endpoint does not accept; `param` names it.'],
  ['invalid_json', 'The body is not valid JSON.'],
  ['invalid_content_type', 'The body must be JSON sent with `Content-Type: application/json`.'],
  ['body_too_large', 'The request body exceeds the size limit.'],
  ['route_not_found', 'No endpoint answers this method and path.'],
  ['resource_not_found', 'The resource does not exist or belongs to another workspace.'],
  ['idempotency_key_invalid', 'The Idempotency-Key header must be 1 to 255 printable ASCII characters.'],
  ['idempotency_key_reused', 'This Idempotency-Key was used with a different request body or endpoint.'],
  ['idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry later.'],
  // Authentication.
  ['authentication_required', 'This endpoint needs `Authorization: Bearer <API key or JWT>`.'],
  ['invalid_api_key', 'The API key is malformed, unknown, revoked, or of the other environment (svc_test_ vs svc_live_).'],
  ['api_key_expired', 'The API key was rotated and its 24 h grace period has ended; use the new key.'],
  ['jwt_required', 'This endpoint accepts only a dashboard session token (JWT) from wallet sign-in.'],
  ['api_key_required', 'This endpoint accepts only an API key.'],
  ['invalid_token', 'The session token is malformed, tampered with or expired.'],
  ['session_revoked', 'The session has ended; sign in again.'],
  ['mfa_required', 'The session must complete MFA (TOTP, a security key or a recovery code) before using this endpoint.'],
  ['challenge_invalid', 'The sign-in message is unknown, already used, expired, or does not match its challenge.'],
  ['invalid_signature', 'The signature does not recover to the address of the sign-in message.'],
  ['invalid_mfa_code', 'The TOTP or recovery code is wrong, expired or already used.'],
  ['mfa_not_enrolled', 'The second factor asked for is not set up for this user (TOTP, or a security key).'],
  ['mfa_already_enabled', 'TOTP is already enabled for this user.'],
  ['webauthn_challenge_missing', 'No security-key ceremony is pending for this session, or it expired (5 minutes): ask for new options.'],
  [
    'webauthn_verification_failed',
    'The authenticator response does not verify against the pending challenge, this origin or the credential.',
  ],
  ['webauthn_credential_exists', 'This security key is already registered.'],
  [
    'webauthn_counter_regressed',
    'The signature counter of the security key went backwards: it may be cloned; the credential is not accepted.',
  ],
  // Limits and availability.
  ['rate_limit_exceeded', 'Too many requests: honour Retry-After.'],
  ['internal_error', 'An unexpected error; retry with exponential backoff.'],
  ['store_unavailable', 'The database is unavailable.'],
  ['chain_unavailable', 'A chain RPC endpoint does not answer.'],
  ['sandbox_only', 'This endpoint exists only in the sandbox environment.'],
  ['maintenance', 'The route is under maintenance (a sandbox fault switch): retry later.'],
  [
    'deposit_held',
    'The order is recorded, but a sandbox fault switch keeps its deposit from the chain: held or delayed, it goes on once sent; dropped, it is rejected (404).',
  ],
]);

export function describeErrorCode(code: string, description: string): void {
  codes.set(code, description);
}

export function errorCodes(): ReadonlyMap<string, string> {
  return codes;
}

describeErrorCode('headers_too_large', 'The request headers exceed the server limit.');
describeErrorCode('malformed_request', 'The HTTP request could not be parsed.');
describeErrorCode('api_key_not_rotatable', 'Only an active key can be rotated; rotate its successor instead.');
describeErrorCode('clock_not_adjustable', 'This deployment runs on the real clock; only a test clock can be advanced.');
