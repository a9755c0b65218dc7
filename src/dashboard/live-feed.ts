/**
 * The taker WebSocket (`/api/v1/ws`) as the spec describes it: authenticate with `{type: auth, token}`,
 * subscribe to topics, answer pings, reconnect with exponential backoff (1 s doubling, capped at 30 s) and
 * resubscribe with the last event id as `cursor` so the service replays what was missed; events already seen
 * are dropped (delivery is at-least-once across reconnects).
 */
import { isObject, str } from './read.js';

export type FeedState = 'connecting' | 'live' | 'reconnecting' | 'closed';

export interface FeedEvent {
  type: string;
  id: string;
  timestamp?: string;
  [field: string]: unknown;
}

export interface LiveFeedOptions {
  url: string;
  token: string;
  topics: string[];
  onEvent(event: FeedEvent): void;
  onState(state: FeedState, detail?: string): void;
  /** After a reconnect or a reported gap: events may have been missed, so re-read what is shown. */
  onResubscribed?(): void;
  /**
   * Asked when the service closes with 4401: false means the key itself is refused, and retrying cannot help.
   * (A sandbox clock advance can also close a connection still authenticating: its auth timeout is clock time.)
   */
  keyStillValid?(): Promise<boolean>;
}

const MAX_BACKOFF_MS = 30_000;
const REMEMBERED_IDS = 2_000;
/** The service refused the credential: retrying with the same key cannot help. */
const UNAUTHORIZED = 4401;

export class LiveFeed {
  private socket: WebSocket | undefined;
  private failures = 0;
  private everLive = false;
  private stopped = false;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private readonly seen = new Set<string>();
  private lastEventId: string | undefined;
  private state: FeedState = 'connecting';
  private useCursor = true;

  constructor(private readonly options: LiveFeedOptions) {}

  start(): void {
    this.stopped = false;
    this.open();
  }

  stop(): void {
    this.stopped = true;
    if (this.retry !== undefined) clearTimeout(this.retry);
    this.socket?.close(1000, 'page closed');
    this.setState('closed');
  }

  private open(): void {
    this.setState(this.everLive ? 'reconnecting' : 'connecting');
    const socket = new WebSocket(this.options.url);
    this.socket = socket;
    socket.onopen = () => socket.send(JSON.stringify({ type: 'auth', token: this.options.token }));
    socket.onmessage = (message) => this.receive(socket, message.data);
    socket.onclose = (close) => {
      if (this.socket !== socket || this.stopped) return;
      if (close.code === UNAUTHORIZED) void this.afterRefusal(close.reason);
      else this.reconnect(close.reason || `closed (${close.code})`);
    };
  }

  private receive(socket: WebSocket, data: unknown): void {
    let message: unknown;
    try {
      message = JSON.parse(String(data));
    } catch {
      return;
    }
    if (!isObject(message)) return;
    const type = str(message, 'type');
    switch (type) {
      case 'auth.ok':
        this.subscribe(socket);
        return;
      case 'subscribe.ok': {
        const wasLive = this.everLive;
        this.everLive = true;
        this.failures = 0;
        this.setState('live');
        if (wasLive) this.options.onResubscribed?.();
        return;
      }
      case 'ping':
        socket.send(JSON.stringify({ type: 'pong' }));
        return;
      case 'events.dropped':
        this.options.onResubscribed?.();
        return;
      case 'error': {
        const code = str(message.error, 'code');
        // The replay window moved past our cursor (or the store was reset): start from now and re-read.
        if (code === 'cursor_not_found' && this.useCursor) {
          this.useCursor = false;
          this.subscribe(socket);
          this.useCursor = true;
          return;
        }
        this.setState(this.state, str(message.error, 'message') ?? 'error');
        return;
      }
      default: {
        const id = str(message, 'id');
        if (type === undefined || id === undefined) return;
        this.lastEventId = id;
        if (this.seen.has(id)) return;
        this.seen.add(id);
        if (this.seen.size > REMEMBERED_IDS) this.seen.delete(this.seen.values().next().value as string);
        this.options.onEvent(message as FeedEvent);
      }
    }
  }

  private subscribe(socket: WebSocket): void {
    const cursor = this.useCursor ? this.lastEventId : undefined;
    socket.send(JSON.stringify({ type: 'subscribe', topics: this.options.topics, ...(cursor === undefined ? {} : { cursor }) }));
  }

  private reconnect(reason: string): void {
    this.failures += 1;
    const delay = Math.min(MAX_BACKOFF_MS, 1_000 * 2 ** Math.min(this.failures - 1, 5));
    this.setState('reconnecting', `${reason}; retry in ${Math.round(delay / 1_000)} s`);
    this.retry = setTimeout(() => this.open(), delay);
  }

  private async afterRefusal(reason: string): Promise<void> {
    const valid = (await this.options.keyStillValid?.().catch(() => true)) ?? false;
    if (this.stopped) return;
    if (valid) {
      this.reconnect(reason || 'authentication interrupted');
      return;
    }
    this.stopped = true;
    this.setState('closed', reason || 'the key was refused');
  }

  private setState(state: FeedState, detail?: string): void {
    this.state = state;
    this.options.onState(state, detail);
  }
}
