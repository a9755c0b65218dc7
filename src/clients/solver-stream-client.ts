/**
 * Client of the solver stream: authenticate, subscribe to RFQs, answer with quotes (each answer resolves with
 * the server's ack or rejection), and receive the orders won. Optionally reconnects with exponential backoff
 * (1 s doubling to 30 s, as the spec advises) and re-subscribes.
 */
import WebSocket from 'ws';
import type { DeclineAnswer, QuoteAnswer, QuoteMessage, RfqBroadcast, SolverOrderMessage } from '../contracts/solver-stream.js';
import { BaseError } from '../contracts/errors/base-error.js';

/** What a solver sends for a quote: the protocol's `quote` message without its `type`. */
export type QuoteSubmission = Omit<QuoteMessage, 'type'>;

export type {
  DeclineAnswer,
  QuoteAnswer,
  QuoteRejectionCode,
  RfqBroadcast,
  RfqDetails,
  SolverOrderMessage,
  StreamError,
} from '../contracts/solver-stream.js';

export class SolverStreamError extends BaseError {
  override readonly name = 'SolverStreamError';
  constructor(
    override readonly code: string,
    message: string,
    readonly closeCode?: number,
  ) {
    super(message);
  }
}

export interface SolverStreamClientOptions {
  /** `ws://host:port/ws/v1/solver/stream` (the registration's wsUrl). */
  url: string;
  /** wsToken, workspace API key (then `solverId`), or a Reference B solver key. */
  token: string;
  solverId?: string;
  /** Sent as `?token=` instead of an auth message. */
  tokenInUrl?: boolean;
  /** Default `['rfq.*']`; `[]` skips subscribing. */
  channels?: string[];
  corridors?: string[];
  /** Answer `{type: "ping"}` automatically (default true). */
  autoPong?: boolean;
  /** Reconnect after an unexpected close (default false). */
  reconnect?: boolean | { initialDelayMs?: number; maxDelayMs?: number };
  /** Give up connecting/authenticating after this long (default 10 s). */
  connectTimeoutMs?: number;
}

type Listener<T> = (value: T) => void;

/** Order messages kept for a client that has no order listener yet (one that never adds one keeps only these). */
const MAX_EARLY_ORDERS = 100;

interface Pending {
  resolve(answer: QuoteAnswer | DeclineAnswer): void;
  reject(error: Error): void;
}

export class SolverStreamClient {
  solverId: string | undefined;
  environment: string | undefined;
  corridors: string[] = [];
  private readonly options: SolverStreamClientOptions;
  private readonly rfqListeners = new Set<Listener<RfqBroadcast>>();
  private readonly orderListeners = new Set<Listener<SolverOrderMessage>>();
  private readonly messageListeners = new Set<Listener<Record<string, unknown>>>();
  private readonly closeListeners = new Set<Listener<{ code: number; reason: string }>>();
  private readonly pending: Pending[] = [];
  /**
   * The service re-sends a solver's open assignments right after answering its subscription, often in the same TCP
   * read as subscribe.ok: before `connect()` has resolved and its caller could call onOrder.
   */
  private readonly earlyOrders: SolverOrderMessage[] = [];
  private ws: WebSocket | undefined;
  private autoPong: boolean;
  private closedByUser = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private delayMs: number;

  private constructor(options: SolverStreamClientOptions) {
    this.options = options;
    this.autoPong = options.autoPong ?? true;
    this.delayMs = this.backoff().initial;
  }

  /** Connects, authenticates and subscribes; rejects with the server's reason when refused. */
  static async connect(options: SolverStreamClientOptions): Promise<SolverStreamClient> {
    const client = new SolverStreamClient(options);
    await client.open();
    return client;
  }

  get connected(): boolean {
    return this.ws?.readyState === WebSocket.OPEN;
  }

  /** Turn automatic pong answers off (to test a server's missed-pong handling) or on. */
  setAutoPong(enabled: boolean): void {
    this.autoPong = enabled;
  }

  onRfq(listener: Listener<RfqBroadcast>): () => void {
    this.rfqListeners.add(listener);
    return () => this.rfqListeners.delete(listener);
  }

  /** Order messages that arrived before any order listener (e.g. with subscribe.ok) are handed to the first one. */
  onOrder(listener: Listener<SolverOrderMessage>): () => void {
    this.orderListeners.add(listener);
    const early = this.earlyOrders.splice(0);
    for (const message of early) listener(message);
    return () => this.orderListeners.delete(listener);
  }

  /** Every message from the server, as parsed JSON. */
  onMessage(listener: Listener<Record<string, unknown>>): () => void {
    this.messageListeners.add(listener);
    return () => this.messageListeners.delete(listener);
  }

  onClose(listener: Listener<{ code: number; reason: string }>): () => void {
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  /** Sends a quote and resolves with `quote.ack` or `quote.rejected`. */
  quote(submission: QuoteSubmission): Promise<QuoteAnswer> {
    return this.ask({ type: 'quote', ...submission }) as Promise<QuoteAnswer>;
  }

  decline(rfqId: string, reason?: string): Promise<DeclineAnswer> {
    return this.ask({ type: 'decline', rfqId, ...(reason === undefined ? {} : { reason }) }) as Promise<DeclineAnswer>;
  }

  /** Sends any JSON message (for tests of malformed input). */
  send(message: unknown): void {
    if (!this.connected) throw new SolverStreamError('not_connected', 'the solver stream is not connected');
    this.ws!.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /**
   * Drops the connection the way a crashed process does (no close frame) and, when reconnecting is on, comes back
   * after `ms` instead of the usual backoff (the sandbox's `solver.vanish` fault).
   */
  dropFor(ms: number): void {
    const ws = this.ws;
    if (ws === undefined || ws.readyState === WebSocket.CLOSED) return;
    this.delayMs = ms;
    ws.terminate();
  }

  /** Closes for good (no reconnect). */
  async close(): Promise<void> {
    this.closedByUser = true;
    if (this.reconnectTimer !== undefined) clearTimeout(this.reconnectTimer);
    const ws = this.ws;
    if (ws === undefined || ws.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      ws.once('close', () => resolve());
      ws.close(1000, 'client closing');
      setTimeout(() => {
        ws.terminate();
        resolve();
      }, 1_000).unref();
    });
  }

  private ask(message: Record<string, unknown>): Promise<QuoteAnswer | DeclineAnswer> {
    return new Promise((resolve, reject) => {
      if (!this.connected) {
        reject(new SolverStreamError('not_connected', 'the solver stream is not connected'));
        return;
      }
      this.pending.push({ resolve, reject });
      this.ws!.send(JSON.stringify(message));
    });
  }

  private backoff(): { initial: number; max: number } {
    const option = this.options.reconnect;
    const settings = typeof option === 'object' ? option : {};
    return { initial: settings.initialDelayMs ?? 1_000, max: settings.maxDelayMs ?? 30_000 };
  }

  private open(): Promise<void> {
    const { url, token, solverId, tokenInUrl } = this.options;
    const target = new URL(url);
    if (tokenInUrl) {
      target.searchParams.set('token', token);
      if (solverId !== undefined) target.searchParams.set('solverId', solverId);
    }
    const ws = new WebSocket(target);
    this.ws = ws;
    const channels = this.options.channels ?? ['rfq.*'];
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const fail = (error: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        ws.terminate();
        reject(error);
      };
      const timer = setTimeout(
        () => fail(new SolverStreamError('timeout', `no auth.ok from ${url} in time`)),
        this.options.connectTimeoutMs ?? 10_000,
      );
      timer.unref();
      let lastError: { code: string; message: string } | undefined;
      ws.on('open', () => {
        if (!tokenInUrl) ws.send(JSON.stringify({ type: 'auth', token, ...(solverId === undefined ? {} : { solverId }) }));
      });
      ws.on('message', (data) => {
        let message: Record<string, unknown>;
        try {
          message = JSON.parse(data.toString()) as Record<string, unknown>;
        } catch {
          return;
        }
        if (!settled) {
          if (message.type === 'auth.ok') {
            this.solverId = message.solverId as string;
            this.environment = message.environment as string;
            this.corridors = (message.corridors as string[]) ?? [];
            if (channels.length === 0) {
              settled = true;
              clearTimeout(timer);
              this.delayMs = this.backoff().initial;
              resolve();
            } else {
              ws.send(
                JSON.stringify({ type: 'subscribe', channels, ...(this.options.corridors ? { corridors: this.options.corridors } : {}) }),
              );
            }
          } else if (message.type === 'subscribe.ok') {
            settled = true;
            clearTimeout(timer);
            this.delayMs = this.backoff().initial;
            resolve();
          } else if (message.type === 'error') {
            lastError = { code: String(message.code), message: String(message.message) };
            // A refused handshake is followed by a close (whose code is worth reporting); a refused subscribe is not.
            const error = new SolverStreamError(lastError.code, lastError.message);
            if (lastError.code !== 'auth_required') setTimeout(() => fail(error), 250).unref();
          }
        }
        this.dispatch(message);
      });
      ws.on('error', (error) => fail(error));
      ws.on('close', (code, reasonBuffer) => {
        const reason = reasonBuffer.toString();
        fail(new SolverStreamError(lastError?.code ?? 'closed', lastError?.message ?? (reason || `closed with ${code}`), code));
        this._onClose(ws, code, reason);
      });
    });
  }

  private dispatch(message: Record<string, unknown>): void {
    for (const listener of this.messageListeners) listener(message);
    switch (message.type) {
      case 'ping':
        if (this.autoPong && this.connected) this.ws!.send(JSON.stringify({ type: 'pong' }));
        return;
      case 'rfq.created':
        for (const listener of this.rfqListeners) listener(message as unknown as RfqBroadcast);
        return;
      case 'quote.ack':
      case 'quote.rejected':
      case 'decline.ack':
        this.pending.shift()?.resolve(message as unknown as QuoteAnswer);
        return;
      case 'order.assigned':
      case 'order.attested':
      case 'order.refunded':
      case 'order.reorged':
      case 'order.available':
        if (this.orderListeners.size === 0 && this.earlyOrders.push(message as unknown as SolverOrderMessage) > MAX_EARLY_ORDERS)
          this.earlyOrders.shift();
        for (const listener of this.orderListeners) listener(message as unknown as SolverOrderMessage);
        return;
      default:
    }
  }

  private _onClose(ws: WebSocket, code: number, reason: string): void {
    if (this.ws !== ws) return;
    for (const pending of this.pending.splice(0)) pending.reject(new SolverStreamError('closed', `the stream closed (${code})`, code));
    for (const listener of this.closeListeners) listener({ code, reason });
    if (this.closedByUser || !this.options.reconnect) return;
    const delay = this.delayMs;
    this.delayMs = Math.min(this.delayMs * 2, this.backoff().max);
    // Not unref'd: between two connections this timer is all that keeps a solver-only process alive (its socket was
    // the only other handle), and a process whose every stream dropped at once (the replica behind a load balancer
    // died) must come back, not exit. close() clears it.
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (this.closedByUser) return;
      this.open().catch(() => undefined);
    }, delay);
  }
}
