/**
 * A typed REST client of the settlement service (Reference A) for takers, solvers, scenarios and conformance.
 * It speaks only HTTP: nothing here imports the service, so it can certify any deployment.
 */
import { BaseError } from '../contracts/errors/base-error.js';
import type { z } from 'zod';
import type * as Auction from '../contracts/wire/auction.js';
import type * as Corridors from '../contracts/wire/corridors.js';
import type * as Orders from '../contracts/wire/orders.js';
import { fetchTransport, type HttpTransport, nodeHttpTransport } from './http-transport.js';

// The wire types are the service's own zod schemas (src/contracts/wire), read as types: requests as the service
// accepts them (`z.input`), answers as it sends them (`z.output`). Nothing of zod runs in the client.
export type { LockType, OrderStatus, Preference, SettlementPath, SwapType } from '../contracts/wire/enums.js';

export type TokenQuoteRequest = z.input<typeof Auction.QuoteRequestFields>;
export type PairQuoteRequest = z.input<typeof Auction.PairQuoteRequestFields>;
export type QuoteRequest = TokenQuoteRequest | PairQuoteRequest;

/** EIP-712 payload in JSON form (uints as decimal strings): pass it through `typedDataFromJson` before signing. */
export type TypedDataJson = z.output<typeof Auction.TypedDataWire>;
export type Quote = z.output<typeof Auction.Quote>;
export type QuoteResponse = z.output<typeof Auction.QuoteResponse>;
export type QuoteDetail = z.output<typeof Auction.QuoteDetail>;
/** Reference B view of an RFQ: every invited solver and its response. */
export type RfqView = z.output<typeof Auction.RfqView>;
export type Corridor = z.output<typeof Corridors.Corridor>;
export type SolverRegistrationRequest = z.input<typeof Auction.SolverRegistrationRequest>;
export type SolverRegistration = z.output<typeof Auction.SolverRegistration>;
export type SolverToken = z.output<typeof Auction.SolverToken>;
export type SolverStats = Auction.SolverStats;
export type Solver = z.output<typeof Auction.Solver>;
export type LeaderboardRow = z.output<typeof Auction.LeaderboardRow>;
export type OrderCreateRequest = z.input<typeof Orders.CreateOrderRequest>;
export type OrderCreated = z.output<typeof Orders.OrderCreated>;
export type OrderDetail = z.output<typeof Orders.OrderDetail>;

/** A page of a list route (the service's `pageSchema`). */
export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
  total_count: number;
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
  /** Sends every request through this `fetch` instead of node's http client (a recording wrapper, another runtime). */
  fetch?: typeof fetch;
}

export class RestClient {
  readonly baseUrl: string;
  private readonly apiKey: string | undefined;
  private readonly timeoutMs: number;
  private readonly transport: HttpTransport;

  constructor(options: RestClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
    this.apiKey = options.apiKey;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.transport = options.fetch === undefined ? nodeHttpTransport : fetchTransport(options.fetch);
  }

  /** Any route: `path` below the host, e.g. `/api/v1/corridors`. Throws ApiRequestError on non-2xx. */
  async request<T>(method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<T> {
    const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
    const key = options.apiKey === undefined ? this.apiKey : options.apiKey;
    if (key !== undefined && key !== null) headers.Authorization = `Bearer ${key}`;
    if (options.idempotencyKey !== undefined) headers['Idempotency-Key'] = options.idempotencyKey;
    if (options.attestation !== undefined) headers['X-Service-Attestation'] = options.attestation;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await this.transport(`${this.baseUrl}${path}`, {
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
  rotateSolverToken(solverId: string): Promise<SolverToken> {
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
