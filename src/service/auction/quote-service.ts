/**
 * The auction as the API sees it: open an RFQ, broadcast it, collect and rank the answers, keep the quotes, and
 * hand out quote details with the StandardOrder and EIP-712 payload a taker signs. Also the QuoteBook the orders
 * module reads and accepts quotes through.
 */
import { performance } from 'node:perf_hooks';
import { type Address, getAddress, zeroAddress } from 'viem';
import { standardOrderToWire } from '../../contracts/standard-order-wire.js';
import type { Clock, ScheduledJob } from '../../clock/index.js';
import type { StandardOrder } from '../../contracts/order.js';
import { typedDataToJson } from '../../contracts/typed-data.js';
import type { ChainInfo } from '../../contracts/deployment.js';
import type { Corridor } from '../corridors/schemas.js';
import type { OutboxRepository } from '../events/outbox.js';
import type { PriceTier, PriceUpdate } from '../events/price-feed.js';
import { NotFoundError, ValidationError } from '../errors/api-errors.js';
import { isoTime } from '../api/wire.js';
import type { LedgerRepository } from '../ledger/repository.js';
import { buildStandardOrder, onchainOrderId, type OrderTerms, typedDataFor } from '../orders/standard-order.js';
import { newId } from '../store/ids.js';
import type { Store } from '../store/store.js';
import type { AuctionOutcome, AuctionTerms, Auctioneer, CollectedQuote } from './auctioneer.js';
import { feeBps, maximumInput, type MidPrice, minimumOutput, priceImpactBps, priceString, toDecimalString } from './pricing.js';
import type { QuoteRequestResolver, ResolvedQuoteRequest } from './quote-request.js';
import { bestPriced, rankQuotes } from './ranking.js';
import type { RfqRecord, RfqRepository, StoredQuote } from './rfq-repository.js';
import type { QuoteRequestBody } from './schemas.js';
import type { SolverPerformance } from './solver-performance.js';
import type { SolverRepository } from './solver-repository.js';
import type { NonceSource, QuoteBook, QuoteRecord, QuoteStatus } from './types.js';

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
  /** Mid-market rate per corridor (output per input, whole tokens); default 1:1. */
  midPrice: (corridor: Corridor) => MidPrice;
}

/** How RFQs reach solvers (the solver stream implements it). */
export interface SolverChannel {
  /** Solvers invited to an RFQ on `corridorId` now: registered for it, connected, subscribed to `rfq.created`. */
  eligibleSolvers(corridorId: string): Set<string>;
  /** Sends `message` to the subscribed connections of `solverIds`; returns the solvers it reached. */
  broadcast(solverIds: ReadonlySet<string>, corridorId: string, message: unknown): Set<string>;
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

/** Price feed tiers by the RFQ's notional (USD; 1 stable token = 1 USD). */
export function priceTier(notionalUsd: bigint): PriceTier {
  if (notionalUsd < 50_000n) return 'retail';
  if (notionalUsd < 250_000n) return 'standard';
  return 'institutional';
}

const RFQ_EXPIRY_JOB = 'quote.expiry';

export class QuoteService implements QuoteBook {
  private channel: SolverChannel | undefined;
  private nonceSource: NonceSource | undefined;
  private readonly jobs = new Set<ScheduledJob>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private stopped = false;

  constructor(private readonly deps: QuoteServiceDeps) {}

  useChannel(channel: SolverChannel): void {
    this.channel = channel;
  }

  useNonceSource(source: NonceSource | undefined): void {
    this.nonceSource = source;
  }

  /** POST /quotes: resolves the request, runs the auction and answers the ranked quotes. */
  async requestQuotes(body: QuoteRequestBody, context: QuoteRequestContext) {
    const request = this.deps.resolver.resolve(body);
    const channel = this.channel;
    const eligible = channel?.eligibleSolvers(request.corridor.id) ?? new Set<string>();
    if (channel === undefined || eligible.size === 0 || this.stopped) throw noSolvers(request, 'No solver is connected for');
    const { rfq, envelope } = this.openRfq(request, context, eligible);
    const startedAt = performance.now();
    const reached = channel.broadcast(eligible, rfq.corridor, envelope);
    const running = this.deps.auctioneer.open(this.terms(rfq), reached, this.deps.settings.windowMs, startedAt);
    this.inFlight.add(running);
    let outcome: AuctionOutcome;
    try {
      outcome = await running;
    } finally {
      this.inFlight.delete(running);
    }
    if (!this.deps.store.open) throw noSolvers(request, 'The service stopped while collecting quotes on');
    const { stored: quotes, nonce } = this.closeRfq(rfq, outcome, context.workspaceId);
    if (quotes.length === 0) throw noSolvers(request, 'No solver quoted within the auction window on');
    const best = quotes.find((quote) => quote.bestPrice)!;
    return {
      rfqId: rfq.id,
      quotes: quotes.map((quote) => ({
        quoteId: quote.id,
        solverId: quote.solverId,
        inputAmount: quote.inputAmount.toString(),
        outputAmount: quote.outputAmount.toString(),
        feeBps: quote.feeBps,
        priceImpactBps: quote.priceImpactBps,
        expiresAt: isoTime(quote.expiresAt),
        settlementPath: rfq.settlementPath,
        lockType: rfq.lockType,
        rank: quote.rank,
        latencyMs: round1(quote.latencyMs),
        ...(nonce === undefined ? {} : this.signable(rfq, quote, rfq.user!, nonce)),
      })),
      uccpBps: best.feeBps,
      corridor: rfq.corridor,
      requestId: context.requestId,
      preference: rfq.preference,
      swapType: rfq.swapType,
      fillDeadline: rfq.fillDeadline,
      expires: rfq.expires,
    };
  }

  /** GET /quotes/{qt_…}: the quote with its StandardOrder, and the payload to sign once a user is known. */
  quoteDetail(quoteId: string, userParam: string | undefined) {
    const quote = this.deps.rfqs.getQuote(quoteId);
    const rfq = quote && this.deps.rfqs.getRfq(quote.rfqId);
    if (quote === undefined || rfq === undefined) {
      throw new NotFoundError({ code: 'resource_not_found', param: 'quoteId', message: `No quote ${quoteId}.` });
    }
    const status = this.status(quote);
    const user = userParam === undefined ? rfq.user : getAddress(userParam);
    let nonce: bigint | undefined;
    if (user !== null) nonce = status === 'open' ? this.allocateNonce(rfq, user) : this.deps.rfqs.issuedNonce(rfq.id, user);
    const terms = this.orderTerms(rfq, quote);
    const order = buildStandardOrder(terms, user ?? zeroAddress, nonce ?? 0n);
    const signable = user !== null && nonce !== undefined;
    return {
      quoteId: quote.id,
      rfqId: rfq.id,
      status,
      solverId: quote.solverId,
      corridor: rfq.corridor,
      originChainId: rfq.originChainId,
      destinationChainId: rfq.destinationChainId,
      inputToken: rfq.inputToken,
      outputToken: rfq.outputToken,
      inputAmount: quote.inputAmount.toString(),
      outputAmount: quote.outputAmount.toString(),
      feeBps: quote.feeBps,
      priceImpactBps: quote.priceImpactBps,
      settlementPath: rfq.settlementPath,
      lockType: rfq.lockType,
      swapType: rfq.swapType,
      createdAt: isoTime(quote.createdAt),
      expiresAt: isoTime(quote.expiresAt),
      fillDeadline: rfq.fillDeadline,
      expires: rfq.expires,
      orderId: quote.orderId,
      user: signable ? user : null,
      nonce: signable ? nonce!.toString() : null,
      onchainOrderId: signable ? onchainOrderId(terms, order) : null,
      standardOrder: standardOrderToWire(order),
      typedData: signable ? (typedDataToJson(typedDataFor(terms, order)) as Record<string, unknown>) : null,
    };
  }

  /** GET /quotes/{rfq_…}: Reference B's view, every invited solver and what it answered. */
  rfqView(rfqId: string, fillRate: (solverId: string) => number | null) {
    const rfq = this.deps.rfqs.getRfq(rfqId);
    if (rfq === undefined) throw new NotFoundError({ code: 'resource_not_found', param: 'quoteId', message: `No RFQ ${rfqId}.` });
    const quotes = new Map(this.deps.rfqs.quotesOf(rfqId).map((quote) => [quote.solverId, quote]));
    const responses = this.deps.rfqs.invitations(rfqId).map((invitation) => {
      const quote = quotes.get(invitation.solverId);
      return {
        solverId: invitation.solverId,
        solverName: this.deps.solvers.get(invitation.solverId)?.name ?? null,
        outcome: invitation.outcome,
        quoteId: quote?.id ?? null,
        rank: quote?.rank ?? null,
        price: quote ? priceString(this.trade(rfq, quote)) : null,
        inputAmount: quote?.inputAmount.toString() ?? null,
        outputAmount: quote?.outputAmount.toString() ?? null,
        feeBps: quote?.feeBps ?? null,
        latencyMs: invitation.latencyMs === null ? null : round1(invitation.latencyMs),
        fillRate: fillRate(invitation.solverId),
        quoteStatus: quote ? this.status(quote) : null,
        reason: invitation.reason,
      };
    });
    responses.sort(
      (a, b) => (a.rank ?? Number.MAX_SAFE_INTEGER) - (b.rank ?? Number.MAX_SAFE_INTEGER) || a.solverId.localeCompare(b.solverId),
    );
    const decimals = rfq.swapType === 'exactInput' ? rfq.inputDecimals : rfq.outputDecimals;
    return {
      rfqId: rfq.id,
      status: rfq.status,
      corridor: rfq.corridor,
      pair: rfq.pair,
      side: rfq.side,
      amount: toDecimalString(rfq.amount, decimals),
      swapType: rfq.swapType,
      preference: rfq.preference,
      lockType: rfq.lockType,
      settlementPath: rfq.settlementPath,
      createdAt: isoTime(rfq.createdAt),
      closedAt: rfq.closedAt === null ? null : isoTime(rfq.closedAt),
      deadline: Math.ceil(rfq.respondBy / 1000),
      responses,
    };
  }

  // QuoteBook --------------------------------------------------------------------------------------------------

  get(quoteId: string): QuoteRecord | undefined {
    const quote = this.deps.rfqs.getQuote(quoteId);
    const rfq = quote && this.deps.rfqs.getRfq(quote.rfqId);
    if (quote === undefined || rfq === undefined) return undefined;
    return {
      id: quote.id,
      rfqId: rfq.id,
      solverId: quote.solverId,
      workspaceId: rfq.workspaceId,
      status: this.status(quote),
      corridor: rfq.corridor,
      originChainId: rfq.originChainId,
      destinationChainId: rfq.destinationChainId,
      inputToken: rfq.inputToken,
      outputToken: rfq.outputToken,
      inputAmount: quote.inputAmount.toString(),
      outputAmount: quote.outputAmount.toString(),
      feeBps: quote.feeBps,
      lockType: rfq.lockType,
      settlementPath: rfq.settlementPath,
      createdAt: quote.createdAt,
      expiresAt: quote.expiresAt,
      fillDeadline: rfq.fillDeadline,
      expires: rfq.expires,
      user: rfq.user,
    };
  }

  /** One order per RFQ: false when the quote is not open, has expired, or a sibling quote was accepted. */
  accept(quoteId: string, orderId: string, now: number): boolean {
    return this.deps.rfqs.accept(quoteId, orderId, now);
  }

  /** The order a quote became finished: filled (attested) or failed (refunded). Feeds fill rates. */
  recordOutcome(orderId: string, outcome: 'filled' | 'failed'): void {
    const quote = this.deps.rfqs.quoteByOrder(orderId);
    if (quote === undefined) return;
    if (this.deps.rfqs.setOutcome(orderId, outcome, this.deps.clock.now())) this.deps.performance.recordOutcome(quote.solverId, outcome);
  }

  // Lifecycle --------------------------------------------------------------------------------------------------

  /** After a restart: expire what expired while stopped, re-schedule the rest, close abandoned auctions. */
  restore(): void {
    const now = this.deps.clock.now();
    for (const rfqId of this.deps.rfqs.staleCollecting()) this.deps.rfqs.closeRfq(rfqId, 'no_quotes', now);
    this.deps.rfqs.expireAllDue(now);
    for (const { id, expiresAt } of this.deps.rfqs.openQuoteRfqs()) this.scheduleExpiry(id, expiresAt);
  }

  /** Closes running auctions (their requests answer) and cancels expiry jobs; call before the store closes. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.deps.auctioneer.abortAll();
    await Promise.allSettled([...this.inFlight]);
    for (const job of this.jobs) this.deps.clock.cancel(job);
    this.jobs.clear();
  }

  // Internals --------------------------------------------------------------------------------------------------

  private openRfq(request: ResolvedQuoteRequest, context: QuoteRequestContext, invited: ReadonlySet<string>) {
    const { clock, settings, rfqs, evidence } = this.deps;
    const now = clock.now();
    const fillDeadline = Math.floor((now + settings.fillWindowMs) / 1000);
    const expires = fillDeadline + Math.ceil(settings.refundGraceMs / 1000);
    const id = newId('rfq');
    const fixedDecimals = request.swapType === 'exactInput' ? request.inputToken.decimals : request.outputToken.decimals;
    const respondBy = now + settings.windowMs;
    const terms = this.limits(request.swapType, request.amount, request.inputToken.decimals, request.outputToken.decimals);
    const rfqPayload = {
      id,
      pair: request.pair,
      side: request.side,
      amount: toDecimalString(request.amount, fixedDecimals),
      corridor: request.corridor.id,
      deadline: Math.ceil(respondBy / 1000),
      complianceAttestation: context.attestation,
      originChainId: request.originChain.chainId,
      destinationChainId: request.destinationChain.chainId,
      inputToken: getAddress(request.inputToken.address),
      outputToken: getAddress(request.outputToken.address),
      inputDecimals: request.inputToken.decimals,
      outputDecimals: request.outputToken.decimals,
      ...(request.swapType === 'exactInput' ? { inputAmount: request.amount.toString() } : { outputAmount: request.amount.toString() }),
      swapType: request.swapType,
      lockTypes: [request.lockType],
      lockType: request.lockType,
      settlementPath: request.settlementPath,
      fillDeadline,
      expires,
      respondBy: isoTime(respondBy),
      ...(terms.minOutputAmount === undefined ? {} : { minOutputAmount: terms.minOutputAmount.toString() }),
      ...(terms.maxInputAmount === undefined ? {} : { maxInputAmount: terms.maxInputAmount.toString() }),
    };
    return evidence.outbox.commit(() => {
      const event = evidence.outbox.append({
        workspaceId: context.workspaceId,
        type: 'rfq.created',
        generation: 'B',
        rfqId: id,
        data: { rfq: rfqPayload },
        at: now,
      });
      const rfq: RfqRecord = {
        id,
        workspaceId: context.workspaceId,
        requestId: context.requestId,
        corridor: request.corridor.id,
        originChainId: request.originChain.chainId,
        destinationChainId: request.destinationChain.chainId,
        inputToken: getAddress(request.inputToken.address),
        outputToken: getAddress(request.outputToken.address),
        inputDecimals: request.inputToken.decimals,
        outputDecimals: request.outputToken.decimals,
        pair: request.pair,
        side: request.side,
        swapType: request.swapType,
        amount: request.amount,
        preference: request.preference,
        lockType: request.lockType,
        settlementPath: request.settlementPath,
        user: request.user,
        attestation: context.attestation,
        fillDeadline,
        expires,
        status: 'collecting',
        respondBy,
        quoteExpiresAt: now + settings.quoteTtlMs,
        eventId: event.envelope.id,
        createdAt: now,
        closedAt: null,
      };
      rfqs.insertRfq(rfq);
      evidence.ledger.append({
        type: 'rfq.created',
        tradeId: id,
        recordedAt: isoTime(now),
        payload: {
          rfqId: id,
          requestId: context.requestId,
          workspaceId: context.workspaceId,
          corridor: rfq.corridor,
          swapType: rfq.swapType,
          amount: rfq.amount.toString(),
          preference: rfq.preference,
          lockType: rfq.lockType,
          settlementPath: rfq.settlementPath,
          user: rfq.user,
          fillDeadline,
          expires,
          invited: [...invited].sort(),
        },
      });
      return { rfq, envelope: event.envelope };
    });
  }

  private limits(swapType: RfqRecord['swapType'], amount: bigint, inputDecimals: number, outputDecimals: number) {
    const { maxFeeBps } = this.deps.settings;
    return swapType === 'exactInput'
      ? { minOutputAmount: minimumOutput(amount, inputDecimals, outputDecimals, maxFeeBps) }
      : { maxInputAmount: maximumInput(amount, outputDecimals, inputDecimals, maxFeeBps) };
  }

  private terms(rfq: RfqRecord): AuctionTerms {
    return {
      rfqId: rfq.id,
      swapType: rfq.swapType,
      amount: rfq.amount,
      inputDecimals: rfq.inputDecimals,
      outputDecimals: rfq.outputDecimals,
      lockType: rfq.lockType,
      settlementPath: rfq.settlementPath,
      ...this.limits(rfq.swapType, rfq.amount, rfq.inputDecimals, rfq.outputDecimals),
    };
  }

  /** Ranks, stores and publishes the outcome in one transaction; returns the stored quotes best first. */
  /** Records the auction's result; with quotes and a known taker, also the taker's nonce, in the same commit. */
  private closeRfq(
    rfq: RfqRecord,
    outcome: AuctionOutcome,
    workspaceId: string | null,
  ): { stored: StoredQuote[]; nonce: bigint | undefined } {
    const { clock, rfqs, evidence, performance: track, settings } = this.deps;
    const now = clock.now();
    const mid = settings.midPrice(this.corridor(rfq));
    const candidates = outcome.quotes.map((quote) => ({
      ...quote,
      medianLatencyMs: track.medianLatency(quote.solverId, quote.latencyMs) ?? quote.latencyMs,
      fillScore: track.fillScore(quote.solverId),
    }));
    const ranked = rankQuotes(candidates, rfq.preference, rfq.swapType);
    const best = bestPriced(candidates, rfq.swapType);
    const expiresAt = now + settings.quoteTtlMs;
    const stored: StoredQuote[] = ranked.map((quote, index) => {
      const trade = this.trade(rfq, quote);
      return {
        id: quote.quoteId,
        rfqId: rfq.id,
        solverId: quote.solverId,
        rank: index + 1,
        bestPrice: quote === best,
        status: 'open',
        inputAmount: quote.inputAmount,
        outputAmount: quote.outputAmount,
        feeBps: feeBps(trade),
        priceImpactBps: priceImpactBps(trade, mid),
        latencyMs: quote.latencyMs,
        confidence: quote.confidence,
        createdAt: quote.receivedAt,
        expiresAt,
        orderId: null,
        acceptedAt: null,
        outcome: null,
        outcomeAt: null,
      };
    });
    const received = new Map(outcome.quotes.map((quote) => [quote.solverId, quote] as const));
    const nonce = evidence.outbox.commit(() => {
      for (const quote of stored) rfqs.insertQuote(quote);
      for (const solverId of new Set([...received.keys(), ...outcome.declined.keys(), ...outcome.rejected.keys(), ...outcome.silent])) {
        const quote = received.get(solverId);
        const declined = outcome.declined.get(solverId);
        const rejected = outcome.rejected.get(solverId);
        rfqs.insertInvitation({
          rfqId: rfq.id,
          solverId,
          outcome: quote ? 'quoted' : declined ? 'declined' : rejected ? 'rejected' : 'silent',
          reason: quote ? null : (declined?.reason ?? (rejected ? `${rejected.code}: ${rejected.reason}` : null)),
          latencyMs: quote?.latencyMs ?? declined?.latencyMs ?? null,
        });
      }
      rfqs.closeRfq(rfq.id, stored.length > 0 ? 'quoted' : 'no_quotes', now);
      evidence.ledger.append({
        type: 'quotes.collected',
        tradeId: rfq.id,
        recordedAt: isoTime(now),
        payload: {
          rfqId: rfq.id,
          preference: rfq.preference,
          quotes: stored.map((quote) => ({
            quoteId: quote.id,
            solverId: quote.solverId,
            rank: quote.rank,
            inputAmount: quote.inputAmount.toString(),
            outputAmount: quote.outputAmount.toString(),
            feeBps: String(quote.feeBps),
            latencyMs: String(round1(quote.latencyMs)),
            expiresAt: isoTime(quote.expiresAt),
          })),
          declined: [...outcome.declined.keys()].sort(),
          rejected: [...outcome.rejected.keys()].sort(),
          silent: [...outcome.silent].sort(),
          uccpBps: best === undefined ? null : String(stored.find((quote) => quote.bestPrice)!.feeBps),
        },
      });
      for (const quote of stored) {
        const collected = received.get(quote.solverId)!;
        evidence.outbox.append({
          workspaceId,
          type: 'quote.received',
          generation: 'B',
          rfqId: rfq.id,
          audience: 'taker',
          data: {
            quote: {
              id: quote.id,
              rfqId: rfq.id,
              price: priceString(this.trade(rfq, quote)),
              solverId: quote.solverId,
              ttl: Math.round(settings.quoteTtlMs / 1000),
              confidence: collected.confidence,
              // Lets a taker stream subscription with a `corridors` filter select it.
              corridor: rfq.corridor,
            },
          },
          at: collected.receivedAt,
        });
      }
      // One commit less per quote request than allocating it afterwards: nothing happens in between.
      return stored.length === 0 || rfq.user === null ? undefined : this.allocateNonce(rfq, rfq.user);
    });
    for (const quote of outcome.quotes) track.recordLatency(quote.solverId, quote.latencyMs);
    if (stored.length > 0) {
      this.scheduleExpiry(rfq.id, expiresAt);
      this.publishPrice(rfq, stored.find((quote) => quote.bestPrice)!, now);
    }
    return { stored, nonce };
  }

  private publishPrice(rfq: RfqRecord, best: StoredQuote, now: number): void {
    if (this.deps.prices === undefined) return;
    const corridor = this.corridor(rfq);
    const chainName = (chainId: number) => this.deps.chains.find((chain) => chain.chainId === chainId)?.name ?? String(chainId);
    const notional = best.inputAmount / 10n ** BigInt(rfq.inputDecimals);
    try {
      this.deps.prices.publish({
        corridor: rfq.corridor,
        srcChain: chainName(rfq.originChainId),
        inputToken: corridor.inputToken.symbol,
        dstChain: chainName(rfq.destinationChainId),
        outputToken: corridor.outputToken.symbol,
        tier: priceTier(notional),
        price: priceString(this.trade(rfq, best)),
        timestamp: now,
        source: best.solverId,
        ttlMs: this.deps.settings.quoteTtlMs,
      });
    } catch {
      // The price feed is best effort; a rejected update must not fail a quote request that already committed.
    }
  }

  private scheduleExpiry(rfqId: string, at: number): void {
    const { clock, rfqs } = this.deps;
    const job = clock.schedule(
      at,
      () => {
        this.jobs.delete(job);
        if (this.deps.store.open) rfqs.expireRfqQuotes(rfqId, clock.now());
      },
      { name: RFQ_EXPIRY_JOB },
    );
    this.jobs.add(job);
  }

  /**
   * The user's nonce for this RFQ: handed out once per (RFQ, user) — every quote of an RFQ shares it, so at most one
   * of them can become an order — and one above both the last nonce handed to the user and the last one used.
   */
  /**
   * The user's next free nonce for an RFQ (one per (RFQ, user): sibling quotes share it). Nonces rise per user;
   * resource-lock nonces must also be unique per allocator across every sponsor (the Compact consumes them in the
   * allocator's namespace), so those come from one counter per origin chain as well.
   */
  private allocateNonce(rfq: Pick<RfqRecord, 'id' | 'lockType' | 'originChainId'>, user: Address): bigint {
    const { store, rfqs, clock } = this.deps;
    return store.transaction(() => {
      const issued = rfqs.issuedNonce(rfq.id, user);
      if (issued !== undefined) return issued;
      const lockCounter = rfq.lockType === 'ResourceLock' ? (`resource-lock:${rfq.originChainId}` as Address) : undefined;
      const candidates = [
        rfqs.lastIssuedNonce(user) ?? 0n,
        this.nonceSource?.highestUsedNonce(user) ?? 0n,
        lockCounter === undefined ? 0n : (rfqs.lastIssuedNonce(lockCounter) ?? 0n),
      ];
      const nonce = candidates.reduce((max, n) => (n > max ? n : max), 0n) + 1n;
      rfqs.insertIssuedNonce(rfq.id, user, nonce, clock.now());
      rfqs.setLastIssuedNonce(user, nonce);
      if (lockCounter !== undefined) rfqs.setLastIssuedNonce(lockCounter, nonce);
      return nonce;
    });
  }

  private signable(rfq: RfqRecord, quote: StoredQuote, user: Address, nonce: bigint) {
    const terms = this.orderTerms(rfq, quote);
    const order: StandardOrder = buildStandardOrder(terms, user, nonce);
    return {
      nonce: nonce.toString(),
      standardOrder: standardOrderToWire(order),
      typedData: typedDataToJson(typedDataFor(terms, order)) as Record<string, unknown>,
    };
  }

  private orderTerms(rfq: RfqRecord, quote: Pick<StoredQuote, 'inputAmount' | 'outputAmount'>): OrderTerms {
    const chain = (chainId: number) => {
      const found = this.deps.chains.find((candidate) => candidate.chainId === chainId);
      if (found === undefined) throw new Error(`chain ${chainId} of ${rfq.id} is no longer configured`);
      return found;
    };
    return {
      originChain: chain(rfq.originChainId),
      destinationChain: chain(rfq.destinationChainId),
      inputToken: rfq.inputToken,
      outputToken: rfq.outputToken,
      inputAmount: quote.inputAmount,
      outputAmount: quote.outputAmount,
      lockType: rfq.lockType,
      fillDeadline: rfq.fillDeadline,
      expires: rfq.expires,
    };
  }

  private trade(rfq: RfqRecord, quote: Pick<CollectedQuote, 'inputAmount' | 'outputAmount'>) {
    return {
      inputAmount: quote.inputAmount,
      inputDecimals: rfq.inputDecimals,
      outputAmount: quote.outputAmount,
      outputDecimals: rfq.outputDecimals,
    };
  }

  private corridor(rfq: RfqRecord): Corridor {
    return this.deps.resolver.corridor(rfq.corridor);
  }

  private status(quote: StoredQuote): QuoteStatus {
    if (quote.status === 'open' && this.deps.clock.now() >= quote.expiresAt) return 'expired';
    return quote.status;
  }
}

function noSolvers(request: ResolvedQuoteRequest, what: string): ValidationError {
  return new ValidationError({
    code: 'corridor_unavailable',
    param: request.corridorParam,
    message: `${what} ${request.corridor.id}; try again later or another corridor.`,
  });
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}
