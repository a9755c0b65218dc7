import type { WebSocket } from 'ws';
import type { Clock, ScheduledJob } from '../../clock/index.js';
import type { AuthContext } from '../api/auth-context.js';
import { EventPatternSet, isWellFormedPattern } from '../events/event-pattern.js';
import type { OutboxRepository, StoredEvent } from '../events/outbox.js';
import type { PriceFeed, PriceUpdate } from '../events/price-feed.js';
import { parseTopic, StreamSubscriptions, TopicError, type CorridorDirectory, type Topic } from '../events/topics.js';
import { ApiError } from '../errors/api-errors.js';
import type { ConnectionLimit } from './connection-limit.js';
import { ClockHeartbeat } from './heartbeat.js';
import { ClientMessage, CloseCode, type ServerMessage, type WireError } from './taker-stream-messages.js';

export interface TakerStreamSettings {
  /** Clock ms between server pings; a ping unanswered by the next one drops the connection. Default 30 s. */
  pingIntervalMs: number;
  /** Clock ms a connection may stay unauthenticated. Default 30 s. */
  authTimeoutMs: number;
  /** Concurrent connections per credential. Default 5. */
  maxConnectionsPerKey: number;
  /** Bytes queued for one connection above which its events are dropped. Default 1 MiB. */
  maxBufferedBytes: number;
  /** Size of the replay window (the workspace's last N events). Default 100. */
  replayWindow: number;
  /** Topics plus channels one connection may hold. Default 200. */
  maxSubscriptions: number;
}

export const DEFAULT_TAKER_STREAM_SETTINGS: TakerStreamSettings = {
  pingIntervalMs: 30_000,
  authTimeoutMs: 30_000,
  maxConnectionsPerKey: 5,
  maxBufferedBytes: 1024 * 1024,
  replayWindow: 100,
  maxSubscriptions: 200,
};

/** What a session needs of the service; the module provides it. */
export interface SessionDeps {
  clock: Clock;
  settings: TakerStreamSettings;
  environment: string;
  authenticate(token: string): Promise<AuthContext>;
  limit: ConnectionLimit;
  outbox: OutboxRepository;
  prices: PriceFeed;
  directory: CorridorDirectory;
  docUrl(code: string): string;
  /** Called once the session is authenticated, and when it ends. */
  joined(session: TakerStreamSession): void;
  left(session: TakerStreamSession): void;
}

function errorOf(error: ApiError): WireError {
  return { type: error.type, code: error.code, message: error.message, ...(error.param === undefined ? {} : { param: error.param }) };
}

/**
 * One taker connection: authentication (query token or `auth` message), subscriptions, replay by cursor, the
 * clock-timed heartbeat, and a bounded send queue so that a slow reader loses its own events and nobody else's.
 */
export class TakerStreamSession {
  auth: AuthContext | undefined;
  readonly subscriptions = new StreamSubscriptions((patterns) => new EventPatternSet(patterns));
  private readonly heartbeat: ClockHeartbeat;
  private authJob: ScheduledJob | undefined;
  private authenticating = false;
  private release: (() => void) | undefined;
  private closed = false;
  /** Live events at or below this seq were already considered by a replay. */
  private replayedUpTo = 0;
  private dropped: { count: number; first: string; last: string } | undefined;

  constructor(
    readonly socket: WebSocket,
    private readonly deps: SessionDeps,
  ) {
    const { clock, settings } = deps;
    this.heartbeat = new ClockHeartbeat(clock, {
      intervalMs: settings.pingIntervalMs,
      name: 'ws.taker.ping',
      ping: () => {
        this.reportDrops();
        this.send({ type: 'ping' });
      },
      timeout: () => this.close(CloseCode.pongTimeout, 'no pong received'),
    });
    this.heartbeat.start();
    this.authJob = clock.schedule(
      clock.now() + settings.authTimeoutMs,
      () => {
        this.authJob = undefined;
        if (this.auth === undefined)
          this.fail(this.authError('authentication_required', 'Authenticate within 30 seconds.'), CloseCode.unauthorized);
      },
      { name: 'ws.taker.auth-timeout' },
    );
    socket.on('message', (data, isBinary) => this.onMessage(isBinary ? undefined : data.toString()));
    socket.on('close', () => this.onClose());
    socket.on('error', () => undefined);
  }

  get open(): boolean {
    return !this.closed;
  }

  async authenticate(token: string): Promise<void> {
    if (this.auth !== undefined) {
      this.sendError({ type: 'invalid_request', code: 'already_authenticated', message: 'This connection is already authenticated.' });
      return;
    }
    if (this.authenticating) return;
    this.authenticating = true;
    let auth: AuthContext;
    try {
      auth = await this.deps.authenticate(token);
    } catch (error) {
      this.authenticating = false;
      if (error instanceof ApiError) this.fail(errorOf(error), CloseCode.unauthorized);
      else this.fail(this.authError('invalid_api_key', 'The credential could not be verified.'), CloseCode.unauthorized);
      return;
    }
    this.authenticating = false;
    if (this.closed) return;
    if (auth.kind === 'jwt' && auth.mfa === 'pending') {
      this.fail(this.authError('mfa_required', 'Complete MFA for this session before opening a stream.'), CloseCode.unauthorized);
      return;
    }
    const release = this.deps.limit.acquire(auth.keyId);
    if (release === undefined) {
      this.fail(
        {
          type: 'rate_limit_error',
          code: 'too_many_connections',
          message: `This credential already holds ${this.deps.limit.max} WebSocket connections; close one first.`,
        },
        CloseCode.tooManyConnections,
      );
      return;
    }
    this.release = release;
    this.auth = auth;
    if (this.authJob !== undefined) this.deps.clock.cancel(this.authJob);
    this.authJob = undefined;
    this.deps.joined(this);
    this.send({ type: 'auth.ok', environment: this.deps.environment, workspaceId: auth.workspaceId });
  }

  /** A committed event of this session's workspace (the module checked the workspace). */
  deliverEvent(event: StoredEvent, text: string): void {
    if (event.seq <= this.replayedUpTo || !this.subscriptions.matchesEvent(event)) return;
    this.sendEvent(event.envelope.id, text);
  }

  deliverPrice(update: PriceUpdate): void {
    const topic = this.subscriptions.priceTopicFor(update);
    if (topic === undefined) return;
    const text = JSON.stringify({ type: 'price', topic, ...update });
    // Prices are superseded by the next one: a slow reader simply misses some, without a notice.
    if (this.socket.bufferedAmount + text.length > this.deps.settings.maxBufferedBytes) return;
    this.socket.send(text);
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.socket.close(code, reason);
    this.onClose();
  }

  private onClose(): void {
    if (this.closed) return;
    this.closed = true;
    this.heartbeat.stop();
    if (this.authJob !== undefined) this.deps.clock.cancel(this.authJob);
    this.authJob = undefined;
    this.release?.();
    this.deps.left(this);
  }

  private onMessage(text: string | undefined): void {
    if (this.closed) return;
    if (text === undefined) {
      this.sendError({ type: 'invalid_request', code: 'invalid_json', message: 'Messages are JSON text frames.' });
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      this.sendError({ type: 'invalid_request', code: 'invalid_json', message: 'The message is not valid JSON.' });
      return;
    }
    const parsed = ClientMessage.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const known =
        typeof json === 'object' &&
        json !== null &&
        ['auth', 'subscribe', 'unsubscribe', 'pong', 'ping'].includes((json as { type?: string }).type ?? '');
      this.sendError({
        type: 'invalid_request',
        code: known ? 'parameter_invalid' : 'message_type_unknown',
        message: known
          ? `${issue?.path.join('.') || 'message'}: ${issue?.message}`
          : 'type must be auth, subscribe, unsubscribe, ping or pong.',
        param: known ? issue?.path.join('.') || undefined : 'type',
      });
      return;
    }
    const message = parsed.data;
    switch (message.type) {
      case 'pong':
        this.heartbeat.pong();
        return;
      case 'ping':
        this.send({ type: 'pong' });
        return;
      case 'auth':
        void this.authenticate(message.token);
        return;
      default:
        break;
    }
    if (this.auth === undefined) {
      this.sendError(this.authError('authentication_required', 'Send {"type":"auth","token":"<API key>"} first, or connect with ?token=.'));
      return;
    }
    if (message.type === 'subscribe') this.subscribe(message);
    else this.unsubscribe(message);
  }

  private subscribe(message: Extract<ClientMessage, { type: 'subscribe' }>): void {
    const auth = this.auth!;
    const topicsIn = message.topics ?? [];
    const channelsIn = message.channels ?? [];
    if (topicsIn.length === 0 && channelsIn.length === 0) {
      this.sendError({
        type: 'invalid_request',
        code: 'parameter_missing',
        param: 'topics',
        message: 'Name at least one topic (or channel).',
      });
      return;
    }
    const topics: Topic[] = [];
    for (const [index, text] of topicsIn.entries()) {
      try {
        topics.push(parseTopic(text, this.deps.directory));
      } catch (error) {
        if (!(error instanceof TopicError)) throw error;
        this.sendError({ type: 'invalid_request', code: 'topic_invalid', param: `topics.${index}`, message: `${text}: ${error.message}` });
        return;
      }
    }
    for (const [index, pattern] of channelsIn.entries()) {
      if (!isWellFormedPattern(pattern)) {
        this.sendError({
          type: 'invalid_request',
          code: 'topic_invalid',
          param: `channels.${index}`,
          message: `${pattern}: expected an event type or a glob such as settlement.*`,
        });
        return;
      }
    }
    const total = this.subscriptions.topics.length + this.subscriptions.channels.length + topics.length + channelsIn.length;
    if (total > this.deps.settings.maxSubscriptions) {
      this.sendError({
        type: 'invalid_request',
        code: 'too_many_subscriptions',
        param: 'topics',
        message: `A connection holds at most ${this.deps.settings.maxSubscriptions} topics and channels.`,
      });
      return;
    }
    let cursor: StoredEvent | undefined;
    if (message.cursor !== undefined) {
      cursor = this.deps.outbox.byId(message.cursor);
      if (cursor === undefined || cursor.workspaceId !== auth.workspaceId) {
        this.sendError({
          type: 'not_found',
          code: 'cursor_not_found',
          param: 'cursor',
          message: 'No event of this workspace has that id; subscribe without a cursor to start from now.',
        });
        return;
      }
    }

    this.subscriptions.addTopics(topics);
    if (channelsIn.length > 0 || message.corridors !== undefined) this.subscriptions.addChannels(channelsIn, message.corridors);
    this.send({
      type: 'subscribe.ok',
      ...(message.topics === undefined ? {} : { topics: message.topics }),
      ...(message.channels === undefined ? {} : { channels: message.channels }),
      ...(message.corridors === undefined ? {} : { corridors: message.corridors }),
    });
    if (cursor !== undefined) this.replay(auth.workspaceId, cursor);
    this.sendLatestPrices(topics);
  }

  /**
   * Events after the cursor among the workspace's last N, oldest first, then live. Everything here runs
   * synchronously, so no event of this process can commit between the read and the live subscription taking over;
   * another instance's event read here reaches `deliverEvent` later, at or below `replayedUpTo`, and is skipped.
   */
  private replay(workspaceId: string, cursor: StoredEvent): void {
    const window = this.deps.outbox.recentForWorkspace(workspaceId, this.deps.settings.replayWindow);
    const following = window.filter((event) => event.seq > cursor.seq);
    const truncated = this.deps.outbox.countAfter(workspaceId, cursor.seq) > following.length;
    let replayed = 0;
    let last = cursor.envelope.id;
    for (const event of following) {
      if (!this.subscriptions.matchesEvent(event)) continue;
      this.sendEvent(event.envelope.id, event.json);
      replayed += 1;
      last = event.envelope.id;
    }
    this.replayedUpTo = Math.max(this.replayedUpTo, window.at(-1)?.seq ?? cursor.seq);
    this.send({ type: 'replay.done', replayed, truncated, cursor: last });
  }

  private sendLatestPrices(topics: Topic[]): void {
    const now = this.deps.clock.now();
    for (const topic of topics) {
      if (topic.kind !== 'prices') continue;
      for (const update of this.deps.prices.latest(topic.corridor, topic.tier)) {
        if (update.timestamp + update.ttlMs > now) this.deliverPrice(update);
      }
    }
  }

  private unsubscribe(message: Extract<ClientMessage, { type: 'unsubscribe' }>): void {
    this.subscriptions.removeTopics(message.topics ?? []);
    this.subscriptions.removeChannels(message.channels ?? []);
    this.send({
      type: 'unsubscribe.ok',
      ...(message.topics === undefined ? {} : { topics: message.topics }),
      ...(message.channels === undefined ? {} : { channels: message.channels }),
    });
  }

  private sendEvent(id: string, text: string): void {
    if (this.closed) return;
    if (this.socket.bufferedAmount + text.length > this.deps.settings.maxBufferedBytes) {
      this.dropped =
        this.dropped === undefined ? { count: 1, first: id, last: id } : { ...this.dropped, count: this.dropped.count + 1, last: id };
      return;
    }
    this.reportDrops();
    this.socket.send(text);
  }

  /** Once the reader caught up, tells it which events it missed so it can resubscribe with a cursor. */
  private reportDrops(): void {
    const dropped = this.dropped;
    if (dropped === undefined || this.socket.bufferedAmount > this.deps.settings.maxBufferedBytes / 2) return;
    this.dropped = undefined;
    this.send({ type: 'events.dropped', count: dropped.count, firstEventId: dropped.first, lastEventId: dropped.last });
  }

  private send(message: ServerMessage): void {
    if (this.closed || this.socket.readyState !== this.socket.OPEN) return;
    this.socket.send(JSON.stringify(message));
  }

  private sendError(error: WireError): void {
    this.send({ type: 'error', error: { ...error, doc_url: this.deps.docUrl(error.code) } });
  }

  private fail(error: WireError, code: number): void {
    this.sendError(error);
    this.close(code, error.code);
  }

  private authError(code: string, message: string): WireError {
    return { type: 'authentication_error', code, message };
  }
}
