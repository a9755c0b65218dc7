import WebSocket from 'ws';
import { BaseError } from '../contracts/errors/base-error.js';

/**
 * A client of the taker stream (`/api/v1/ws`): authenticates, subscribes to Reference A topics or Reference B
 * channels, answers pings, and reconnects with exponential backoff (1 s doubling, capped at 30 s), resuming with
 * the id of the last event it saw as the replay cursor so a short outage loses nothing. Events are de-duplicated
 * by id. Used by scenarios, conformance checks and anyone integrating from TypeScript.
 */

export interface StreamEvent {
  type: string;
  id: string;
  timestamp?: string;
  [field: string]: unknown;
}

export interface StreamMessage {
  type: string;
  [field: string]: unknown;
}

export interface StreamErrorBody {
  type: string;
  code: string;
  message: string;
  param?: string;
  doc_url?: string;
}

export class TakerStreamError extends BaseError {
  override readonly name = 'TakerStreamError';
  constructor(
    message: string,
    override readonly code: string,
    readonly error?: StreamErrorBody,
    readonly closeCode?: number,
  ) {
    super(message);
  }
}

export interface ReconnectOptions {
  /** First wait after a drop; default 1 000 ms. */
  initialDelayMs?: number;
  /** Longest wait; default 30 000 ms. */
  maxDelayMs?: number;
  /** Give up after this many failed reconnects in a row; default unlimited. */
  maxAttempts?: number;
}

export interface TakerStreamClientOptions {
  /** `ws://host:port/api/v1/ws` */
  url: string;
  /** API key (`svc_test_…` / `svc_live_…`) or session token. */
  token: string;
  /** `message` (default) keeps the key out of URLs and access logs; `query` uses `?token=`. */
  authMethod?: 'message' | 'query';
  /** `false` to stay down after a drop. */
  reconnect?: false | ReconnectOptions;
  /** After `events.dropped`, ask for the missed events again with a cursor (default true). */
  recoverDrops?: boolean;
  /** How long to wait for an answer from the server; default 10 000 ms. */
  timeoutMs?: number;
}

export interface Subscription {
  topics?: string[];
  channels?: string[];
  corridors?: string[];
}

export interface SubscribeResult {
  ok: StreamMessage;
  /** Present when a cursor was sent. */
  replay?: { replayed: number; truncated: boolean; cursor: string };
}

type Listener = (message: StreamMessage) => void;

interface PendingReply {
  accept: (type: string) => boolean;
  resolve: (message: StreamMessage) => void;
  reject: (error: Error) => void;
}

const CONTROL = new Set(['auth.ok', 'subscribe.ok', 'unsubscribe.ok', 'replay.done', 'events.dropped', 'ping', 'pong', 'error', 'price']);
const SEEN_IDS = 2_000;

export class TakerStreamClient {
  environment: string | undefined;
  workspaceId: string | undefined;
  /** Id of the newest event received: the cursor for a replay. */
  lastEventId: string | undefined;
  private ws: WebSocket | undefined;
  private closedByUser = false;
  private reconnects = 0;
  private readonly subscriptions: Subscription[] = [];
  private readonly listeners = new Set<Listener>();
  private readonly replies: PendingReply[] = [];
  private readonly seen = new Set<string>();
  private readonly queue: StreamMessage[] = [];
  private readonly waiters: Array<() => void> = [];
  private lastClose: { code: number; reason: string } | undefined;

  private constructor(private readonly options: TakerStreamClientOptions) {}

  /** Connects and authenticates; rejects with TakerStreamError when the server refuses. */
  static async connect(options: TakerStreamClientOptions): Promise<TakerStreamClient> {
    const client = new TakerStreamClient(options);
    await client.open();
    return client;
  }

  get connected(): boolean {
    return this.ws?.readyState === WebSocket.OPEN;
  }

  /** The raw socket, for tests that need to break it. */
  get socket(): WebSocket | undefined {
    return this.ws;
  }

  /** Every message (events, prices and control messages). Returns an unsubscribe function. */
  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Subscribes; with `cursor` the server first replays the events after it (among its last 100) and this
   * resolves once the replay is done. Subscriptions are remembered and renewed after a reconnect.
   */
  async subscribe(subscription: Subscription & { cursor?: string }): Promise<SubscribeResult> {
    const { cursor, ...kept } = subscription;
    const result = await this.subscribeOnce(kept, cursor);
    this.subscriptions.push(kept);
    return result;
  }

  async unsubscribe(subscription: { topics?: string[]; channels?: string[] }): Promise<void> {
    await this.request({ type: 'unsubscribe', ...subscription }, (type) => type === 'unsubscribe.ok');
    for (const kept of this.subscriptions) {
      if (kept.topics) kept.topics = kept.topics.filter((t) => !subscription.topics?.includes(t));
      if (kept.channels) kept.channels = kept.channels.filter((c) => !subscription.channels?.includes(c));
    }
  }

  /** The next message (in arrival order) that satisfies `predicate`; earlier others stay queued. */
  async next(
    predicate: (message: StreamMessage) => boolean = () => true,
    timeoutMs = this.options.timeoutMs ?? 10_000,
  ): Promise<StreamMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.queue.findIndex(predicate);
      if (index >= 0) return this.queue.splice(index, 1)[0]!;
      const left = deadline - Date.now();
      if (left <= 0) throw new TakerStreamError(`no matching message within ${timeoutMs} ms`, 'timeout');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The next event (a message with an `evt_` id), optionally of one type. */
  async nextEvent(type?: string, timeoutMs?: number): Promise<StreamEvent> {
    return (await this.next((m) => isEvent(m) && (type === undefined || m.type === type), timeoutMs)) as StreamEvent;
  }

  close(): void {
    this.closedByUser = true;
    this.ws?.close(1000, 'client closing');
    for (const reply of this.replies.splice(0)) reply.reject(new TakerStreamError('closed', 'closed'));
  }

  private async open(): Promise<void> {
    const { url, token } = this.options;
    const byQuery = this.options.authMethod === 'query';
    const target = byQuery ? `${url}${url.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}` : url;
    // Listen before connecting: with ?token= the answer may arrive together with the handshake.
    const answer = this.awaitReply((type) => type === 'auth.ok');
    const ws = new WebSocket(target);
    this.ws = ws;
    ws.on('message', (data) => this.onMessage(data.toString()));
    ws.on('close', (code, reason) => this.onClose(ws, code, reason.toString()));
    ws.on('error', () => undefined);
    try {
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', (error) => reject(new TakerStreamError(`cannot connect to ${url}: ${error.message}`, 'connect_failed')));
      });
    } catch (error) {
      answer.cancel();
      throw error;
    }
    if (!byQuery) ws.send(JSON.stringify({ type: 'auth', token }));
    const ok = await answer.promise;
    if (ok.type === 'error') {
      const error = ok.error as StreamErrorBody;
      throw new TakerStreamError(`${error.code}: ${error.message}`, error.code, error);
    }
    this.environment = ok.environment as string;
    this.workspaceId = ok.workspaceId as string;
  }

  private async subscribeOnce(subscription: Subscription, cursor: string | undefined): Promise<SubscribeResult> {
    const replayDone = cursor === undefined ? undefined : this.awaitReply((type) => type === 'replay.done', false);
    let ok: StreamMessage;
    try {
      ok = await this.request(
        { type: 'subscribe', ...subscription, ...(cursor === undefined ? {} : { cursor }) },
        (type) => type === 'subscribe.ok',
      );
    } catch (error) {
      replayDone?.cancel();
      throw error;
    }
    if (replayDone === undefined) return { ok };
    const done = await replayDone.promise;
    return { ok, replay: { replayed: done.replayed as number, truncated: done.truncated as boolean, cursor: done.cursor as string } };
  }

  private awaitReply(accept: (type: string) => boolean, takesErrors = true): { promise: Promise<StreamMessage>; cancel(): void } {
    let reply: PendingReply | undefined;
    let timer: NodeJS.Timeout | undefined;
    const promise = new Promise<StreamMessage>((resolve, reject) => {
      reply = {
        accept: (type) => accept(type) || (takesErrors && type === 'error'),
        resolve: (message) => {
          clearTimeout(timer);
          resolve(message);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.replies.push(reply);
      timer = setTimeout(() => {
        this.drop(reply!);
        reject(new TakerStreamError('the server did not answer in time', 'timeout'));
      }, this.options.timeoutMs ?? 10_000);
      timer.unref();
    });
    // A close can reject a reply nobody awaits any more (the connect itself failed first): mark it handled here;
    // whoever awaits `promise` still gets the rejection.
    promise.catch(() => undefined);
    return {
      promise,
      cancel: () => {
        clearTimeout(timer);
        this.drop(reply!);
      },
    };
  }

  private drop(reply: PendingReply): void {
    const index = this.replies.indexOf(reply);
    if (index >= 0) this.replies.splice(index, 1);
  }

  /** Sends `message` (if any) and resolves with the answer the server gives it; an `error` answer rejects. */
  private async request(message: StreamMessage | undefined, accept: (type: string) => boolean): Promise<StreamMessage> {
    const answer = this.awaitReply(accept);
    if (message !== undefined) this.ws?.send(JSON.stringify(message));
    const reply = await answer.promise;
    if (reply.type === 'error') {
      const error = reply.error as StreamErrorBody;
      throw new TakerStreamError(`${error.code}: ${error.message}`, error.code, error);
    }
    return reply;
  }

  private onMessage(text: string): void {
    let message: StreamMessage;
    try {
      message = JSON.parse(text) as StreamMessage;
    } catch {
      return;
    }
    if (message.type === 'ping') {
      this.ws?.send(JSON.stringify({ type: 'pong' }));
      return;
    }
    if (isEvent(message)) {
      if (this.seen.has(message.id)) return;
      this.seen.add(message.id);
      if (this.seen.size > SEEN_IDS) this.seen.delete(this.seen.values().next().value!);
      this.lastEventId = message.id;
    }
    const reply = this.replies.find((pending) => pending.accept(message.type));
    if (reply !== undefined && CONTROL.has(message.type) && message.type !== 'price' && message.type !== 'events.dropped') {
      this.replies.splice(this.replies.indexOf(reply), 1);
      reply.resolve(message);
    }
    if (message.type === 'events.dropped' && this.options.recoverDrops !== false) void this.recoverDrops();
    for (const listener of this.listeners) listener(message);
    this.queue.push(message);
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** Asks again for what the server dropped, from the last event seen before the gap. */
  private async recoverDrops(): Promise<void> {
    const cursor = this.lastEventId;
    if (cursor === undefined) return;
    for (const subscription of this.subscriptions) {
      try {
        await this.subscribeOnce(subscription, cursor);
      } catch {
        // Best effort: the notice stays in the queue for the application to act on.
      }
    }
  }

  private onClose(ws: WebSocket, code: number, reason: string): void {
    if (ws !== this.ws) return;
    this.lastClose = { code, reason };
    for (const reply of this.replies.splice(0)) {
      reply.reject(new TakerStreamError(`connection closed (${code}${reason ? ` ${reason}` : ''})`, 'closed', undefined, code));
    }
    const refused = code === 4401 || code === 4429;
    if (this.closedByUser || this.options.reconnect === false || refused) return;
    void this.reconnect();
  }

  private async reconnect(): Promise<void> {
    const settings = this.options.reconnect === false ? {} : (this.options.reconnect ?? {});
    const initial = settings.initialDelayMs ?? 1_000;
    const max = settings.maxDelayMs ?? 30_000;
    for (;;) {
      if (this.closedByUser) return;
      if (settings.maxAttempts !== undefined && this.reconnects >= settings.maxAttempts) return;
      const delay = Math.min(max, initial * 2 ** this.reconnects);
      this.reconnects += 1;
      await new Promise((resolve) => setTimeout(resolve, delay));
      if (this.closedByUser) return;
      try {
        await this.open();
        for (const subscription of this.subscriptions) await this.subscribeOnce(subscription, this.lastEventId);
        this.reconnects = 0;
        const notice: StreamMessage = { type: 'reconnected', after: this.lastClose };
        for (const listener of this.listeners) listener(notice);
        return;
      } catch {
        // Try again after a longer wait.
      }
    }
  }
}

function isEvent(message: StreamMessage): message is StreamEvent {
  return typeof message.id === 'string' && message.id.startsWith('evt_') && !CONTROL.has(message.type);
}
