/**
 * The port through which the auction reaches its solvers' sockets. The auction knows nothing of WebSocket: the ws
 * adapter (src/service/ws/solver-stream.ts) implements this port and `createService` hands its opener to the
 * auction module, so the dependency points from the adapter to the domain and never back.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../clock/index.js';
import type { Environment } from '../../contracts/deployment.js';
import type { ServiceContext } from '../module.js';
import type { DeclineAnswer, QuoteAnswer, SolverQuoteInput } from './auctioneer.js';
import type { LocalSolvers } from './solver-network.js';
import type { SolverIdentity } from './solver-registry.js';

export interface SolverStreamSettings {
  /** Default 30 s of clock time. */
  pingIntervalMs: number;
  /** Default 5 (the spec's WebSocket connection limit per key). */
  maxConnectionsPerKey: number;
  /** A connection that has not authenticated after this long (clock) is closed; default 10 s. */
  authTimeoutMs: number;
}

/**
 * What the stream needs from the auction. An answer may come later (a promise) when the RFQ runs on another service
 * instance: the quote travels there and its verdict back.
 */
export interface QuoteIntake {
  submitQuote(solverId: string, input: SolverQuoteInput, receivedAt: number): QuoteAnswer | Promise<QuoteAnswer>;
  decline(solverId: string, rfqId: string, reason: string | undefined, receivedAt: number): DeclineAnswer | Promise<DeclineAnswer>;
  /** A quote that failed validation, for the RFQ view's record. */
  malformedQuote(solverId: string, rfqId: string, reason: string): void;
  /** The solver has no connection left that receives RFQs. */
  solverGone(solverId: string): void;
}

/**
 * Told about this process's authenticated connections, so other service instances on the same store can route RFQs
 * and order messages here (the auction's solver network keeps them in the store).
 */
export interface SolverPresenceObserver {
  /** Authenticated; `rfqCorridors`: the corridors it receives RFQs on (none before it subscribes). */
  connected(connectionId: string, solverId: string, rfqCorridors: readonly string[]): void;
  /** A subscribe or unsubscribe changed the corridors it receives RFQs on. */
  changed(connectionId: string, rfqCorridors: readonly string[]): void;
  closed(connectionId: string): void;
}

/** What the auction gives the stream it opens. */
export interface SolverStreamOptions {
  clock: Clock;
  logger: Logger;
  environment: Environment;
  authenticate(token: string, solverId: string | undefined): Promise<SolverIdentity>;
  intake: QuoteIntake;
  presence?: SolverPresenceObserver | undefined;
  settings?: Partial<SolverStreamSettings>;
}

/** This process's solver connections, as the auction uses them. */
export interface SolverStreamPort extends LocalSolvers {
  /** Called with the solver's id each time a connection of it on this instance has its first subscription answered. */
  onSolverReady(listener: (solverId: string) => void): () => void;
  close(): void;
}

/** Opens the stream on the service's server (its upgrade paths, and the store-wide connection count if shared). */
export type SolverStreamOpener = (options: SolverStreamOptions, context: ServiceContext) => SolverStreamPort;
