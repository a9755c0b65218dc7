import type { Clock } from '../../clock/index.js';
import type { ChainInfo } from '../../contracts/deployment.js';
import type { Corridor } from '../corridors/schemas.js';
import type { OutboxRepository } from '../events/outbox.js';
import type { PriceUpdate } from '../events/price-feed.js';
import type { LedgerRepository } from '../ledger/repository.js';
import type { Store } from '../store/store.js';
import type { Auctioneer } from './auctioneer.js';
import type { MidPrice } from './pricing.js';
import type { QuoteRequestResolver } from './quote-request.js';
import type { RfqRepository } from './rfq-repository.js';
import type { SolverPerformance } from './solver-performance.js';
import type { SolverRepository } from './solver-repository.js';

/** What the auction's quote service and its RFQ rounds are built from. */
export interface AuctionSettings {
  /** Longest wait for answers after the broadcast (wall ms); default 300. */
  windowMs: number;
  /** Quote lifetime by the service clock; default 30 s. */
  quoteTtlMs: number;
  /** fillDeadline = quote time + this (clock); default 10 min. */
  fillWindowMs: number;
  /** expires = fillDeadline + this; refunds are possible after expires; default 5 min. */
  refundGraceMs: number;
  /** Largest fee a quote may charge (bps versus par); cheaper offers are `below_minimum`. Default 200. */
  maxFeeBps: number;
  /**
   * How long after its quote the winning solver fills alone (ms, clock): the quote's StandardOrder carries an
   * exclusive output context (`0xe0`) naming the solver's registered address until
   * `min(fillDeadline, floor((quote.createdAt + exclusivityMs) / 1000))`. 0 disables it; solvers without a
   * registered address never get exclusivity. Default 60 s.
   */
  exclusivityMs?: number;
  /** Mid-market rate per corridor (output per input, whole tokens); default 1:1. */
  midPrice: (corridor: Corridor) => MidPrice;
}

/**
 * How RFQs reach solvers: the solver stream of this process, or, with several instances on one store, the solver
 * network (solver-network.ts) that also reaches the solvers connected to the other instances.
 */
export interface SolverChannel {
  /** Solvers invited to an RFQ on `corridorId` now: registered for it, connected, subscribed to `rfq.created`. */
  eligibleSolvers(corridorId: string): Set<string>;
  /**
   * Sends `message` (the `rfq.created` envelope of `rfqId`) to the subscribed connections of `solverIds`; returns
   * the solvers it reached (a solver on another instance counts as reached once the message is on its way there).
   */
  broadcast(solverIds: ReadonlySet<string>, corridorId: string, message: unknown, rfqId: string): Set<string>;
  /**
   * Whether a solver is reached only through another instance of the store (its answers travel back over Postgres,
   * so the auction may wait past its window for them: auctioneer.ts). Absent: every solver is on this instance.
   */
  viaOtherInstance?(solverId: string): boolean;
}

export interface Evidence {
  readonly ledger: LedgerRepository;
  readonly outbox: OutboxRepository;
}

export interface QuoteRequestContext {
  workspaceId: string | null;
  requestId: string;
  /** `X-Service-Attestation`, forwarded to solvers as the RFQ's complianceAttestation. */
  attestation: string | null;
}

export interface QuoteServiceDeps {
  store: Store;
  clock: Clock;
  chains: readonly ChainInfo[];
  resolver: QuoteRequestResolver;
  rfqs: RfqRepository;
  solvers: SolverRepository;
  performance: SolverPerformance;
  auctioneer: Auctioneer;
  evidence: Evidence;
  settings: AuctionSettings;
  /** The `prices:` feed of the taker stream: each RFQ's best-priced quote is published there. */
  prices?: { publish(update: PriceUpdate): void } | undefined;
}
