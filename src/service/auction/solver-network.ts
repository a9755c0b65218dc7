/**
 * The solvers of every service instance sharing one Postgres store, as one network. A solver's WebSocket and a
 * taker's `POST /quotes` usually land on different instances; this routes between them over the instance bus:
 *
 * - who is connected where: the presence table (solver-presence.ts), rows of dead instances ignored;
 * - an RFQ run here reaches the solvers connected elsewhere: one bus message, which each instance forwards to its
 *   own connections of the invited solvers, remembering where the RFQ runs;
 * - their quotes and declines travel back to the instance running the auction, which judges them exactly as local
 *   answers (the same Auctioneer, the same window, measured where the solver's socket is: from the RFQ sent on it to
 *   the answer, so the two trips over Postgres cost the solver nothing; auctioneer.ts); its verdict travels back to
 *   the solver's socket;
 * - anything for a solver (order messages, `order.available`) reaches it wherever it is connected.
 *
 * Only for a shared store: on SQLite (a lone instance) the auction uses the solver stream directly.
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Clock } from '../../clock/index.js';
import type { InstanceBus } from '../cluster/instance-bus.js';
import type { SolverChannel } from './auction-deps.js';
import type { AnswerTime, Auctioneer, DeclineAnswer, QuoteAnswer, QuoteRejection, SolverQuoteInput } from './auctioneer.js';
import type { SolverPresenceRepository } from './solver-presence.js';
import type { SolverNotifier, SolverOrderMessage } from './types.js';

/** The solver stream of this process, as the network uses it. */
export interface LocalSolvers extends SolverChannel {
  notify(solverId: string, message: SolverOrderMessage): number;
  offer(message: OrderAvailable): number;
  connectionCount(solverId: string): number;
  /** Whether a live connection of the solver here receives RFQs. */
  listening(solverId: string): boolean;
}

type OrderAvailable = Extract<SolverOrderMessage, { type: 'order.available' }>;

/** The part of the auction that judges answers. */
export type AnswerJudge = Pick<Auctioneer, 'submitQuote' | 'decline' | 'recordMalformed' | 'solverGone' | 'isLive' | 'liveCount'>;

export interface SolverNetworkDeps {
  bus: InstanceBus;
  presence: SolverPresenceRepository;
  auctioneer: AnswerJudge;
  clock: Clock;
  logger: Logger;
  /** The auction window (settings.windowMs): how long a forwarded RFQ takes answers. */
  windowMs: number;
}

const TOPIC = {
  /** An RFQ for solvers connected to other instances. */
  rfq: 'solvers.rfq',
  /** A solver's quote, decline or malformed quote, for the instance running the RFQ. */
  answer: 'solvers.answer',
  /** That instance's verdict, for the instance holding the solver's socket. */
  verdict: 'solvers.verdict',
  /** A solver has no RFQ-receiving connection left on the sender. */
  gone: 'solvers.gone',
  message: 'solvers.message',
  offer: 'solvers.offer',
} as const;

interface RfqPayload {
  rfqId: string;
  corridorId: string;
  solverIds: string[];
  windowMs: number;
  message: unknown;
}

/** A solver's answer as the instance holding its socket forwards it. */
type Answer = {
  rfqId: string;
  solverId: string;
  /**
   * How long the solver took, measured on the instance holding its socket: from the RFQ sent there to the answer's
   * frame (no clock of another process involved, so instances on different hosts compare answers fairly).
   */
  latencyMs: number;
} & ({ kind: 'quote'; input: SolverQuoteInput } | { kind: 'decline'; reason: string | null } | { kind: 'malformed'; reason: string });

/** `ticket` pairs the verdict with the waiting socket (0: no verdict wanted). */
type AnswerPayload = Answer & { to: string; ticket: number };

interface VerdictPayload {
  to: string;
  ticket: number;
  answer: QuoteAnswer | DeclineAnswer;
}

/**
 * How long an instance remembers where a forwarded RFQ runs, beyond its window: a quote arriving later still goes
 * there, and is told `rfq_expired` by the instance that knows.
 */
const ORIGIN_GRACE_MS = 2_000;
/** A verdict that has not come back by then is not coming (the instance died or the bus dropped it). */
const VERDICT_TIMEOUT_MS = 5_000;

export class SolverNetwork implements SolverChannel, SolverNotifier {
  private local: LocalSolvers | undefined;
  /**
   * RFQs forwarded here from other instances: where each runs, when (performance.now()) it went out on this
   * instance's sockets, and until when to remember it.
   */
  private readonly origins = new Map<string, { instanceId: string; sentAt: number; until: number }>();
  private readonly waiting = new Map<number, { settle(answer: QuoteAnswer | DeclineAnswer): void; timer: NodeJS.Timeout }>();
  private readonly subscriptions: Array<() => void> = [];
  /**
   * The remote listeners `eligibleSolvers` read, kept for the `broadcast` that follows it in the same turn (the quote
   * service calls both synchronously), so one RFQ costs one presence read.
   */
  private lastRemote: { corridorId: string; solvers: Set<string> } | undefined;
  private tickets = 0;
  private stopped = false;

  constructor(private readonly deps: SolverNetworkDeps) {}

  private get instanceId(): string {
    return this.deps.bus.instanceId;
  }

  /** The solver stream of this process; call before it accepts connections. */
  attach(local: LocalSolvers): void {
    this.local = local;
    const { bus } = this.deps;
    this.subscriptions.push(
      bus.subscribe(TOPIC.rfq, (payload, from) => this.onRfq(payload as RfqPayload, from)),
      bus.subscribe(TOPIC.answer, (payload, from) => this.onAnswer(payload as AnswerPayload, from)),
      bus.subscribe(TOPIC.verdict, (payload) => this.onVerdict(payload as VerdictPayload)),
      bus.subscribe(TOPIC.gone, (payload) => this.stopWaitingIfGone((payload as { solverId: string }).solverId)),
      bus.subscribe(TOPIC.message, (payload) => {
        const { solverId, message } = payload as { solverId: string; message: SolverOrderMessage };
        this.stream().notify(solverId, message);
      }),
      bus.subscribe(TOPIC.offer, (payload) => this.stream().offer((payload as { message: OrderAvailable }).message)),
    );
  }

  /** Removes what dead instances left in the presence table. */
  start(): void {
    const pruned = this.deps.presence.pruneDead();
    if (pruned > 0) this.deps.logger.info({ pruned }, 'solver presence of stopped instances removed');
  }

  /** Call after the solver stream closed its connections, before the store closes. */
  stop(): void {
    this.stopped = true;
    for (const unsubscribe of this.subscriptions.splice(0)) unsubscribe();
    for (const [ticket, { timer, settle }] of this.waiting) {
      clearTimeout(timer);
      this.waiting.delete(ticket);
      settle({ type: 'quote.rejected', rfqId: '', code: 'rfq_expired', reason: 'the service is stopping' });
    }
    try {
      this.deps.presence.removeInstance(this.instanceId);
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'solver presence not removed at stop');
    }
  }

  // SolverChannel: the auction's side ------------------------------------------------------------------------------

  eligibleSolvers(corridorId: string): Set<string> {
    const solvers = this.stream().eligibleSolvers(corridorId);
    const remote = this.remoteListeners(corridorId);
    this.lastRemote = { corridorId, solvers: remote };
    queueMicrotask(() => {
      this.lastRemote = undefined;
    });
    for (const solverId of remote) solvers.add(solverId);
    return solvers;
  }

  broadcast(solverIds: ReadonlySet<string>, corridorId: string, message: unknown, rfqId: string): Set<string> {
    const reached = this.stream().broadcast(solverIds, corridorId, message, rfqId);
    const remote = this.lastRemote?.corridorId === corridorId ? this.lastRemote.solvers : this.remoteListeners(corridorId);
    this.lastRemote = undefined;
    const targets = [...solverIds].filter((solverId) => remote.has(solverId));
    if (targets.length === 0) return reached;
    // The window is the sender's: the receivers only need it to know how long to remember where the RFQ runs.
    const { windowMs } = this.deps;
    const sent = this.publishInParts(targets, (part) => ({ rfqId, corridorId, solverIds: part, windowMs, message }));
    for (const solverId of sent) reached.add(solverId);
    return reached;
  }

  // QuoteIntake: the solver stream's side ----------------------------------------------------------------------------

  submitQuote(solverId: string, input: SolverQuoteInput, receivedAt: number): QuoteAnswer | Promise<QuoteAnswer> {
    const origin = this.originOf(input.rfqId);
    if (origin === undefined) return this.deps.auctioneer.submitQuote(solverId, input, receivedAt);
    const latencyMs = receivedAt - origin.sentAt;
    return this.forward(origin.instanceId, { kind: 'quote', rfqId: input.rfqId, solverId, input, latencyMs }) as Promise<QuoteAnswer>;
  }

  decline(solverId: string, rfqId: string, reason: string | undefined, receivedAt: number): DeclineAnswer | Promise<DeclineAnswer> {
    const origin = this.originOf(rfqId);
    if (origin === undefined) return this.deps.auctioneer.decline(solverId, rfqId, reason, receivedAt);
    return this.forward(origin.instanceId, {
      kind: 'decline',
      rfqId,
      solverId,
      reason: reason ?? null,
      latencyMs: receivedAt - origin.sentAt,
    }) as Promise<DeclineAnswer>;
  }

  malformedQuote(solverId: string, rfqId: string, reason: string): void {
    const origin = this.originOf(rfqId);
    if (origin === undefined) {
      this.deps.auctioneer.recordMalformed(solverId, rfqId, reason);
      return;
    }
    const latencyMs = performance.now() - origin.sentAt;
    this.publish(TOPIC.answer, { to: origin.instanceId, ticket: 0, kind: 'malformed', rfqId, solverId, reason, latencyMs });
  }

  /** Whether the solver is reached only through another instance (no RFQ-receiving connection of it here). */
  viaOtherInstance(solverId: string): boolean {
    return !this.stream().listening(solverId);
  }

  /** The solver has no RFQ-receiving connection left here: every instance re-checks whether to stop waiting for it. */
  solverGone(solverId: string): void {
    this.stopWaitingIfGone(solverId);
    this.publish(TOPIC.gone, { solverId });
  }

  // SolverNotifier ------------------------------------------------------------------------------------------------

  /** Sends to every connection of the solver: here directly, on other instances through the bus. */
  notify(solverId: string, message: SolverOrderMessage): number {
    const local = this.stream().notify(solverId, message);
    const remote = this.connectionsElsewhere(solverId);
    if (remote === 0) return local;
    return this.publish(TOPIC.message, { solverId, message }) ? local + remote : local;
  }

  offer(message: OrderAvailable): number {
    const local = this.stream().offer(message);
    this.publish(TOPIC.offer, { message });
    return local;
  }

  /** Live connections of a solver on every instance. */
  connectionCount(solverId: string): number {
    return this.stream().connectionCount(solverId) + this.connectionsElsewhere(solverId);
  }

  // Presence (the solver stream's observer) ---------------------------------------------------------------------

  readonly presence = {
    connected: (connectionId: string, solverId: string, rfqCorridors: readonly string[]): void =>
      this.deps.presence.add(this.instanceId, connectionId, solverId, rfqCorridors, this.deps.clock.now()),
    changed: (connectionId: string, rfqCorridors: readonly string[]): void =>
      this.deps.presence.update(this.instanceId, connectionId, rfqCorridors),
    closed: (connectionId: string): void => this.deps.presence.remove(this.instanceId, connectionId),
  };

  // Bus handlers --------------------------------------------------------------------------------------------------

  private onRfq(payload: RfqPayload, from: string): void {
    const invited = new Set(payload.solverIds.filter((solverId) => this.stream().listening(solverId)));
    if (invited.size === 0) return;
    // Remembered before the RFQ goes out: an answer can only follow it.
    this.rememberOrigin(payload.rfqId, from, payload.windowMs);
    this.stream().broadcast(invited, payload.corridorId, payload.message, payload.rfqId);
  }

  private onAnswer(payload: AnswerPayload, from: string): void {
    if (payload.to !== this.instanceId) return;
    const { auctioneer } = this.deps;
    const time: AnswerTime = { latencyMs: payload.latencyMs };
    let answer: QuoteAnswer | DeclineAnswer;
    switch (payload.kind) {
      case 'quote':
        answer = auctioneer.submitQuote(payload.solverId, payload.input, time);
        break;
      case 'decline':
        answer = auctioneer.decline(payload.solverId, payload.rfqId, payload.reason ?? undefined, time);
        break;
      case 'malformed':
        auctioneer.recordMalformed(payload.solverId, payload.rfqId, payload.reason);
        return;
    }
    this.publish(TOPIC.verdict, { to: from, ticket: payload.ticket, answer } satisfies VerdictPayload);
  }

  private onVerdict(payload: VerdictPayload): void {
    if (payload.to !== this.instanceId) return;
    const waiting = this.waiting.get(payload.ticket);
    if (waiting === undefined) return;
    clearTimeout(waiting.timer);
    this.waiting.delete(payload.ticket);
    waiting.settle(payload.answer);
  }

  // Internals ---------------------------------------------------------------------------------------------------

  private stream(): LocalSolvers {
    if (this.local === undefined) throw new Error('the solver network is used before the solver stream is attached');
    return this.local;
  }

  /** Where an RFQ that is not live here runs, and when it went out here, if it was forwarded here recently. */
  private originOf(rfqId: string): { instanceId: string; sentAt: number } | undefined {
    if (this.deps.auctioneer.isLive(rfqId)) return undefined;
    const origin = this.origins.get(rfqId);
    if (origin === undefined) return undefined;
    if (origin.until < performance.now()) {
      this.origins.delete(rfqId);
      return undefined;
    }
    return origin;
  }

  private rememberOrigin(rfqId: string, instanceId: string, windowMs: number): void {
    const now = performance.now();
    // Oldest first (insertion order): drop the expired ones in front.
    for (const [id, origin] of this.origins) {
      if (origin.until >= now) break;
      this.origins.delete(id);
    }
    this.origins.set(rfqId, { instanceId, sentAt: now, until: now + windowMs + ORIGIN_GRACE_MS });
  }

  private forward(origin: string, answer: Answer): Promise<QuoteAnswer | DeclineAnswer> {
    const unanswered = (reason: string): QuoteRejection => ({ type: 'quote.rejected', rfqId: answer.rfqId, code: 'rfq_expired', reason });
    if (this.stopped) return Promise.resolve(unanswered('the service is stopping'));
    this.tickets += 1;
    const ticket = this.tickets;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(ticket);
        resolve(unanswered('the service instance running this RFQ did not answer'));
      }, VERDICT_TIMEOUT_MS);
      timer.unref();
      this.waiting.set(ticket, { settle: resolve, timer });
      if (!this.publish(TOPIC.answer, { ...answer, to: origin, ticket } satisfies AnswerPayload)) {
        clearTimeout(timer);
        this.waiting.delete(ticket);
        resolve({ type: 'quote.rejected', rfqId: answer.rfqId, code: 'malformed', reason: 'the answer is too large to route' });
      }
    });
  }

  private stopWaitingIfGone(solverId: string): void {
    if (this.stopped || this.deps.auctioneer.liveCount() === 0 || this.stream().listening(solverId)) return;
    const elsewhere = this.safely(() => this.deps.presence.listenersElsewhere(this.instanceId), []);
    if (!elsewhere.some((listener) => listener.solverId === solverId)) this.deps.auctioneer.solverGone(solverId);
  }

  private remoteListeners(corridorId: string): Set<string> {
    const listeners = this.safely(() => this.deps.presence.listenersElsewhere(this.instanceId), []);
    return new Set(listeners.filter((listener) => listener.rfqCorridors.includes(corridorId)).map((listener) => listener.solverId));
  }

  private connectionsElsewhere(solverId: string): number {
    return this.safely(() => this.deps.presence.connectionsElsewhere(solverId, this.instanceId), 0);
  }

  /** Other instances are a bonus: a failed presence read leaves this instance serving its own solvers. */
  private safely<T>(read: () => T, fallback: T): T {
    try {
      return read();
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'solver presence not read');
      return fallback;
    }
  }

  /** False when the payload is too large for the bus. */
  private publish(topic: string, payload: unknown): boolean {
    try {
      this.deps.bus.publish(topic, payload);
      return true;
    } catch (error) {
      this.deps.logger.error({ err: error, topic }, 'solver network: message not routed');
      return false;
    }
  }

  /** An RFQ with many invited solvers is split so each bus message fits; returns the solvers it went out for. */
  private publishInParts(solverIds: string[], payload: (part: string[]) => RfqPayload): string[] {
    try {
      this.deps.bus.publish(TOPIC.rfq, payload(solverIds));
      return solverIds;
    } catch (error) {
      if (!(error instanceof RangeError) || solverIds.length === 1) {
        this.deps.logger.error({ err: error, solverIds }, 'solver network: RFQ not routed');
        return [];
      }
      const half = Math.ceil(solverIds.length / 2);
      return [...this.publishInParts(solverIds.slice(0, half), payload), ...this.publishInParts(solverIds.slice(half), payload)];
    }
  }
}
