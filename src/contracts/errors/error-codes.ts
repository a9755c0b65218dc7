/**
 * The one registry of error codes: every `code` an error of this project carries on a wire (the service's HTTP
 * and WebSocket errors, Format A and B) or in the CLI's `--json` output. A code thrown anywhere must be listed
 * here; src/service/errors/error-codes.test.ts scans the source for thrown codes and fails on one that is not.
 * It lives in src/contracts because both sides read it: the service renders and documents the codes
 * (`GET /docs/errors`, one anchor per code, so every `doc_url` resolves), clients and scripts match them.
 */

/** The closed list of Format A error types, with their HTTP status (interface spec, Errors). */
export const ERROR_TYPES = {
  invalid_request: 400,
  authentication_error: 401,
  compliance_error: 403,
  not_found: 404,
  conflict: 409,
  validation_error: 422,
  rate_limit_error: 429,
  api_error: 500,
  maintenance: 503,
} as const;

export type ErrorType = keyof typeof ERROR_TYPES;

/** A code of the service's API: the Format A types (hence statuses) it is thrown with, and its docs sentence. */
export interface ApiErrorCodeEntry {
  /** The types the code is thrown with; the renderers take the status (and the Format B code) from them. */
  readonly types: readonly ErrorType[];
  /** Listed on the docs page but thrown nowhere today (kept so documented links keep resolving). */
  readonly reserved?: true;
  readonly description: string;
}

/** A code of the sandbox CLI and its libraries (devnet, sandbox, scenarios, conformance): `--json` errors. */
export interface CliErrorCodeEntry {
  readonly description: string;
}

/** The service's API error codes; `GET /docs/errors` lists them, sorted. */
export const API_ERROR_CODES = {
  pair_not_supported: {
    types: ['validation_error'],
    description: 'The pair is not available on the requested corridor.',
  },
  amount_too_small: {
    types: ['validation_error'],
    description: 'Below the minimum trade size (10,000 USD equivalent, the corridor minNotional).',
  },
  amount_too_large: {
    types: ['validation_error'],
    description: "Above the maximum trade size for the caller's tier (the corridor maxNotional).",
  },
  attestation_expired: {
    types: ['compliance_error'],
    description: 'The compliance attestation (X-Service-Attestation) is missing or needs renewal.',
  },
  corridor_unavailable: { types: ['validation_error'], description: 'No solvers cover the corridor.' },
  rfq_expired: { types: ['conflict'], description: 'The quote window has passed; request a new quote.' },
  parameter_missing: { types: ['invalid_request'], description: 'A required parameter is missing; `param` names it.' },
  parameter_invalid: {
    types: ['invalid_request'],
    description: 'A parameter has the wrong type or an invalid value; `param` names it.',
  },
  parameter_unknown: {
    types: ['invalid_request'],
    description: 'The request carries a parameter this endpoint does not accept; `param` names it.',
  },
  invalid_json: { types: ['invalid_request'], description: 'The body is not valid JSON.' },
  invalid_content_type: {
    types: ['invalid_request'],
    description: 'The body must be JSON sent with `Content-Type: application/json`.',
  },
  body_too_large: { types: ['invalid_request'], description: 'The request body exceeds the size limit.' },
  route_not_found: { types: ['not_found'], description: 'No endpoint answers this method and path.' },
  resource_not_found: {
    types: ['not_found'],
    description: 'The resource does not exist or belongs to another workspace.',
  },
  idempotency_key_invalid: {
    types: ['invalid_request'],
    description: 'The Idempotency-Key header must be 1 to 255 printable ASCII characters.',
  },
  idempotency_key_reused: {
    types: ['conflict'],
    description: 'This Idempotency-Key was used with a different request body or endpoint.',
  },
  idempotency_key_in_use: {
    types: ['conflict'],
    description: 'A request with this Idempotency-Key is still being processed; retry later.',
  },
  authentication_required: {
    types: ['authentication_error'],
    description: 'This endpoint needs `Authorization: Bearer <API key or JWT>`.',
  },
  invalid_api_key: {
    types: ['authentication_error'],
    description: 'The API key is malformed, unknown, revoked, or of the other environment (svc_test_ vs svc_live_).',
  },
  api_key_expired: {
    types: ['authentication_error'],
    description: 'The API key was rotated and its 24 h grace period has ended; use the new key.',
  },
  jwt_required: {
    types: ['authentication_error'],
    description: 'This endpoint accepts only a dashboard session token (JWT) from wallet sign-in.',
  },
  api_key_required: { types: ['authentication_error'], description: 'This endpoint accepts only an API key.' },
  invalid_token: {
    types: ['authentication_error'],
    description: 'The session token is malformed, tampered with or expired.',
  },
  session_revoked: { types: ['authentication_error'], description: 'The session has ended; sign in again.' },
  mfa_required: {
    types: ['authentication_error'],
    description: 'The session must complete MFA (TOTP, a security key or a recovery code) before using this endpoint.',
  },
  challenge_invalid: {
    types: ['authentication_error'],
    description: 'The sign-in message is unknown, already used, expired, or does not match its challenge.',
  },
  invalid_signature: {
    types: ['authentication_error'],
    description: 'The signature does not recover to the address of the sign-in message.',
  },
  invalid_mfa_code: {
    types: ['authentication_error'],
    description: 'The TOTP or recovery code is wrong, expired or already used.',
  },
  mfa_not_enrolled: {
    types: ['conflict'],
    description: 'The second factor asked for is not set up for this user (TOTP, or a security key).',
  },
  mfa_already_enabled: { types: ['conflict'], description: 'TOTP is already enabled for this user.' },
  webauthn_challenge_missing: {
    types: ['conflict'],
    description: 'No security-key ceremony is pending for this session, or it expired (5 minutes): ask for new options.',
  },
  webauthn_verification_failed: {
    types: ['authentication_error'],
    description: 'The authenticator response does not verify against the pending challenge, this origin or the credential.',
  },
  webauthn_credential_exists: { types: ['conflict'], description: 'This security key is already registered.' },
  webauthn_counter_regressed: {
    types: ['authentication_error'],
    description: 'The signature counter of the security key went backwards: it may be cloned; the credential is not accepted.',
  },
  rate_limit_exceeded: { types: ['rate_limit_error'], description: 'Too many requests: honour Retry-After.' },
  internal_error: { types: ['api_error'], description: 'An unexpected error; retry with exponential backoff.' },
  store_unavailable: { types: ['maintenance'], description: 'The database is unavailable.' },
  chain_unavailable: { types: ['maintenance'], description: 'A chain RPC endpoint does not answer.' },
  sandbox_only: { types: [], reserved: true, description: 'This endpoint exists only in the sandbox environment.' },
  maintenance: {
    types: ['maintenance'],
    description: 'The route is under maintenance (a sandbox fault switch): retry later.',
  },
  deposit_held: {
    types: ['maintenance'],
    description:
      'The order is recorded, but a sandbox fault switch keeps its deposit from the chain: held or delayed, it goes on once sent; dropped, it is rejected (404).',
  },
  headers_too_large: { types: ['invalid_request'], description: 'The request headers exceed the server limit.' },
  malformed_request: { types: ['invalid_request'], description: 'The HTTP request could not be parsed.' },
  api_key_not_rotatable: {
    types: ['conflict'],
    description: 'Only an active key can be rotated; rotate its successor instead.',
  },
  clock_not_adjustable: {
    types: ['conflict'],
    description: 'This deployment runs on the real clock; only a test clock can be advanced.',
  },
  method_not_allowed: {
    types: ['invalid_request'],
    description: 'The path exists but not for this method; the Allow header lists the methods it supports.',
  },
  advance_not_running: {
    types: ['conflict'],
    description: 'The clock advance already ended; only a running advance can be cancelled.',
  },
  advance_cancelled: {
    types: ['conflict'],
    description: 'The clock advance was cancelled (DELETE on its route) before it ended.',
  },
  websocket_handshake_invalid: {
    types: ['invalid_request'],
    description: 'The WebSocket opening handshake is invalid (method, Upgrade, Sec-WebSocket-Key or -Version); `param` names the part.',
  },
  chain_not_supported: {
    types: ['validation_error'],
    description: 'The chain is not one this deployment settles on; GET /api/v1/corridors lists them.',
  },
  lock_type_not_supported: {
    types: ['validation_error'],
    description: 'The input token does not support this lock type (EIP3009Escrow needs a token with ERC-3009).',
  },
  insufficient_role: {
    types: ['authentication_error'],
    description: "The signed-in member's role does not allow this action (admin routes need `admin`).",
  },
  compliance_rejected: {
    types: ['compliance_error'],
    description: 'A participant failed compliance screening (KYC/KYB, sanctions or Travel Rule).',
  },
  fault_not_firing: {
    types: ['conflict'],
    description:
      'The fault switch does not fire for this: spent, expired, cleared, not a solver fault, or scoped to other solvers or orders.',
  },
  chain_restart_unavailable: {
    types: ['conflict'],
    description:
      'chain.restart needs the sandbox’s own chains next to the service (sandbox up, the scenario runner); this service cannot restart its chains.',
  },
  service_restart_unavailable: {
    types: ['conflict'],
    description:
      'service.restart needs a service the sandbox runs itself (sandbox up, one instance); this service cannot be restarted from here.',
  },
  quote_already_accepted: {
    types: ['conflict'],
    description: 'The quote (or a sibling quote of its RFQ) already became an order; request a new quote.',
  },
  nonce_already_used: {
    types: ['conflict'],
    description: "The nonce is not above the user's last used nonce (or is spent on chain): a replay. Sign a new order.",
  },
  signature_invalid: {
    types: ['validation_error'],
    description: "The signature does not recover to the order's user for the quote's lock type and terms.",
  },
  deposit_failed: {
    types: ['validation_error'],
    description: 'The deposit would revert or reverted on chain (signature, nonce, deadline, balance or allowance).',
  },
  insufficient_lock_balance: {
    types: ['validation_error'],
    description: "The user's ERC-6909 balance in the resource lock does not cover the order (minus open orders).",
  },
  kyb_rejected: {
    types: ['compliance_error'],
    description: 'The solver failed KYB verification (or sanctions screening of its address); registration was refused.',
  },
  member_exists: {
    types: ['conflict'],
    description: 'The address is already a member of the workspace; change its role instead.',
  },
  last_admin: {
    types: ['conflict'],
    description: 'A workspace keeps at least one admin: add another admin before removing or demoting this one.',
  },
  deferred_unavailable: {
    types: ['maintenance'],
    description: 'The chain has no DeferredVault, or the service runs without relayer keys.',
  },
  insufficient_credit: {
    types: ['validation_error'],
    description: 'The workspace has less available credit on that chain and token than asked for.',
  },
  approval_decided: { types: ['conflict'], description: 'The approval was already approved or rejected.' },
  lp_paused: {
    types: ['conflict'],
    description: 'The liquidity provider (solver) is paused on the deferred rail: it is neither offered nor paid deferred orders.',
  },
  order_not_confirmable: {
    types: ['conflict'],
    description: 'Only a deferred order that its solver filled, and that waits for confirmation, can be confirmed.',
  },
  url_not_allowed: {
    types: ['invalid_request', 'validation_error'],
    description: 'Webhook URLs must be HTTPS and public (the sandbox also accepts http://localhost and 127.0.0.1).',
  },
  webhook_limit_reached: {
    types: ['validation_error'],
    description: 'The workspace has the maximum number of webhook endpoints.',
  },
  webhook_not_active: {
    types: ['conflict'],
    description: 'The webhook endpoint is paused or disabled; enable it first.',
  },
  replay_window_exceeded: {
    types: ['validation_error'],
    description: 'Events can be replayed for 7 days after they happened, and only up to the service clock’s now.',
  },
  advance_too_long: {
    types: ['validation_error'],
    description: 'A sandbox clock advance moves at most 366 days at once; advance in several steps.',
  },
  event_not_subscribed: {
    types: ['validation_error'],
    description: 'The webhook endpoint does not subscribe to that event type.',
  },
  too_many_connections: {
    types: ['rate_limit_error'],
    description: 'The credential already holds the maximum number of WebSocket connections (5 per key).',
  },
  topic_invalid: {
    types: ['invalid_request'],
    description: 'The WebSocket topic or channel pattern is not one the service knows; `param` names it.',
  },
  too_many_subscriptions: {
    types: ['invalid_request'],
    description: 'A WebSocket connection holds at most 200 topics and channels.',
  },
  cursor_not_found: { types: ['not_found'], description: 'The replay cursor is not an event id of this workspace.' },
  already_authenticated: {
    types: ['invalid_request'],
    description: 'The WebSocket connection is already authenticated.',
  },
  message_type_unknown: {
    types: ['invalid_request'],
    description: 'The WebSocket message type is not one the stream accepts.',
  },
} as const satisfies Record<string, ApiErrorCodeEntry>;

/** The codes of the CLI's `--json` errors (and of the errors its libraries throw for it to print). */
export const CLI_ERROR_CODES = {
  advance_cancelled: { description: 'A clock advance was cancelled before it finished.' },
  advance_failed: { description: 'A clock advance failed; the message says at which instant and why.' },
  access_missing: {
    description: 'The shared access file (--access-file) names no workspace or key yet: the first replica has not written it.',
  },
  already_running: { description: 'A sandbox already runs on this state folder; stop it or use another --state-dir.' },
  anvil_missing: { description: 'The anvil binary from @foundry-rs/anvil is not installed; run npm install.' },
  artifacts_missing: { description: 'Contract artifacts are missing; build them with npm run build:contracts.' },
  cancelled: { description: 'The start was cancelled; the background sandbox is stopping.' },
  chain_restart_unavailable: { description: 'An attached chain (started elsewhere) cannot be restarted by the sandbox.' },
  chain_restarting: { description: 'The chain is already restarting.' },
  chain_start_failed: { description: 'A chain (anvil) failed to start.' },
  clock_advance_failed: { description: 'A clock advance through the typed API failed or was cancelled; the message says why.' },
  config_invalid: { description: 'The combination of options cannot run (e.g. --instances 2 without Postgres).' },
  deployment_failed: { description: 'Deploying the contracts on a chain failed.' },
  image_not_ready: { description: 'The service image for --image is not built or does not start.' },
  invalid_config: { description: 'A flag, config file or service option is invalid; the message names it.' },
  ledger_unreadable: { description: 'The ledger file cannot be read or parsed.' },
  manifest_unreadable: { description: 'sandbox.json in the state folder is not readable.' },
  no_api_key: { description: 'sandbox.json lists no API key the service accepts (all were rotated out).' },
  no_docker_engine: { description: 'No Docker engine answers, so --image cannot run here.' },
  not_built: { description: 'A built entry point (dist/) is missing; run npm run build.' },
  not_running: { description: 'No sandbox runs on this state folder.' },
  port_in_use: { description: 'A port the sandbox needs is taken; choose other ports.' },
  save_failed: { description: "A chain's state could not be saved." },
  service_failed: { description: 'A service instance failed to start.' },
  service_not_ready: { description: 'sandbox.json lists no running service yet: `sandbox up` is still starting.' },
  service_unreachable: { description: 'The sandbox service does not answer at the URL in sandbox.json.' },
  state_dir_unwritable: {
    description: 'The state folder cannot be written (permissions, read-only file system); pass another --state-dir.',
  },
  state_mismatch: { description: 'The saved chain state does not match this sandbox; start with --fresh or another --state-dir.' },
  supervisor_failed: { description: 'The background supervisor exited before the sandbox was ready.' },
  target_unreachable: { description: 'The target deployment does not answer.' },
  target_unusable: { description: 'The target deployment answers but cannot be used (missing keys or chains).' },
  trigger_failed: {
    description:
      '`sandbox trigger` or `sandbox demo` ran its flow but the order did not end as it should (the message says where it stopped).',
  },
  unknown_chain: { description: 'The sandbox has no chain with this id.' },
  usage_error: { description: 'The command was called wrongly (unknown name, bad option); exit code 2.' },
} as const satisfies Record<string, CliErrorCodeEntry>;

/** Every code, by where it is read. */
export const ERROR_CODES = { api: API_ERROR_CODES, cli: CLI_ERROR_CODES } as const;

export type ApiErrorCode = keyof typeof API_ERROR_CODES;
export type CliErrorCode = keyof typeof CLI_ERROR_CODES;
