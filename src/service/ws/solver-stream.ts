/**
 * The solver stream (`/ws/v1/solver/stream`, also `/ws/solver/stream` and `/v1/ws/solver/stream`): solvers
 * authenticate, subscribe to RFQs of their corridors, answer with quotes on the same socket, and receive the
 * orders they won. It adapts the auction (which knows nothing of sockets) to WebSocket connections.
 */
import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import WebSocket, { WebSocketServer } from 'ws';
import type { ScheduledJob } from '../../clock/index.js';
import type { SolverChannel } from '../auction/quote-service.js';
import { SolverAuthError, type SolverIdentity } from '../auction/solver-registry.js';
import type { SolverNotifier, SolverOrderMessage } from '../auction/types.js';
import type {
  QuoteIntake,
  SolverPresenceObserver,
  SolverStreamOpener,
  SolverStreamOptions,
  SolverStreamPort,
  SolverStreamSettings,
} from '../auction/solver-stream-port.js';
import type { UpgradePaths } from '../module.js';
import { ConnectionLimit, SharedConnectionCount } from './connection-limit.js';
import { ClockHeartbeat, DEFAULT_PING_INTERVAL_MS } from './heartbeat.js';
import {
  closeSocket,
  MAX_CLIENT_MESSAGE_BYTES,
  parseClientMessage,
  queryParam,
  sendJson,
  tokenFromUrl,
  type JsonObject,
} from './json-socket.js';
import {
  AuthMessage,
  channelMatches,
  DeclineMessage,
  QuoteMessage,
  SOLVER_CHANNELS,
  SolverCloseCode,
  SubscribeMessage,
  UnsubscribeMessage,
} from './solver-stream-messages.js';

export type { QuoteIntake, SolverPresenceObserver, SolverStreamSettings };

export const SOLVER_STREAM_PATHS = ['/ws/v1/solver/stream', '/ws/solver/stream', '/v1/ws/solver/stream'] as const;

export const DEFAULT_SOLVER_STREAM_SETTINGS: SolverStreamSettings = {
  pingIntervalMs: DEFAULT_PING_INTERVAL_MS,
  maxConnectionsPerKey: 5,
  authTimeoutMs: 10_000,
};

export interface SolverStreamDeps extends SolverStreamOptions {
  /** Several instances on one store: the per-key cap counts the connections of all of them. */
  connectionCount?: SharedConnectionCount | undefined;
}

const RFQ_EVENT = 'rfq.created';

class SolverConnection {
  /** Its first subscription was answered (see onSolverReady). */
  ready = false;
  identity: SolverIdentity | undefined;
  readonly channels = new Set<string>();
  /** Narrowing of the registered corridors chosen at subscribe; undefined = all registered corridors. */
  corridors: ReadonlySet<string> | undefined;
  heartbeat: ClockHeartbeat | undefined;
  release: (() => void) | undefined;
  authJob: ScheduledJob | undefined;
  authenticating = false;
  closed = false;
  /** Answers still coming back from another instance: later answers wait, so they reach the solver in order. */
  answers: Promise<void> | undefined;

  constructor(
    readonly ws: WebSocket,
    /** Unique within this process (presence rows are keyed by instance id and this). */
    readonly id: string,
  ) {}

  get subscribedToRfqs(): boolean {
    return [...this.channels].some((pattern) => channelMatches(pattern, RFQ_EVENT));
  }

  receivesRfqs(corridorId: string): boolean {
    if (this.closed || this.identity === undefined) return false;
    if (!this.subscribedToRfqs) return false;
    if (!this.identity.corridors.includes(corridorId)) return false;
    return this.corridors === undefined || this.corridors.has(corridorId);
  }

  /** The corridors this connection receives RFQs on. */
  rfqCorridors(): string[] {
    if (this.identity === undefined || !this.subscribedToRfqs) return [];
    const narrowed = this.corridors;
    return this.identity.corridors.filter((corridor) => narrowed === undefined || narrowed.has(corridor));
  }
}

export class SolverStream implements SolverChannel, SolverNotifier, SolverStreamPort {
  private readonly readyListeners = new Set<(solverId: string) => void>();
  private readonly settings: SolverStreamSettings;
  private readonly limit: ConnectionLimit;
  private readonly server = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_MESSAGE_BYTES });
  private readonly connections = new Set<SolverConnection>();
  private readonly bySolver = new Map<string, Set<SolverConnection>>();
  private connectionSequence = 0;

  constructor(private readonly deps: SolverStreamDeps) {
    this.settings = { ...DEFAULT_SOLVER_STREAM_SETTINGS, ...deps.settings };
    this.limit = new ConnectionLimit(this.settings.maxConnectionsPerKey, deps.connectionCount);
  }

  attach(upgrades: UpgradePaths): void {
    for (const path of SOLVER_STREAM_PATHS) {
      upgrades.add(path, (req, socket, head) => this.server.handleUpgrade(req, socket, head, (ws) => this.accept(ws, req)));
    }
  }

  // SolverChannel ------------------------------------------------------------------------------------------------

  eligibleSolvers(corridorId: string): Set<string> {
    const solvers = new Set<string>();
    for (const [solverId, connections] of this.bySolver) {
      for (const connection of connections) {
        if (connection.receivesRfqs(corridorId)) {
          solvers.add(solverId);
          break;
        }
      }
    }
    return solvers;
  }

  broadcast(solverIds: ReadonlySet<string>, corridorId: string, message: unknown, _rfqId?: string): Set<string> {
    const text = JSON.stringify(message);
    const reached = new Set<string>();
    for (const solverId of solverIds) {
      for (const connection of this.bySolver.get(solverId) ?? []) {
        if (!connection.receivesRfqs(corridorId) || connection.ws.readyState !== WebSocket.OPEN) continue;
        connection.ws.send(text);
        reached.add(solverId);
      }
    }
    return reached;
  }

  // SolverNotifier -----------------------------------------------------------------------------------------------

  /** Sends an order message to every live connection of the solver; returns how many got it. */
  notify(solverId: string, message: SolverOrderMessage): number {
    let sent = 0;
    for (const connection of this.bySolver.get(solverId) ?? []) {
      if (!connection.closed && sendJson(connection.ws, message)) sent += 1;
    }
    return sent;
  }

  /** Offers an order nobody won to every authenticated connection subscribed to `order.available`. */
  offer(message: Extract<SolverOrderMessage, { type: 'order.available' }>): number {
    let sent = 0;
    for (const connections of this.bySolver.values()) {
      for (const connection of connections) {
        if (connection.closed || connection.identity === undefined) continue;
        if (![...connection.channels].some((pattern) => channelMatches(pattern, message.type))) continue;
        if (sendJson(connection.ws, message)) sent += 1;
      }
    }
    return sent;
  }

  /** Live authenticated connections of a solver. */
  connectionCount(solverId: string): number {
    return this.bySolver.get(solverId)?.size ?? 0;
  }

  /** Whether a live connection of the solver receives RFQs (on any corridor). */
  listening(solverId: string): boolean {
    return [...(this.bySolver.get(solverId) ?? [])].some((c) => !c.closed && c.identity !== undefined && c.subscribedToRfqs);
  }

  /** Closes every connection (service stop). */
  close(): void {
    for (const connection of [...this.connections]) this._close(connection, SolverCloseCode.goingAway, 'the service is stopping');
    this.server.close();
  }

  // Connections --------------------------------------------------------------------------------------------------

  private accept(ws: WebSocket, req: IncomingMessage): void {
    this.connectionSequence += 1;
    const connection = new SolverConnection(ws, `c${this.connectionSequence}`);
    this.connections.add(connection);
    ws.on('message', (data, isBinary) => this.onMessage(connection, data, isBinary, performance.now()));
    ws.on('close', () => this.onClose(connection));
    ws.on('error', (error) => this.deps.logger.debug({ err: error }, 'solver stream socket error'));
    const { clock } = this.deps;
    connection.heartbeat = new ClockHeartbeat(clock, {
      intervalMs: this.settings.pingIntervalMs,
      name: 'ws.solver.ping',
      ping: () => sendJson(ws, { type: 'ping' }),
      timeout: () => this._close(connection, SolverCloseCode.missedPong, 'no pong received since the last ping'),
    });
    connection.heartbeat.start();
    connection.authJob = clock.schedule(
      clock.now() + this.settings.authTimeoutMs,
      () => {
        connection.authJob = undefined;
        if (connection.identity === undefined && !connection.authenticating) {
          this.refuse(connection, SolverCloseCode.authTimeout, 'auth_timeout', 'authenticate within the allowed time');
        }
      },
      { name: 'ws.solver.auth-timeout' },
    );
    const token = tokenFromUrl(req);
    if (token !== undefined) void this.authenticate(connection, token, queryParam(req, 'solverId'));
  }

  private async authenticate(connection: SolverConnection, token: string, solverId: string | undefined): Promise<void> {
    if (connection.identity !== undefined) {
      this.error(connection, 'already_authenticated', 'this connection is already authenticated');
      return;
    }
    if (connection.authenticating) return;
    connection.authenticating = true;
    let identity: SolverIdentity;
    try {
      identity = await this.deps.authenticate(token, solverId);
    } catch (error) {
      connection.authenticating = false;
      if (error instanceof SolverAuthError) {
        this.refuse(connection, SolverCloseCode.policyViolation, error.code, error.message);
        return;
      }
      this.deps.logger.error({ err: error }, 'solver stream authentication failed unexpectedly');
      this.refuse(connection, 1011, 'internal_error', 'authentication failed; retry later');
      return;
    }
    connection.authenticating = false;
    if (connection.closed) return;
    const release = this.limit.acquire(identity.limitKey);
    if (release === undefined) {
      this.refuse(
        connection,
        SolverCloseCode.policyViolation,
        'connection_limit',
        `connection limit reached: at most ${this.settings.maxConnectionsPerKey} concurrent connections per key`,
      );
      return;
    }
    connection.release = release;
    connection.identity = identity;
    if (connection.authJob !== undefined) this.deps.clock.cancel(connection.authJob);
    connection.authJob = undefined;
    let connections = this.bySolver.get(identity.solverId);
    if (connections === undefined) {
      connections = new Set();
      this.bySolver.set(identity.solverId, connections);
    }
    connections.add(connection);
    this.tellPresence((presence) => presence.connected(connection.id, identity.solverId, connection.rfqCorridors()));
    sendJson(connection.ws, {
      type: 'auth.ok',
      environment: this.deps.environment,
      solverId: identity.solverId,
      corridors: identity.corridors,
    });
  }

  onSolverReady(listener: (solverId: string) => void): () => void {
    this.readyListeners.add(listener);
    return () => this.readyListeners.delete(listener);
  }

  private onMessage(connection: SolverConnection, data: WebSocket.RawData, isBinary: boolean, receivedAt: number): void {
    if (connection.closed) return;
    const parsed = parseClientMessage(data, isBinary);
    if ('error' in parsed) {
      this.error(connection, 'malformed', parsed.error);
      return;
    }
    const message = parsed.message;
    switch (message.type) {
      case 'pong':
        connection.heartbeat?.pong();
        return;
      case 'ping':
        sendJson(connection.ws, { type: 'pong' });
        return;
      case 'auth': {
        const auth = AuthMessage.safeParse(message);
        if (!auth.success) {
          this.invalid(connection, auth.error);
          return;
        }
        void this.authenticate(connection, auth.data.token, auth.data.solverId);
        return;
      }
      default:
        break;
    }
    const identity = connection.identity;
    if (identity === undefined) {
      this.error(connection, 'auth_required', 'send {"type":"auth","token":"…"} first');
      return;
    }
    switch (message.type) {
      case 'subscribe':
        this.subscribe(connection, identity, message);
        return;
      case 'unsubscribe': {
        const unsubscribe = UnsubscribeMessage.safeParse(message);
        if (!unsubscribe.success) {
          this.invalid(connection, unsubscribe.error);
          return;
        }
        for (const channel of unsubscribe.data.channels) connection.channels.delete(channel);
        this.tellPresence((presence) => presence.changed(connection.id, connection.rfqCorridors()));
        sendJson(connection.ws, { type: 'unsubscribe.ok', channels: [...connection.channels] });
        this.checkGone(identity.solverId);
        return;
      }
      case 'quote': {
        const quote = QuoteMessage.safeParse(message);
        if (!quote.success) {
          const issue = quote.error.issues[0];
          const rfqId = typeof message.rfqId === 'string' ? message.rfqId : null;
          const reason = `${issue?.path.join('.') || 'quote'}: ${issue?.message ?? 'invalid'}`;
          if (rfqId !== null) this.deps.intake.malformedQuote(identity.solverId, rfqId, reason);
          this.answer(connection, {
            type: 'quote.rejected',
            rfqId,
            code: 'malformed',
            reason,
            ...(typeof message.clientQuoteId === 'string' ? { clientQuoteId: message.clientQuoteId } : {}),
          });
          return;
        }
        this.answer(connection, this.deps.intake.submitQuote(identity.solverId, quote.data, receivedAt));
        return;
      }
      case 'decline': {
        const decline = DeclineMessage.safeParse(message);
        if (!decline.success) {
          this.invalid(connection, decline.error);
          return;
        }
        this.answer(connection, this.deps.intake.decline(identity.solverId, decline.data.rfqId, decline.data.reason, receivedAt));
        return;
      }
      default:
        this.error(connection, 'message_type_unknown', 'type must be auth, subscribe, unsubscribe, quote, decline, ping or pong', 'type');
    }
  }

  private subscribe(connection: SolverConnection, identity: SolverIdentity, message: JsonObject): void {
    const subscribe = SubscribeMessage.safeParse(message);
    if (!subscribe.success) {
      this.invalid(connection, subscribe.error);
      return;
    }
    const { channels, corridors } = subscribe.data;
    const unknownChannel = channels.findIndex((channel) => !(SOLVER_CHANNELS as readonly string[]).includes(channel));
    if (unknownChannel >= 0) {
      this.error(connection, 'channel_unknown', `channels: one of ${SOLVER_CHANNELS.join(', ')}`, `channels.${unknownChannel}`);
      return;
    }
    const foreign = corridors?.findIndex((corridor) => !identity.corridors.includes(corridor)) ?? -1;
    if (foreign >= 0) {
      this.error(
        connection,
        'corridor_not_registered',
        `${corridors![foreign]} is not among the corridors this solver registered for`,
        `corridors.${foreign}`,
      );
      return;
    }
    for (const channel of channels) connection.channels.add(channel);
    if (corridors !== undefined) connection.corridors = new Set(corridors);
    // Before subscribe.ok: once the solver hears it, every instance of the store counts this connection.
    this.tellPresence((presence) => presence.changed(connection.id, connection.rfqCorridors()));
    sendJson(connection.ws, {
      type: 'subscribe.ok',
      channels: [...connection.channels],
      corridors: connection.corridors === undefined ? [...identity.corridors] : [...connection.corridors],
    });
    this.checkGone(identity.solverId);
    // Its first subscribe.ok, not auth.ok: clients settle their connect on it, so their handlers are in place for
    // what the listeners send (a solver's open assignments).
    if (!connection.ready) {
      connection.ready = true;
      for (const listener of this.readyListeners) {
        try {
          listener(identity.solverId);
        } catch (error) {
          this.deps.logger.warn({ err: error, solverId: identity.solverId }, 'solver stream: a ready listener failed');
        }
      }
    }
  }

  /** Tells the auction to stop waiting for a solver once none of its connections receives RFQs any more. */
  private checkGone(solverId: string): void {
    if (!this.listening(solverId)) this.deps.intake.solverGone(solverId);
  }

  /**
   * Sends the auction's verdict on a quote or decline, now or when it comes back from another instance. Verdicts go
   * out in the order the solver sent its answers (clients pair them by order).
   */
  private answer(connection: SolverConnection, answer: JsonObject | Promise<JsonObject>): void {
    if (!(answer instanceof Promise) && connection.answers === undefined) {
      sendJson(connection.ws, answer);
      return;
    }
    const queued: Promise<void> = (connection.answers ?? Promise.resolve())
      .then(() => answer)
      .then(
        (verdict) => {
          if (!connection.closed) sendJson(connection.ws, verdict);
        },
        (error: unknown) => this.deps.logger.error({ err: error }, 'solver stream: an answer failed'),
      )
      .finally(() => {
        if (connection.answers === queued) connection.answers = undefined;
      });
    connection.answers = queued;
  }

  /** Presence is bookkeeping for other instances: its failure must not break this connection. */
  private tellPresence(tell: (presence: SolverPresenceObserver) => void): void {
    const presence = this.deps.presence;
    if (presence === undefined) return;
    try {
      tell(presence);
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'solver stream: presence not recorded');
    }
  }

  private error(connection: SolverConnection, code: string, message: string, param?: string): void {
    sendJson(connection.ws, { type: 'error', code, message, ...(param === undefined ? {} : { param }) });
  }

  private invalid(connection: SolverConnection, error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> }): void {
    const issue = error.issues[0];
    const param = issue?.path.map(String).join('.') || undefined;
    this.error(connection, 'parameter_invalid', `${param ?? 'message'}: ${issue?.message ?? 'invalid'}`, param);
  }

  /** Explains, then closes: clients that cannot read close reasons still see why. */
  private refuse(connection: SolverConnection, code: number, errorCode: string, message: string): void {
    this.error(connection, errorCode, message);
    this._close(connection, code, message);
  }

  private _close(connection: SolverConnection, code: number, reason: string): void {
    if (!connection.closed) closeSocket(connection.ws, code, reason);
    this.onClose(connection);
  }

  private onClose(connection: SolverConnection): void {
    if (connection.closed) return;
    connection.closed = true;
    this.connections.delete(connection);
    connection.heartbeat?.stop();
    if (connection.authJob !== undefined) this.deps.clock.cancel(connection.authJob);
    connection.authJob = undefined;
    connection.release?.();
    const solverId = connection.identity?.solverId;
    if (solverId === undefined) return;
    const connections = this.bySolver.get(solverId);
    connections?.delete(connection);
    if (connections?.size === 0) this.bySolver.delete(solverId);
    this.tellPresence((presence) => presence.closed(connection.id));
    this.checkGone(solverId);
  }
}

/**
 * The auction's opener (see SolverStreamOpener): a stream on the service's upgrade paths whose per-key cap counts
 * the connections of every instance when several share the store.
 */
export const openSolverStream: SolverStreamOpener = (options, context) => {
  const { clock, store, instance } = context;
  const stream = new SolverStream({
    ...options,
    connectionCount: instance.bus.shared ? new SharedConnectionCount(store, instance.id, 'solver', () => clock.now()) : undefined,
  });
  stream.attach(context.upgrades);
  return stream;
};
