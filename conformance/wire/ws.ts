import WebSocket from 'ws';
import type { WsEvidence } from '../core/types.js';
import { clip } from './http.js';

export type WsMessage = Record<string, unknown> & { type?: unknown };

export interface WsOpenOptions {
  headers?: Record<string, string>;
  label?: string;
  timeoutMs?: number;
}

/** How a WebSocket connection attempt ended when it never opened. */
export interface WsRefusal {
  refused: true;
  status?: number;
  body?: string;
  error: string;
}

/**
 * One WebSocket connection with its transcript: every frame both ways (the evidence), JSON messages parsed,
 * and waits for a message that matches. The certifier's own helper, independent of the service.
 */
export class WsSession {
  readonly evidence: WsEvidence;
  readonly messages: WsMessage[] = [];
  private readonly socket: WebSocket;
  private readonly opened: number;
  private readonly waiters = new Set<{ match: (m: WsMessage) => boolean; resolve: (m: WsMessage) => void }>();
  readonly closed: Promise<{ code: number; reason: string }>;
  private _autoPong = false;
  private _isClosed = false;

  private constructor(socket: WebSocket, url: string, label: string | undefined) {
    this.socket = socket;
    this.opened = Date.now();
    this.evidence = { kind: 'ws', url: redactUrl(url), frames: [], ...(label === undefined ? {} : { label }) };
    socket.on('message', (data) => {
      const text = data.toString();
      this.evidence.frames.push({ dir: 'received', at: Date.now() - this.opened, data: clip(text, 2_048) });
      let message: WsMessage;
      try {
        const parsed: unknown = JSON.parse(text);
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return;
        message = parsed as WsMessage;
      } catch {
        return;
      }
      this.messages.push(message);
      if (this._autoPong && message.type === 'ping') this.send({ type: 'pong' });
      for (const waiter of [...this.waiters]) {
        if (waiter.match(message)) {
          this.waiters.delete(waiter);
          waiter.resolve(message);
        }
      }
    });
    this.closed = new Promise((resolve) => {
      socket.on('close', (code, reason) => {
        this._isClosed = true;
        this.evidence.close = { code, reason: reason.toString() };
        resolve({ code, reason: reason.toString() });
      });
    });
    socket.on('error', (error) => {
      this.evidence.error = error.message;
    });
  }

  /** Opens a connection; resolves with a refusal (status, body) instead of throwing when the server says no. */
  static async open(url: string, options: WsOpenOptions = {}): Promise<WsSession | WsRefusal> {
    const socket = new WebSocket(url, { headers: options.headers, handshakeTimeout: options.timeoutMs ?? 5_000 });
    return new Promise((resolve) => {
      let session: WsSession | undefined;
      const timer = setTimeout(() => {
        socket.terminate();
        resolve({ refused: true, error: 'no handshake answer in time' });
      }, options.timeoutMs ?? 5_000);
      socket.once('open', () => {
        clearTimeout(timer);
        resolve(session!);
      });
      socket.once('unexpected-response', (_request, response) => {
        clearTimeout(timer);
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () =>
          resolve({ refused: true, status: response.statusCode, body: clip(body, 2_048), error: `HTTP ${response.statusCode}` }),
        );
        response.on('error', () => resolve({ refused: true, status: response.statusCode, error: `HTTP ${response.statusCode}` }));
      });
      socket.once('error', (error) => {
        clearTimeout(timer);
        resolve({ refused: true, error: error.message });
      });
      session = new WsSession(socket, url, options.label);
    });
  }

  get isClosed(): boolean {
    return this._isClosed;
  }

  /** Answers every `{type: ping}` with `{type: pong}` from now on. */
  autoPong(on = true): void {
    this._autoPong = on;
  }

  send(message: unknown): void {
    const text = typeof message === 'string' ? message : JSON.stringify(message);
    this.evidence.frames.push({ dir: 'sent', at: Date.now() - this.opened, data: clip(text, 2_048) });
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(text);
  }

  /** The next message (already received ones included, from `since`) that matches, or undefined after the timeout. */
  async next(match: (message: WsMessage) => boolean, timeoutMs: number, since = 0): Promise<WsMessage | undefined> {
    const seen = this.messages.slice(since).find(match);
    if (seen) return seen;
    if (this._isClosed) return undefined;
    return new Promise((resolve) => {
      const waiter = {
        match,
        resolve: (message: WsMessage) => {
          clearTimeout(timer);
          resolve(message);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        resolve(undefined);
      }, timeoutMs);
      this.waiters.add(waiter);
      void this.closed.then(() => {
        if (this.waiters.delete(waiter)) {
          clearTimeout(timer);
          resolve(this.messages.slice(since).find(match));
        }
      });
    });
  }

  /** Waits for the type, e.g. `auth.ok`; errors and closes end the wait early. */
  nextOfType(type: string, timeoutMs: number, since = 0): Promise<WsMessage | undefined> {
    return this.next((m) => m.type === type, timeoutMs, since);
  }

  /** Resolves true when the server closed the connection within the time. */
  async closesWithin(ms: number): Promise<boolean> {
    if (this._isClosed) return true;
    return Promise.race([this.closed.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);
  }

  close(): Promise<void> {
    if (this._isClosed) return Promise.resolve();
    this.socket.close(1000, 'conformance done');
    const forced = setTimeout(() => this.socket.terminate(), 1_000);
    return this.closed.then(() => clearTimeout(forced));
  }
}

export function isRefusal(value: WsSession | WsRefusal): value is WsRefusal {
  return (value as WsRefusal).refused === true;
}

function redactUrl(url: string): string {
  return url.replace(/([?&]token=)([^&]+)/, (_m, p: string, token: string) => `${p}${token.slice(0, 12)}…`);
}
