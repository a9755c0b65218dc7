import { WebSocketServer } from 'ws';
import type { OutboxRepository, StoredEvent } from '../events/outbox.js';
import type { PriceFeed, PriceUpdate } from '../events/price-feed.js';
import type { EvidenceModule } from '../evidence/module.js';
import type { RunningContext, ServiceContext, ServiceModule } from '../module.js';
import { ConnectionLimit, SharedConnectionCount, wsConnectionMigrations } from './connection-limit.js';
import { CloseCode } from './taker-stream-messages.js';
import { DEFAULT_TAKER_STREAM_SETTINGS, TakerStreamSession, type SessionDeps, type TakerStreamSettings } from './taker-stream-session.js';

export const TAKER_STREAM_PATH = '/api/v1/ws';

export interface TakerStreamModuleOptions {
  evidence: EvidenceModule;
  prices: PriceFeed;
  settings?: Partial<TakerStreamSettings>;
}

/**
 * `/api/v1/ws`: the taker's real-time stream (best effort, sub-second). Committed outbox events, whichever
 * instance of the store committed them, fan out to the authenticated connections of their workspace whose topics
 * or channels match; prices come from the PriceFeed.
 */
export class TakerStreamModule implements ServiceModule {
  readonly name = 'taker-stream';
  /** The WebSocket connection rows of several instances (both streams' caps count them). */
  readonly migrations = wsConnectionMigrations;
  private sharedCount: SharedConnectionCount | undefined;
  readonly settings: TakerStreamSettings;
  private readonly sessions = new Set<TakerStreamSession>();
  private readonly byWorkspace = new Map<string, Set<TakerStreamSession>>();
  private readonly unsubscribe: Array<() => void> = [];
  private server: WebSocketServer | undefined;
  private deps: SessionDeps | undefined;
  private docBase = '';

  constructor(private readonly options: TakerStreamModuleOptions) {
    this.settings = { ...DEFAULT_TAKER_STREAM_SETTINGS, ...options.settings };
  }

  setup(context: ServiceContext): void {
    // Several instances on one store: a key's cap counts its connections on all of them.
    if (context.instance.bus.shared) {
      this.sharedCount = new SharedConnectionCount(context.store, context.instance.id, 'taker', () => context.clock.now());
    }
    const server = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
    this.server = server;
    const outbox: OutboxRepository = this.options.evidence.outbox;
    this.deps = {
      clock: context.clock,
      settings: this.settings,
      environment: context.config.environment,
      authenticate: (token) => context.authenticator.fromToken(token),
      limit: new ConnectionLimit(this.settings.maxConnectionsPerKey, this.sharedCount),
      outbox,
      prices: this.options.prices,
      directory: {
        chains: context.config.chains,
        find: (...args) => context.corridors.find(...args),
        get: (id) => context.corridors.get(id),
      },
      docUrl: (code) => `${this.docBase}/docs/errors#${code}`,
      joined: (session) => this.join(session),
      left: (session) => this.leave(session),
    };
    this.docBase = context.config.publicUrl ?? '';
    context.upgrades.add(TAKER_STREAM_PATH, (req, socket, head) => {
      server.handleUpgrade(req, socket, head, (ws) => {
        const session = new TakerStreamSession(ws, this.deps!);
        this.sessions.add(session);
        const url = new URL(req.url ?? '/', 'http://localhost');
        const header = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
        const token = url.searchParams.get('token') ?? header;
        if (token !== undefined && token !== null && token !== '') void session.authenticate(token);
      });
    });
  }

  start(context: RunningContext): void {
    this.sharedCount?.pruneDead();
    this.docBase = context.config.publicUrl ?? context.url;
    const { outbox } = this.options.evidence;
    this.unsubscribe.push(
      outbox.onCommitted((event) => this.fanOutEvent(event)),
      // Clients connected here hear the events committed on the other instances of the store too.
      outbox.followInstances(context.instance.bus, { logger: context.logger }),
      this.options.prices.subscribe((update) => this.fanOutPrice(update)),
    );
  }

  stop(): void {
    for (const unsubscribe of this.unsubscribe.splice(0)) unsubscribe();
    for (const session of [...this.sessions]) session.close(CloseCode.goingAway, 'server stopping');
    this.server?.close();
  }

  /** The feed behind `prices:` topics (the auction publishes into the same instance). */
  get prices(): PriceFeed {
    return this.options.prices;
  }

  /** Open connections (authenticated or not); tests and status pages read it. */
  get connectionCount(): number {
    return this.sessions.size;
  }

  private join(session: TakerStreamSession): void {
    const workspaceId = session.auth!.workspaceId;
    let set = this.byWorkspace.get(workspaceId);
    if (set === undefined) {
      set = new Set();
      this.byWorkspace.set(workspaceId, set);
    }
    set.add(session);
  }

  private leave(session: TakerStreamSession): void {
    this.sessions.delete(session);
    const workspaceId = session.auth?.workspaceId;
    if (workspaceId === undefined) return;
    const set = this.byWorkspace.get(workspaceId);
    set?.delete(session);
    if (set?.size === 0) this.byWorkspace.delete(workspaceId);
  }

  private fanOutEvent(event: StoredEvent): void {
    if (event.workspaceId === null) return;
    const sessions = this.byWorkspace.get(event.workspaceId);
    if (sessions === undefined) return;
    const text = event.json;
    for (const session of sessions) session.deliverEvent(event, text);
  }

  private fanOutPrice(update: PriceUpdate): void {
    for (const session of this.sessions) if (session.auth !== undefined) session.deliverPrice(update);
  }
}
