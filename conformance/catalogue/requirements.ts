/**
 * The requirement catalogue: every normative statement of the interface spec (interface.md), with an id,
 * its section, its text in our words and a level. Ids: `A-` Reference A only, `B-` Reference B only, `X-`
 * both generations. Points the spec leaves open but conventions.md settles carry `source: 'conventions'`.
 * Statements the spec marks "not shown" are listed as NOT-CHECKABLE so that a reader sees what no check can
 * hold a deployment to.
 *
 * Levels: MUST for required fields, stated behaviour and "must"/"always"; SHOULD for "recommended",
 * "advised", examples and the conventions' readings. A check of a SHOULD that does not hold is a WARNING.
 */
export type Level = 'MUST' | 'SHOULD' | 'NOT-CHECKABLE';

export interface Requirement {
  id: string;
  /** The interface.md heading (or conventions.md heading) the statement comes from. */
  section: string;
  text: string;
  level: Level;
  /** `project`: this project's design of a route the spec lists with bodies "not shown" (never FAILED: a WARNING). */
  source: 'interface' | 'conventions' | 'project';
}

const SPEC = 'interface.md';

function must(id: string, section: string, text: string): Requirement {
  return { id, section, text, level: 'MUST', source: 'interface' };
}
function should(id: string, section: string, text: string): Requirement {
  return { id, section, text, level: 'SHOULD', source: 'interface' };
}
function convention(id: string, level: 'MUST' | 'SHOULD', section: string, text: string): Requirement {
  return { id, section, text, level, source: 'conventions' };
}
/** Project-defined: checked against our design, reported as a WARNING at worst (another design is not wrong). */
function project(id: string, section: string, text: string): Requirement {
  return { id, section, text, level: 'SHOULD', source: 'project' };
}

function notShown(id: string, section: string, text: string): Requirement {
  return { id, section, text, level: 'NOT-CHECKABLE', source: 'interface' };
}

export const REQUIREMENTS: readonly Requirement[] = [
  // Resources and their fields: identifiers, times, amounts.
  must(
    'X-ID-001',
    'Resources and their fields',
    'Identifiers are strings with their type prefix: quote `qt_`, order `ord_`, solver `slv_`, workspace `ws_`, webhook `wh_`, request `req_`, event `evt_`, RFQ `rfq_`, settlement `stl_`.',
  ),
  must('X-ID-002', 'Resources and their fields', 'Timestamps are ISO-8601 strings unless a field states otherwise.'),
  must(
    'X-ID-003',
    'Resources and their fields',
    "Amounts are integer strings in the token's smallest unit, except where events use decimal strings.",
  ),

  // Health.
  must(
    'A-HLT-001',
    'Endpoints / Health',
    '`GET /api/v1/health` is public and answers 200 with `ok` (boolean), `environment` (`sandbox` or `production`), `version` (string) and `uptimeSeconds` (number).',
  ),
  must(
    'A-HLT-002',
    'Endpoints / Health',
    'Health answers 503 when the service is unavailable; `ok` is true exactly when the answer is 200.',
  ),

  // Quotes (Reference A).
  must(
    'A-QUO-001',
    'Endpoints / Quote request',
    '`POST /api/v1/quotes` is public and answers a valid JSON quote request with 200 and a quote response.',
  ),
  must(
    'A-QUO-002',
    'Quote request',
    '`inputToken`, `outputToken`, `inputAmount`, `originChainId` and `destinationChainId` are required; a request without one is a 400 `invalid_request` naming it in `param`.',
  ),
  must('A-QUO-003', 'Quote request', '`inputAmount` must be a positive integer string; anything else is a 400 naming `inputAmount`.'),
  should(
    'A-QUO-004',
    'Quote request',
    '`preference` takes `price`, `speed` or `reliability`, and `swapType` takes `exactInput` or `exactOutput`; other values are rejected.',
  ),
  should('A-QUO-005', 'Quote request', 'The alternative request shape (`pair`, `side`, `amount`) is accepted.'),
  must(
    'A-QUO-006',
    'Quote response',
    'Each quote carries `quoteId`, `solverId`, `outputAmount` (integer string), `feeBps` (number), `expiresAt`, `settlementPath` (`compliant`/`direct`) and `lockType` (`ResourceLock`/`Permit2Escrow`/`EIP3009Escrow`); `priceImpactBps` is a number when present.',
  ),
  must('A-QUO-007', 'Quote response', 'Quotes come back ranked best first (by output amount when the preference is `price`).'),
  must(
    'A-QUO-008',
    'Quote response',
    'The response carries `uccpBps` (number), `corridor` (canonical id `<origin-chain>:<token>-<destination-chain>:<token>`) and `requestId` (string).',
  ),
  must(
    'A-QUO-009',
    'Quote detail',
    '`GET /api/v1/quotes/{quoteId}` is public and answers 200 with quoteId, status, solverId, outputAmount, feeBps, settlementPath, lockType, createdAt, expiresAt and `standardOrder`.',
  ),
  must(
    'A-QUO-010',
    'Quote detail',
    '`standardOrder` carries `user` (address), `originChainId` (number), `expires` and `fillDeadline` (Unix seconds), `inputs` ([token, amount string] pairs) and `outputs` (chainId, token, amount).',
  ),
  must('A-QUO-011', 'States and transitions', 'A quote that can still be ordered has status `open`.'),
  must('A-QUO-012', 'Errors / Format A', 'An unknown quote id is a 404 `not_found`.'),
  must(
    'A-QUO-013',
    'Errors / codes',
    'A quote below the minimum trade size (10,000 USD equivalent, the corridor `minNotional`) is refused with `amount_too_small`.',
  ),
  must(
    'A-QUO-014',
    'Errors / codes',
    'A quote above the maximum trade size (the corridor `maxNotional`) is refused with `amount_too_large`.',
  ),
  must('A-QUO-015', 'Errors / codes', 'A pair not available on the requested corridor is refused with `pair_not_supported`.'),
  must('A-QUO-016', 'Errors / codes', 'A corridor no solver covers is refused with `corridor_unavailable`.'),
  must(
    'A-QUO-017',
    'Quote detail',
    'The quote detail agrees with the quote as returned by `POST /quotes` (solver, amounts, fee, lock type, path, expiry) and its `standardOrder` with the request (chains, tokens, input amount, output amount).',
  ),
  must('A-QUO-018', 'Corridor', "Each quote's `lockType` is one of the corridor's `lockTypes`."),
  should(
    'A-QUO-019',
    'Endpoints',
    'The attestation header is optional on quote creation: a quote request without `X-Service-Attestation` succeeds.',
  ),
  notShown(
    'A-QUO-020',
    'Quote request',
    'Allowed values of `side` beyond `buy`, and quote status values other than `open` and their transitions: not shown.',
  ),

  // Orders (Reference A).
  must(
    'A-ORD-001',
    'Endpoints / Order create request',
    '`POST /api/v1/orders` with `quoteId`, `signature` (EIP-712 over the StandardOrder typed data) and `nonce` answers 201 with an order create response.',
  ),
  must(
    'A-ORD-002',
    'Order create response',
    'The order create response carries `orderId`, `quoteId`, `status`, `settlementPath`, `originTxHash`, `createdAt` and `fillDeadline` (ISO time); `destinationTxHash` is null until filled.',
  ),
  must(
    'A-ORD-003',
    'States and transitions',
    'A new order is `Deposited`: funds are locked on the origin chain by the transaction `originTxHash`.',
  ),
  must(
    'A-ORD-004',
    'Order create request',
    'The nonce is monotonic per user: an order with an already used nonce is rejected and nothing is settled.',
  ),
  must(
    'A-ORD-005',
    'Order create request',
    "The signature must be an EIP-712 signature of the order's user over the quote's typed data: a signature by another key, or over other data, is rejected.",
  ),
  must('A-ORD-006', 'Errors / codes', 'Ordering on a quote whose window has passed is refused with `rfq_expired`.'),
  must(
    'A-ORD-007',
    'Order detail',
    '`GET /api/v1/orders/{orderId}` is public and answers 200 with orderId, status, settlementPath, originChainId, destinationChainId, inputAmount, outputAmount, originTxHash, destinationTxHash, oracleAttestationHash and settledAt.',
  ),
  must('A-ORD-008', 'Errors / Format A', 'An unknown order id is a 404 `not_found`.'),
  must(
    'A-ORD-009',
    'States and transitions',
    'Order status takes only `Deposited`, `Filled`, `Attested`, `Claimed`, `Refunded`, and a successful order moves forward through them to `Claimed`.',
  ),
  must(
    'A-ORD-010',
    'States and transitions',
    'When the fill deadline passes without a fill, the escrow is refunded and the order ends `Refunded`.',
  ),
  must(
    'A-ORD-011',
    'Authentication',
    'On the compliant path a missing or stale `X-Service-Attestation` yields 403 `attestation_expired` (`compliance_error`).',
  ),
  should('A-ORD-012', 'Endpoints', 'Order creation is Optional Auth: the direct path accepts an API key (recommended) or none.'),
  must(
    'A-ORD-013',
    'Order create response',
    '`originTxHash` names a successful transaction on the origin chain, and `destinationTxHash` one on the destination chain once filled.',
  ),

  // Settlements (Reference A).
  must(
    'A-STL-001',
    'Endpoints / Settlement',
    '`GET /api/v1/workspaces/{workspaceId}/settlements/{orderId}` requires auth and answers 200 with orderId, workspaceId, state, timeline, evidenceHash and wormSequence.',
  ),
  must(
    'A-STL-002',
    'Settlement',
    'Settlement `state` is one of `Deposited`, `Filled`, `Attested`, `Settled`, `Refunded`; a claimed order is `Settled`.',
  ),
  must(
    'A-STL-003',
    'Settlement',
    'Timeline entries carry `stage` (`rfq`, `deposited`, `filled`, `attested`, `claimed`, `refunded`) and `at`, in chronological order; `oracleHash` appears on the attested stage only.',
  ),
  should('A-STL-004', 'States and transitions', 'A successful timeline runs rfq, deposited, filled, attested, claimed.'),
  must('A-STL-005', 'Endpoints', '`GET /api/v1/settlements` requires auth and answers a page envelope of settlements.'),
  must('A-STL-006', 'Errors / Format A', 'A settlement of an unknown order or another workspace is a 404 `not_found`.'),
  must('A-STL-007', 'Settlement', '`evidenceHash` is a hex byte string (the root of the WORM evidence chain) and `wormSequence` a number.'),

  // Corridors.
  must('A-COR-001', 'Endpoints / Corridor', '`GET /api/v1/corridors` is public and answers 200 with a `corridors` array.'),
  must(
    'A-COR-002',
    'Corridor',
    'A corridor carries id, originChainId, destinationChainId, inputToken and outputToken (address, symbol, decimals as number), solverCount, minNotional and maxNotional (strings), oracle and lockTypes (lock type values).',
  ),
  must('A-COR-003', 'Quote response', 'Corridor ids have the canonical shape `<origin-chain>:<token>-<destination-chain>:<token>`.'),
  should('A-COR-004', 'Limits', '`minNotional` does not exceed `maxNotional`.'),

  // Solvers.
  must(
    'A-SOL-001',
    'Endpoints / Solver registration',
    '`POST /api/v1/solvers/register` requires auth and answers 201 with solverId, name, corridors, wsToken, wsUrl and createdAt.',
  ),
  must(
    'A-SOL-002',
    'Authentication',
    "The registration `wsToken` is a string with the `wst_` prefix (`wst_live_` in the spec's example) and `wsUrl` a WebSocket URL.",
  ),
  must(
    'X-SOL-001',
    'Solver stream connection flow',
    'The solver stream accepts `{type: auth, token}` then `{type: subscribe, channels: [rfq.*]}` and then delivers RFQ events.',
  ),
  must(
    'X-SOL-002',
    'Endpoints / Reference B',
    'The solver stream is served at `/ws/v1/solver/stream` (also listed as `/ws/solver/stream`).',
  ),
  should('A-SOL-003', 'Endpoints', '`GET /api/v1/solvers`, `GET /api/v1/solvers/{id}` and `GET /api/v1/leaderboard` exist.'),
  notShown(
    'A-SOL-004',
    'Endpoints',
    "Bodies of the solver directory, leaderboard, deferred, admin and counterparty routes, and the solver stream's RFQ and quote messages: not shown.",
  ),

  // Webhooks (management, Reference A).
  must(
    'A-WH-001',
    'Webhook',
    '`POST /api/v1/webhooks` requires auth; with url, events and a `whsec_` secret it answers 201 with webhookId, url, events, signingKey, active and createdAt.',
  ),
  must('A-WH-002', 'Endpoints', '`GET /api/v1/webhooks` requires auth and lists the webhooks.'),
  must('A-WH-003', 'Endpoints', '`DELETE /api/v1/webhooks/{webhook_id}` deletes the webhook.'),
  must('A-WH-004', 'Endpoints', '`POST /api/v1/webhooks/{webhook_id}/test` sends a test event to the endpoint.'),
  must('A-WH-005', 'Webhooks', '`POST /v1/webhooks/{id}/enable` re-enables a paused webhook.'),
  should('A-WH-006', 'Webhook', 'The returned `signingKey` has the `whsec_` prefix (`whsec_live_` in the spec).'),
  must(
    'A-WH-007',
    'Webhooks',
    'Retry schedule A: 6 attempts, the retries 5 s, 30 s, 10 min, 1 h, 6 h and 24 h apart (the last about 31 h 10 m 35 s after the first send).',
  ),
  must(
    'A-WH-008',
    'Webhooks',
    'A webhook is paused after 5 consecutive events exhausted the full retry schedule; enabling it makes it active again.',
  ),
  notShown('A-WH-009', 'Endpoints', 'Response bodies of the webhook list, delete, test and enable routes: not shown.'),

  // Webhook deliveries (both generations).
  must('X-WH-001', 'Webhooks', 'Deliveries are POST requests carrying the event as a JSON body.'),
  must('X-WH-002', 'Webhooks', '`X-Service-Signature` is the hex HMAC-SHA256 of `<timestamp>.<body>` keyed with the webhook secret.'),
  must('X-WH-003', 'Webhooks', '`X-Service-Timestamp` is the Unix time in seconds when the delivery was sent.'),
  should('X-WH-004', 'Webhooks', '`X-Service-Event` names the event type.'),
  should('X-WH-005', 'Webhooks', '`X-Service-WebhookId` names the endpoint.'),
  must('X-WH-006', 'Webhooks', '`X-Service-DeliveryId` is unique per delivery attempt.'),
  must('X-WH-007', 'Event envelope', 'A redelivered event keeps its `id`, so consumers de-duplicate by it.'),
  must('X-WH-008', 'Webhooks', 'A non-2xx answer fails the delivery, which is retried.'),
  must('X-WH-009', 'Webhooks', 'A delivery the endpoint does not answer within 30 seconds fails.'),
  must('X-WH-010', 'Webhooks', "Only events matching the webhook's event names or glob patterns (such as `order.*`) are delivered to it."),
  convention(
    'X-WH-011',
    'SHOULD',
    'Retries (conventions.md)',
    'A 3xx answer is a failure; the first attempt is immediate and each delay counts from the previous failed attempt.',
  ),
  notShown(
    'X-WH-012',
    'Webhooks',
    'The replay of stored events (7 days) and the email on pause/disable: not shown (no route or channel to observe them).',
  ),

  // Receivers (what certify webhook-receiver holds a receiver to).
  must('X-WHR-001', 'Webhooks', 'A receiver rejects a delivery whose timestamp is more than 300 seconds old.'),
  must(
    'X-WHR-007',
    'Webhooks',
    'A receiver answers a correctly signed, fresh delivery with a 2xx (anything else is a failed delivery the service retries).',
  ),
  must('X-WHR-002', 'Webhooks', 'A receiver answers an invalid signature with 401.'),
  notShown('X-WHR-003', 'Webhooks', 'A receiver compares signatures in constant time: not observable over the wire with any reliability.'),
  should('X-WHR-004', 'Webhooks', 'A receiver de-duplicates deliveries by event id (keeping processed ids 48 hours).'),
  convention(
    'X-WHR-005',
    'SHOULD',
    'Webhook signatures (conventions.md)',
    'A receiver rejects timestamps more than 300 s in the future, missing or non-numeric timestamps, and missing, truncated or empty signatures.',
  ),
  convention(
    'X-WHR-006',
    'MUST',
    'Webhook signatures (conventions.md)',
    'A receiver verifies the raw body: a body changed by one byte, or re-serialised, fails verification.',
  ),

  // Reference B webhooks.
  must('B-WH-001', 'Webhooks', 'Retry schedule B: 5 attempts, immediately, then 5 s, 30 s, 5 min and 1 h later.'),
  must('B-WH-002', 'Webhooks', 'A webhook is disabled after 5 consecutive delivery failures.'),

  // WebSocket.
  must(
    'X-WS-001',
    'Authentication',
    'WebSocket authentication by query string `?token=<API_KEY>` is answered `{type: auth.ok, environment}`.',
  ),
  must(
    'X-WS-002',
    'Authentication',
    'WebSocket authentication by the message `{type: auth, token}` after connecting is answered `{type: auth.ok, environment}`.',
  ),
  must('X-WS-003', 'Endpoints', 'The WebSocket requires an API key: an invalid token is not answered `auth.ok`.'),
  must(
    'X-WS-004',
    'WebSocket protocol',
    'The server sends `{type: ping}` every 30 seconds; a client answering `{type: pong}` stays connected.',
  ),
  should('X-WS-005', 'WebSocket protocol', 'A client that does not answer pings is disconnected.'),
  must('X-WS-006', 'Limits', 'At most 5 WebSocket connections per API key.'),
  should(
    'X-WS-007',
    'Channels',
    "The WebSocket replays the last 100 events via a cursor (the cursor mechanism is not shown; the check follows the deployment's documented form: `cursor` on subscribe).",
  ),
  must('X-WS-008', 'Environments', 'The taker WebSocket is served at `/api/v1/ws`.'),
  must('A-WS-001', 'WebSocket protocol', '`{type: subscribe, topics}` is answered `{type: subscribe.ok, topics}`.'),
  must(
    'A-WS-002',
    'WebSocket protocol',
    'Topic `orders:*` delivers every order lifecycle event of the workspace, `orders:{orderId}` those of one order.',
  ),
  should(
    'A-WS-003',
    'Price feed message',
    'Price feed messages on `prices:` topics carry price (decimal string), tier (`retail`/`standard`/`institutional`), timestamp (Unix ms), source and ttlMs.',
  ),
  must('B-WS-001', 'WebSocket protocol', '`{type: subscribe, channels, corridors?}` is answered `{type: subscribe.ok, channels}`.'),
  notShown('X-WS-009', 'Channels', 'How a WebSocket cursor is sent or obtained: not shown.'),

  // Events.
  must('X-EVT-001', 'Event envelope', 'Every event has `type` (string) and a unique `id` with the `evt_` prefix.'),
  should('X-EVT-002', 'Event envelope', 'Events carry `timestamp` (ISO-8601).'),
  must(
    'A-EVT-001',
    'Reference A event types',
    '`order.created` carries `order` with id, pair, side, amount (decimal string), corridor, fillDeadline (Unix seconds number) and status.',
  ),
  must(
    'A-EVT-002',
    'Reference A event types',
    '`order.settled` carries `order` with id, originTxHash, destinationTxHash, amount and settledAt.',
  ),
  must(
    'A-EVT-003',
    'Reference A event types',
    '`compliance.event` carries `compliance` with orderId, checkType, result, hash and prevHash.',
  ),
  must(
    'A-EVT-004',
    'Reference A event types',
    'Success sequence: `order.created`, `order.settled`, then `compliance.event`; exactly one terminal event per order.',
  ),
  must('A-EVT-005', 'Reference A event types', 'Failure sequence: `order.created`, `order.failed`, then `compliance.event`.'),
  notShown(
    'A-EVT-006',
    'Reference A event types',
    'Payloads of `order.failed`, `credit.updated`, `member.added` and `member.removed`: not shown.',
  ),
  must(
    'B-EVT-001',
    'Reference B event types',
    '`rfq.created` carries `rfq` with id, pair, side, amount, corridor, deadline (Unix seconds) and complianceAttestation.',
  ),
  must(
    'B-EVT-002',
    'Reference B event types',
    '`quote.received` carries `quote` with id, rfqId, price (decimal string), solverId, ttl and confidence (numbers).',
  ),
  must('B-EVT-003', 'Reference B event types', '`quote.accepted` carries `quote` (id, price) and `settlement` (id, status).'),
  must(
    'B-EVT-004',
    'Reference B event types',
    '`settlement.pending` carries `settlement` with id, escrowTxHash, originChainId, destinationChainId and fillDeadline.',
  ),
  must(
    'B-EVT-005',
    'Reference B event types',
    '`settlement.complete` carries `settlement` with id, originTxHash, destinationTxHash, amount and settledAt.',
  ),
  must('B-EVT-006', 'Reference B event types', '`settlement.failed` carries `settlement` with id, error, refundTxHash and refundedAt.'),
  must('B-EVT-007', 'Reference B event types', '`audit.recorded` carries `audit` with tradeId, type, timestamp, hash and prevHash.'),
  must(
    'B-EVT-008',
    'Reference B event types',
    'Success sequence: `rfq.created`, `quote.received` (one or more), `quote.accepted`, `settlement.pending`, `settlement.complete`, `audit.recorded`.',
  ),
  must(
    'B-EVT-009',
    'Reference B event types',
    'Failure sequence: `quote.accepted`, `settlement.pending`, `settlement.failed`, `audit.recorded`.',
  ),

  // Errors.
  must(
    'A-ERR-001',
    'Errors / Format A',
    'Reference A errors have the body `{error: {type, code, message, param, doc_url}}` (`param` when a parameter is at fault).',
  ),
  must(
    'A-ERR-002',
    'Errors / Format A',
    'The error `type` comes from the closed list and matches the status: 400 invalid_request, 401 authentication_error, 403 compliance_error, 404 not_found, 409 conflict, 422 validation_error, 429 rate_limit_error, 500 api_error, 503 maintenance.',
  ),
  must('A-ERR-003', 'Errors / Format A', 'The error `code` is lowercase snake case.'),
  must(
    'A-ERR-004',
    'Errors / Format A',
    'A malformed request or a missing required parameter is a 400 `invalid_request` whose `param` names the parameter.',
  ),
  convention('A-ERR-005', 'SHOULD', 'Pagination, errors, rate limits (conventions.md)', 'Every `doc_url` resolves.'),
  must('B-ERR-001', 'Errors / Format B', 'Reference B errors have the body `{error: {code, message}}` with an uppercase code.'),
  should(
    'B-ERR-002',
    'Errors / Format B',
    'Format B codes come from the row of their status: 400 INVALID_REQUEST/MISSING_FIELD, 401 UNAUTHORIZED/INVALID_KEY, 403 COMPLIANCE_FAILED/ATTESTATION_EXPIRED, 404 NOT_FOUND, 409 QUOTE_EXPIRED/ALREADY_ACCEPTED, 422 VALIDATION_ERROR, 429 RATE_LIMITED, 5xx API_ERROR/MAINTENANCE.',
  ),
  must('B-ERR-003', 'Errors / Format B', 'Accepting an already accepted quote is a 409 `ALREADY_ACCEPTED`.'),
  must('B-ERR-004', 'Errors / Format B', 'Accepting an expired quote is a 409 `QUOTE_EXPIRED`.'),
  must('X-ERR-001', 'Errors', "Bad input is answered with a 4xx in the route's error format, never a 5xx (500 is an internal error)."),
  notShown(
    'X-ERR-002',
    'Errors / Format B',
    'The complete error code registry beyond the listed codes: not shown (clients fall back to the status class).',
  ),

  // Authentication.
  must('X-AUTH-001', 'Authentication', 'A non-public endpoint without `Authorization: Bearer <key>` is a 401.'),
  should('X-AUTH-002', 'Authentication', 'API keys have the format `svc_{env}_{key_id}_{random_hex}`.'),
  must('X-AUTH-003', 'Authentication', 'An invalid or expired key yields 401.'),
  must(
    'X-AUTH-004',
    'Authentication',
    "A key with the other environment's prefix (`svc_live_` in the sandbox, `svc_test_` in production) is an invalid key: 401.",
  ),
  must('X-AUTH-005', 'Authentication', 'After a key is rotated the old key keeps working for 24 hours and then expires (401).'),
  must(
    'X-AUTH-006',
    'Authentication / Environments',
    'The sandbox uses `svc_test_` keys and production `svc_live_` keys; health reports the matching environment.',
  ),
  must(
    'A-AUTH-001',
    'Authentication',
    'Health, quote creation, quote read, order read, auth challenge and auth verify are public: they answer without a key.',
  ),
  must('A-AUTH-002', 'Authentication', '`GET /api/v1/auth/me` requires a JWT as Bearer: an API key is refused with 401.'),
  must(
    'X-AUTH-007',
    'Authentication',
    'Limits and behaviour are the same in both environments; the sandbox settles on testnets (local or test chain ids), never on mainnet chains.',
  ),
  notShown(
    'A-AUTH-003',
    'Authentication',
    'Bodies of auth challenge and verify, JWT lifetime and claims, key scopes, MFA enrolment bodies: not shown.',
  ),

  // Limits: rate limits.
  must(
    'X-LIM-001',
    'Limits',
    'Every response carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` (numbers) and `X-RateLimit-Reset` (UTC epoch).',
  ),
  must(
    'X-LIM-002',
    'Limits',
    'A 429 always carries `Retry-After` (seconds) and the rate-limit error (`rate_limit_error` / `RATE_LIMITED`).',
  ),
  must('X-LIM-003', 'Limits', 'A key may send a burst of 1,000 requests: no 429 before the burst is spent.'),
  convention(
    'X-LIM-004',
    'SHOULD',
    'Pagination, errors, rate limits (conventions.md)',
    '`Retry-After` is at least 1 and a retry after waiting that long succeeds.',
  ),
  convention(
    'X-LIM-005',
    'SHOULD',
    'Pagination, errors, rate limits (conventions.md)',
    '`X-RateLimit-Limit` is constant and `X-RateLimit-Remaining` falls as requests are made.',
  ),
  must('X-LIM-006', 'Limits', 'Rate limits apply per API key: another key is not limited when one key is.'),
  notShown(
    'X-LIM-007',
    'Limits',
    'The length of the rate limit window, and limits on the number of webhooks, solver registrations or workspaces: not shown.',
  ),

  // Idempotency.
  must(
    'X-IDM-001',
    'Limits',
    'A creating POST repeated with the same `Idempotency-Key` and body within 24 hours returns the same response (status and body).',
  ),
  must('X-IDM-002', 'Errors / Format A', 'The same `Idempotency-Key` with a different body is a 409 `conflict`.'),
  convention(
    'X-IDM-003',
    'MUST',
    'Idempotency (conventions.md)',
    'Parallel requests with one key and one body create exactly one resource; the other answers are identical replays or 409.',
  ),
  convention('X-IDM-004', 'SHOULD', 'Idempotency (conventions.md)', 'Keys up to 255 characters are accepted; a longer key is a 400.'),
  convention(
    'X-IDM-005',
    'SHOULD',
    'Idempotency (conventions.md)',
    'A request rejected by validation stores nothing: a corrected retry with the same key is processed fresh.',
  ),
  convention(
    'X-IDM-006',
    'SHOULD',
    'Idempotency (conventions.md)',
    'Responses echo the key and mark replays (`Idempotent-Replayed: true`).',
  ),
  must('X-IDM-007', 'Limits', 'The idempotency window is 24 hours: a replay just before it ends still returns the first response.'),

  // Pagination.
  must('X-PAG-001', 'Page envelope', 'List endpoints answer `{data: [], has_more: boolean, next_cursor: string, total_count: number}`.'),
  must('X-PAG-002', 'Pagination', '`limit` is at most 100 and defaults to 25.'),
  must('X-PAG-003', 'Pagination', '`after` with the previous `next_cursor` fetches the next page; `before` the previous one.'),
  convention('X-PAG-004', 'SHOULD', 'Pagination (conventions.md)', '`after` and `before` together are a 400 naming the parameter.'),
  convention(
    'X-PAG-005',
    'SHOULD',
    'Pagination (conventions.md)',
    'Walking all pages forward equals walking backward reversed, with no duplicates or gaps; `next_cursor` is null exactly when `has_more` is false.',
  ),

  // Versioning.
  must('X-VER-001', 'Versioning', 'The version is carried in the path (`/api/v1`) and the health response reports the version label.'),
  notShown('X-VER-002', 'Versioning', 'Deprecation and compatibility policy: not shown.'),

  // Reference B routes.
  must(
    'B-RFQ-001',
    'Endpoints / Reference B',
    '`POST /api/v1/rfq` with pair, side, amount and chain broadcasts an RFQ and returns the quote responses collected within the auction window.',
  ),
  must(
    'B-RFQ-002',
    'Endpoints / Reference B',
    '`GET /api/v1/quotes/{rfqId}` returns all solver responses for the RFQ with pricing, fill rate and latency.',
  ),
  must(
    'B-ACC-001',
    'Endpoints / Reference B',
    "`POST /api/v1/accept` accepts a solver's quote and starts settlement with the escrow deposit on the origin chain.",
  ),
  must(
    'B-CMP-001',
    'Endpoints / Reference B',
    '`GET /api/v1/compliance/status` reports KYC/KYB state, sanctions screening and Travel Rule readiness.',
  ),
  must(
    'B-STL-001',
    'Endpoints / Reference B',
    '`GET /api/v1/settlements/{id}` reports escrow status, cross-chain proof verification and the final settlement hash.',
  ),
  must(
    'B-AUD-001',
    'Endpoints / Reference B',
    '`GET /api/v1/audit/{tradeId}` returns the complete WORM ledger entry for a trade, hash-chained (hash, previous hash, sequence).',
  ),
  must(
    'B-SOL-001',
    'Endpoints / Reference B',
    '`POST /api/v1/solver/register` registers a solver (KYB details, pricing engine) and triggers compliance verification.',
  ),
  must('B-SOL-002', 'Authentication', 'The solver stream accepts Reference B solver keys (`sk_test_`/`sk_live_`) in the auth message.'),
  notShown(
    'B-NS-001',
    'Endpoints / Reference B',
    'Response fields of every Reference B route, and the request fields of accept, compliance status, audit and solver registration: not shown.',
  ),

  // Solvers under certification (what certify solver holds a solver to).
  must(
    'X-SLV-001',
    'Solver stream connection flow',
    'A solver authenticates, subscribes to `rfq.*` and answers RFQ events with quotes while the auction window is open.',
  ),
  must(
    'X-SLV-002',
    'What the service does',
    "A solver's quotes are valid: for the RFQ's corridor, a positive output amount in the destination token's smallest unit, not below what the RFQ asks.",
  ),
  must('X-SLV-003', 'Order create response', 'The winning solver fills the order on the destination chain at or before its fill deadline.'),
  must('X-SLV-004', 'What the service does', 'After the oracle attestation is recorded the solver claims on the origin chain.'),
  must('X-SLV-005', 'WebSocket protocol', 'A solver answers `{type: ping}` with `{type: pong}` and stays connected.'),

  // Evidence ledger.
  must(
    'X-LED-001',
    'What the service does',
    "Every trade is recorded in an append-only evidence ledger whose entries carry a sequence number, a hash and the previous entry's hash.",
  ),
  // Values and sequences: what a deployment can get wrong while every field keeps its shape.
  must(
    'X-VAL-001',
    'Resources and their fields',
    'One fact has one value: the ids, transaction hashes, amounts and times an order, its settlement, its events and its webhook deliveries name agree with each other and with what was asked.',
  ),
  must(
    'X-VAL-002',
    'States and transitions',
    'A terminal state (Claimed, Refunded, Settled, complete, failed) is final: later reads show the same state with the same transactions and times.',
  ),
  must(
    'X-VAL-003',
    'Resources and their fields',
    'Transaction hashes of orders, timelines and events name successful transactions on the chain of their stage, mined no later than the time reported for them.',
  ),
  must('X-VAL-004', 'Event envelope', 'An event id names one event: a copy delivered again, on either channel, carries the same content.'),
  must(
    'X-VAL-005',
    'Quote response',
    '`requestId` is generated per request and quote ids are unique; the quote detail repeats the quote; `standardOrder` names the requested chains, tokens and amounts; a fresh quote has not expired.',
  ),
  must(
    'X-VAL-006',
    'Page envelope',
    'A page holds at most `limit` items and no more than `total_count`; `has_more` is true exactly when items remain beyond the page; `next_cursor` is null exactly when `has_more` is false.',
  ),
  must(
    'X-VAL-007',
    'Limits',
    '`X-RateLimit-Remaining` lies between 0 and `X-RateLimit-Limit`; `X-RateLimit-Reset` is a UTC epoch in seconds.',
  ),
  should('X-VAL-008', 'Health', '`uptimeSeconds` grows between two reads and `version` stays the same.'),
  must(
    'B-VAL-001',
    'WebSocket protocol',
    'A Reference B subscription delivers only events of its channel patterns and, with `corridors`, only events of those corridors.',
  ),
  must(
    'B-VAL-002',
    'Reference B event types',
    'An accepted settlement completes: its events name the RFQ, quote and settlement accepted, `settlement.complete` names the escrow transaction of `settlement.pending`, and both transactions are on their chains.',
  ),
  // Project-defined shapes of routes the spec lists with bodies "not shown" (docs/service-platform.md, docs/deferred.md).
  project(
    'P-MEM-001',
    'Endpoints (members: not shown)',
    'Workspace members at `/api/v1/workspaces/{id}/members`: cursor page; add (201), read, change role, remove; roles admin, developer, viewer.',
  ),
  project(
    'P-CPT-001',
    'Endpoints (counterparties: not shown)',
    '`POST /api/v1/counterparties` registers and screens a counterparty (201 with `screening.status`); it is listed and readable; a sanctioned jurisdiction fails screening.',
  ),
  project(
    'P-DEF-001',
    'Endpoints (deferred balance: not shown)',
    '`GET /api/v1/deferred/balance` answers `{object: deferred_balance, account, balances: [{chainId, token, available, held}]}` with integer strings.',
  ),
  project('P-ADM-001', 'Endpoints (admin approvals: not shown)', '`GET /api/v1/admin/approvals` answers a cursor page of approvals.'),
  project(
    'P-AUTH-001',
    'Endpoints (sessions: not shown)',
    'A session ends with `DELETE /api/v1/auth/sessions/{id}`: its token answers 401 from then on.',
  ),
];

export const SPEC_FILE = SPEC;
