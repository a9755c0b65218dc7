/**
 * The auction as the API sees it: open an RFQ, broadcast it, collect and rank the answers, keep the quotes, and
 * hand out quote details with the StandardOrder and EIP-712 payload a taker signs. Also the QuoteBook the orders
 * module reads and accepts quotes through.
 */
import { performance } from 'node:perf_hooks';
import { type Address, getAddress, zeroAddress } from 'viem';
import { standardOrderToWire } from '../../contracts/standard-order-wire.js';
import type { StandardOrder } from '../../contracts/order.js';
import { typedDataToJson } from '../../contracts/typed-data.js';
import { NotFoundError, ValidationError } from '../errors/api-errors.js';
import { isoTime } from '../api/wire.js';
import { buildStandardOrder, onchainOrderId, type OrderTerms, typedDataFor } from '../../contracts/standard-order.js';
import type { AuctionOutcome } from './auctioneer.js';
import { priceString, toDecimalString } from './pricing.js';
import type { ResolvedQuoteRequest } from './quote-request.js';
import type { RfqRecord, StoredQuote } from './rfq-repository.js';
import type { QuoteRequestBody } from './schemas.js';
import type { NonceSource, QuoteBook, QuoteRecord, QuoteStatus } from './types.js';
import type { QuoteRequestContext, QuoteServiceDeps, SolverChannel } from './auction-deps.js';
import { RfqRounds, round1 } from './rfq-round.js';

export type { AuctionSettings, Evidence, QuoteRequestContext, QuoteServiceDeps, SolverChannel } from './auction-deps.js';
export { priceTier } from './rfq-round.js';

export class QuoteService implements QuoteBook {
  private channel: SolverChannel | undefined;
  private solverFilter: ((solverId: string, settlementPath: string) => boolean) | undefined;
  private readonly rounds: RfqRounds;
  private readonly inFlight = new Set<Promise<unknown>>();
  private stopped = false;

  constructor(private readonly deps: QuoteServiceDeps) {
    this.rounds = new RfqRounds(deps);
  }

  useChannel(channel: SolverChannel): void {
    this.channel = channel;
  }

  useNonceSource(source: NonceSource | undefined): void {
    this.rounds.nonceSource = source;
  }

  /** Keeps a solver out of the RFQs of one settlement path (the deferred rail's paused liquidity providers). */
  useSolverFilter(filter: (solverId: string, settlementPath: string) => boolean): void {
    this.solverFilter = filter;
  }

  /** POST /quotes: resolves the request, runs the auction and answers the ranked quotes. */
  async requestQuotes(body: QuoteRequestBody, context: QuoteRequestContext) {
    const request = this.deps.resolver.resolve(body);
    const channel = this.channel;
    const connected = channel?.eligibleSolvers(request.corridor.id) ?? new Set<string>();
    const filter = this.solverFilter;
    const eligible = filter === undefined ? connected : new Set([...connected].filter((id) => filter(id, request.settlementPath)));
    if (channel === undefined || eligible.size === 0 || this.stopped) throw noSolvers(request, 'No solver is connected for');
    const { rfq, envelope } = this.rounds.open(request, context, eligible);
    const startedAt = performance.now();
    const reached = channel.broadcast(eligible, rfq.corridor, envelope, rfq.id);
    const { windowMs } = this.deps.settings;
    const remote = {
      solvers: new Set([...reached].filter((id) => channel.viaOtherInstance?.(id) ?? false)),
      overtimeMs: overtimeFor(windowMs),
    };
    const running = this.deps.auctioneer.open(this.rounds.terms(rfq), reached, windowMs, startedAt, remote);
    this.inFlight.add(running);
    let outcome: AuctionOutcome;
    try {
      outcome = await running;
    } finally {
      this.inFlight.delete(running);
    }
    if (!this.deps.store.open) throw noSolvers(request, 'The service stopped while collecting quotes on');
    const { stored: quotes, nonce } = this.rounds.close(rfq, outcome, context.workspaceId);
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
    if (user !== null) nonce = status === 'open' ? this.rounds.allocateNonce(rfq, user) : this.deps.rfqs.issuedNonce(rfq.id, user);
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
        price: quote ? priceString(this.rounds.trade(rfq, quote)) : null,
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
      exclusive: this.exclusive(rfq, quote),
    };
  }

  /** The winner's exclusive window for `quote`, or null (disabled, or the solver has no registered address). */
  private exclusive(rfq: RfqRecord, quote: Pick<StoredQuote, 'solverId' | 'createdAt'>): { solver: Address; until: number } | null {
    const exclusivityMs = this.deps.settings.exclusivityMs ?? 0;
    if (exclusivityMs <= 0) return null;
    const address = this.deps.solvers.get(quote.solverId)?.address;
    if (address == null) return null;
    const until = Math.min(rfq.fillDeadline, Math.floor((quote.createdAt + exclusivityMs) / 1000));
    return { solver: getAddress(address), until };
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
    for (const { id, expiresAt } of this.deps.rfqs.openQuoteRfqs()) this.rounds.scheduleExpiry(id, expiresAt);
  }

  /** Closes running auctions (their requests answer) and cancels expiry jobs; call before the store closes. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.deps.auctioneer.abortAll();
    await Promise.allSettled([...this.inFlight]);
    this.rounds.cancelJobs();
  }

  // Internals --------------------------------------------------------------------------------------------------

  private signable(rfq: RfqRecord, quote: StoredQuote, user: Address, nonce: bigint) {
    const terms = this.orderTerms(rfq, quote);
    const order: StandardOrder = buildStandardOrder(terms, user, nonce);
    return {
      nonce: nonce.toString(),
      standardOrder: standardOrderToWire(order),
      typedData: typedDataToJson(typedDataFor(terms, order)) as Record<string, unknown>,
    };
  }

  private orderTerms(rfq: RfqRecord, quote: Pick<StoredQuote, 'inputAmount' | 'outputAmount' | 'solverId' | 'createdAt'>): OrderTerms {
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
      exclusive: this.exclusive(rfq, quote),
    };
  }

  private status(quote: StoredQuote): QuoteStatus {
    if (quote.status === 'open' && this.deps.clock.now() >= quote.expiresAt) return 'expired';
    return quote.status;
  }
}

/**
 * How long past the window an auction waits for answers of solvers on other instances, given within the window where
 * their sockets are (auctioneer.ts): their trips over Postgres. Only spent while such an answer is missing, so a
 * generous bound costs nothing when they answer; a silent solver on another instance holds the request this long.
 */
function overtimeFor(windowMs: number): number {
  return Math.max(windowMs, 1_000);
}

function noSolvers(request: ResolvedQuoteRequest, what: string): ValidationError {
  return new ValidationError({
    code: 'corridor_unavailable',
    param: request.corridorParam,
    message: `${what} ${request.corridor.id}; try again later or another corridor.`,
  });
}
