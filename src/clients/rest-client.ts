/**
 * A typed REST client of the settlement service (Reference A) for takers, solvers, scenarios and conformance.
 * It speaks only HTTP: nothing here imports the service, so it can certify any deployment.
 */
import type { StandardOrderWire } from '../contracts/standard-order-wire.js';
import { BaseError } from '../contracts/errors/base-error.js';

export type LockType = 'Permit2Escrow' | 'EIP3009Escrow' | 'ResourceLock';
export type SettlementPath = 'direct' | 'compliant' | 'deferred';
export type Preference = 'price' | 'speed' | 'reliability';
export type SwapType = 'exactInput' | 'exactOutput';

export interface TokenQuoteRequest {
  inputToken: string;
  outputToken: string;
  /** Required unless swapType is exactOutput. */
  inputAmount?: string;
  /** exactOutput only. */
  outputAmount?: string;
  originChainId: number;
  destinationChainId: number;
  preference?: Preference;
  swapType?: SwapType;
  lockType?: LockType;
  settlementPath?: SettlementPath;
  /** Taker address: quotes then carry standardOrder + typedData with the taker's nonce. */
  user?: string;
}

export interface PairQuoteRequest {
  /** `<INPUT>/<OUTPUT>` symbols, e.g. `USDC/USDC`. */
  pair: string;
  side: 'buy' | 'sell';
  /** Decimal string of whole tokens. */
  amount: string;
  chain?: string;
  destinationChain?: string;
  preference?: Preference;
  lockType?: LockType;
  settlementPath?: SettlementPath;
  user?: string;
}

export type QuoteRequest = TokenQuoteRequest | PairQuoteRequest;

/** EIP-712 payload in JSON form (uints as decimal strings): pass it through `typedDataFromJson` before signing. */
export interface TypedDataJson {
  domain: { name: string; version?: string; chainId: string; verifyingContract: string };
  types: Record<string, Array<{ name: string; type: string }>>;
  primaryType: string;
  message: Record<string, unknown>;
}

export interface Quote {
  quoteId: string;
  solverId: string;
  inputAmount: string;
  outputAmount: string;
  feeBps: number;
  priceImpactBps: number;
  expiresAt: string;
  settlementPath: SettlementPath;
  lockType: LockType;
  rank: number;
  latencyMs: number;
  nonce?: string;
  standardOrder?: StandardOrderWire;
  typedData?: TypedDataJson;
}

export interface QuoteResponse {
  rfqId: string;
  quotes: Quote[];
  uccpBps: number;
  corridor: string;
  requestId: string;
  preference: Preference;
  swapType: SwapType;
  fillDeadline: number;
  expires: number;
}

export interface QuoteDetail {
  quoteId: string;
  rfqId: string;
  status: 'open' | 'expired' | 'accepted';
  solverId: string;
  corridor: string;
  originChainId: number;
  destinationChainId: number;
  inputToken: string;
  outputToken: string;
  inputAmount: string;
  outputAmount: string;
  feeBps: number;
  priceImpactBps: number;
  settlementPath: SettlementPath;
  lockType: LockType;
  swapType: SwapType;
  createdAt: string;
  expiresAt: string;
  fillDeadline: number;
  expires: number;
  orderId: string | null;
  user: string | null;
  nonce: string | null;
  onchainOrderId: string | null;
  standardOrder: StandardOrderWire;
  typedData: TypedDataJson | null;
}

export interface RfqView {
  rfqId: string;
  status: 'collecting' | 'quoted' | 'no_quotes';
  corridor: string;
  pair: string;
  side: 'buy' | 'sell';
  amount: string;
  swapType: SwapType;
  preference: Preference;
  lockType: LockType;
  settlementPath: SettlementPath;
  createdAt: string;
  closedAt: string | null;
  deadline: number;
  responses: Array<{
    solverId: string;
    solverName: string | null;
    outcome: 'quoted' | 'declined' | 'rejected' | 'silent';
    quoteId: string | null;
    rank: number | null;
    price: string | null;
    inputAmount: string | null;
    outputAmount: string | null;
    feeBps: number | null;
    latencyMs: number | null;
    fillRate: number | null;
    quoteStatus: 'open' | 'expired' | 'accepted' | null;
    reason: string | null;
  }>;
}

export interface Corridor {
  id: string;
  originChainId: number;
  destinationChainId: number;
  inputToken: { address: string; symbol: string; decimals: number };
  outputToken: { address: string; symbol: string; decimals: number };
  solverCount: number;
  minNotional: string;
  maxNotional: string;
  oracle: string;
  lockTypes: LockType[];
}

export interface SolverRegistrationRequest {
  name: string;
  corridors: string[];
  callbackUrl?: string;
  address?: string;
}

export interface SolverRegistration {
  solverId: string;
  name: string;
  corridors: string[];
  callbackUrl: string | null;
  address: string | null;
  wsToken: string;
  wsUrl: string;
  createdAt: string;
}

export interface SolverStats {
  quotes: number;
  rfqsInvited: number;
  responseRate: number | null;
  medianQuoteLatencyMs: number | null;
  bestQuotes: number;
  wins: number;
  filled: number;
  failed: number;
  fillRate: number | null;
  volume: string;
}

export interface Solver {
  solverId: string;
  name: string;
  corridors: string[];
  createdAt: string;
  connected: boolean;
  connections: number;
  stats: SolverStats;
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
  total_count: number;
}

export interface LeaderboardRow extends SolverStats {
  rank: number;
  solverId: string;
  name: string;
}

export interface OrderCreateRequest {
  quoteId: string;
  signature: string;
  nonce: number | string;
  /** The taker (when the quote was not requested with `user`). */
  user?: string;
}

export type OrderStatus = 'Deposited' | 'Filled' | 'Attested' | 'Claimed' | 'Refunded';

export interface OrderCreated {
  orderId: string;
  quoteId: string;
  status: OrderStatus;
  settlementPath: SettlementPath;
  originTxHash: string;
  destinationTxHash: string | null;
  createdAt: string;
  fillDeadline: string;
  [extra: string]: unknown;
}

export interface OrderDetail {
  orderId: string;
  status: OrderStatus;
  settlementPath: SettlementPath;
  originChainId: number;
  destinationChainId: number;
  inputAmount: string;
  outputAmount: string;
  originTxHash: string | null;
  destinationTxHash: string | null;
  oracleAttestationHash: string | null;
  settledAt: string | null;
  [extra: string]: unknown;
}

/** A non-2xx answer, with the fields of both error formats (A: type/param/doc_url; B: code only). */
export class ApiRequestError extends BaseError {
  override readonly name = 'ApiRequestError';
  readonly status: number;
  readonly type: string | undefined;
  override readonly code: string | undefined;
  readonly param: string | undefined;
  readonly docUrl: string | undefined;
  readonly requestId: string | undefined;
  readonly body: unknown;

  constructor(method: string, path: string, status: number, body: unknown, requestId: string | undefined) {
    const error = (body as { error?: Record<string, unknown> } | undefined)?.error ?? {};
    const text = (key: string) => (typeof error[key] === 'string' ? (error[key] as string) : undefined);
    super(`${method} ${path} → ${status}${text('code') ? ` ${text('code')}` : ''}: ${text('message') ?? 'request failed'}`);
    this.status = status;
    this.type = text('type');
    this.code = text('code');
    this.param = text('param');
    this.docUrl = text('doc_url');
    this.requestId = requestId;
    this.body = body;
  }
}

export interface RequestOptions {
  idempotencyKey?: string;
  /** `X-Service-Attestation` (compliant operations). */
  attestation?: string;
  headers?: Record<string, string>;
  /** Overrides the client's key for this request; `null` sends none. */
  apiKey?: string | null;
}

export interface RestClientOptions {
  /** Service base URL, e.g. `http://127.0.0.1:48211` (with or without `/api/v1`). */
  baseUrl: string;
  /** `svc_test_…` / `svc_live_…`; public routes work without. */
  apiKey?: string;
  /** Abort a request after this long (default 30 s). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export class RestClient {
  readonly baseUrl: string;
  private readonly apiKey: string | undefined;
  private readonly timeoutMs: number;
  private readonly fetch: typeof fetch;

  constructor(options: RestClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
    this.apiKey = options.apiKey;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.fetch = options.fetch ?? fetch;
  }

  /** Any route: `path` below the host, e.g. `/api/v1/corridors`. Throws ApiRequestError on non-2xx. */
  async request<T>(method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<T> {
    const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
    const key = options.apiKey === undefined ? this.apiKey : options.apiKey;
    if (key !== undefined && key !== null) headers.Authorization = `Bearer ${key}`;
    if (options.idempotencyKey !== undefined) headers['Idempotency-Key'] = options.idempotencyKey;
    if (options.attestation !== undefined) headers['X-Service-Attestation'] = options.attestation;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await this.fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = text;
    }
    if (!response.ok) throw new ApiRequestError(method, path, response.status, parsed, response.headers.get('x-request-id') ?? undefined);
    return parsed as T;
  }

  health(): Promise<{ ok: boolean; environment: string; version: string; uptimeSeconds: number }> {
    return this.request('GET', '/api/v1/health');
  }

  async corridors(): Promise<Corridor[]> {
    return (await this.request<{ corridors: Corridor[] }>('GET', '/api/v1/corridors')).corridors;
  }

  /** Runs an auction; resolves with the ranked quotes (422 `corridor_unavailable` when nobody quoted). */
  requestQuotes(request: QuoteRequest, options?: RequestOptions): Promise<QuoteResponse> {
    return this.request('POST', '/api/v1/quotes', request, options);
  }

  getQuote(quoteId: string, query: { user?: string } = {}): Promise<QuoteDetail> {
    const search = query.user === undefined ? '' : `?user=${encodeURIComponent(query.user)}`;
    return this.request('GET', `/api/v1/quotes/${encodeURIComponent(quoteId)}${search}`);
  }

  /** Reference B view of an RFQ (every solver response). */
  getRfq(rfqId: string): Promise<RfqView> {
    return this.request('GET', `/api/v1/quotes/${encodeURIComponent(rfqId)}`);
  }

  createOrder(order: OrderCreateRequest, options?: RequestOptions): Promise<OrderCreated> {
    return this.request('POST', '/api/v1/orders', order, options);
  }

  getOrder(orderId: string): Promise<OrderDetail> {
    return this.request('GET', `/api/v1/orders/${encodeURIComponent(orderId)}`);
  }

  registerSolver(registration: SolverRegistrationRequest, options?: RequestOptions): Promise<SolverRegistration> {
    return this.request('POST', '/api/v1/solvers/register', registration, options);
  }

  /** A new wsToken for one of the caller's solvers (the previous one stops working). */
  rotateSolverToken(solverId: string): Promise<{ solverId: string; wsToken: string; wsUrl: string }> {
    return this.request('POST', `/api/v1/solvers/${encodeURIComponent(solverId)}/ws-token`);
  }

  listSolvers(query: { owned?: boolean; limit?: number; after?: string; before?: string } = {}): Promise<Page<Solver>> {
    const params = new URLSearchParams();
    if (query.owned !== undefined) params.set('owned', String(query.owned));
    if (query.limit !== undefined) params.set('limit', String(query.limit));
    if (query.after !== undefined) params.set('after', query.after);
    if (query.before !== undefined) params.set('before', query.before);
    const search = params.size === 0 ? '' : `?${params}`;
    return this.request('GET', `/api/v1/solvers${search}`);
  }

  getSolver(solverId: string): Promise<Solver> {
    return this.request('GET', `/api/v1/solvers/${encodeURIComponent(solverId)}`);
  }

  async leaderboard(): Promise<LeaderboardRow[]> {
    return (await this.request<{ data: LeaderboardRow[] }>('GET', '/api/v1/leaderboard')).data;
  }
}
