import type { RfqDetails } from '../../contracts/solver-stream.js';
import { type Address, getAddress } from 'viem';
import type { ScheduledJob } from '../../clock/index.js';
import { isoTime } from '../api/wire.js';
import type { Corridor } from '../corridors/schemas.js';
import { newId } from '../store/ids.js';
import type { AuctionOutcome, AuctionTerms, CollectedQuote } from './auctioneer.js';
import { feeBps, maximumInput, minimumOutput, priceImpactBps, priceString, toDecimalString } from './pricing.js';
import type { QuoteRequestContext, QuoteServiceDeps } from './auction-deps.js';
import type { ResolvedQuoteRequest } from './quote-request.js';
import { bestPriced, rankQuotes } from './ranking.js';
import type { RfqRecord, StoredQuote } from './rfq-repository.js';
import type { NonceSource } from './types.js';
import type { PriceTier } from '../events/price-feed.js';

const RFQ_EXPIRY_JOB = 'quote.expiry';

/** Price feed tiers by the RFQ's notional (USD; 1 stable token = 1 USD). */
export function priceTier(notionalUsd: bigint): PriceTier {
  if (notionalUsd < 50_000n) return 'retail';
  if (notionalUsd < 250_000n) return 'standard';
  return 'institutional';
}

export function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

/**
 * One RFQ round of the auction: opening it (event and evidence), the terms solvers must meet, closing it (rank,
 * store, invitations, evidence and `quote.received` in one commit, the taker's nonce included), the quotes' expiry
 * job and the price feed update. The quote service runs rounds; this module owns their writes.
 */
export class RfqRounds {
  nonceSource: NonceSource | undefined;
  private readonly jobs = new Set<ScheduledJob>();

  constructor(private readonly deps: QuoteServiceDeps) {}

  /** Cancels the quotes' expiry jobs (the service is stopping). */
  cancelJobs(): void {
    for (const job of this.jobs) this.deps.clock.cancel(job);
    this.jobs.clear();
  }

  /** Opens an RFQ: its `rfq.created` event and ledger entry, in one commit; returns it with the broadcast envelope. */
  open(request: ResolvedQuoteRequest, context: QuoteRequestContext, invited: ReadonlySet<string>) {
    const { clock, settings, rfqs, evidence } = this.deps;
    const now = clock.now();
    const fillDeadline = Math.floor((now + settings.fillWindowMs) / 1000);
    const expires = fillDeadline + Math.ceil(settings.refundGraceMs / 1000);
    const id = newId('rfq');
    const fixedDecimals = request.swapType === 'exactInput' ? request.inputToken.decimals : request.outputToken.decimals;
    const respondBy = now + settings.windowMs;
    const terms = this.limits(request.swapType, request.amount, request.inputToken.decimals, request.outputToken.decimals);
    // The chains and tokens, as both the stored RFQ and the message to solvers carry them.
    const route = {
      originChainId: request.originChain.chainId,
      destinationChainId: request.destinationChain.chainId,
      inputToken: getAddress(request.inputToken.address),
      outputToken: getAddress(request.outputToken.address),
      inputDecimals: request.inputToken.decimals,
      outputDecimals: request.outputToken.decimals,
    };
    const rfqPayload: RfqDetails = {
      id,
      pair: request.pair,
      side: request.side,
      amount: toDecimalString(request.amount, fixedDecimals),
      corridor: request.corridor.id,
      deadline: Math.ceil(respondBy / 1000),
      complianceAttestation: context.attestation,
      ...route,
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
    const eventId = newId('evt');
    const rfq: RfqRecord = {
      id,
      workspaceId: context.workspaceId,
      requestId: context.requestId,
      corridor: request.corridor.id,
      ...route,
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
      eventId,
      createdAt: now,
      closedAt: null,
    };
    return evidence.outbox.commit(
      () => {
        // The RFQ's own row first: it is written before the store's write lock, which the event append takes.
        rfqs.insertRfq(rfq);
        const event = evidence.outbox.append({
          id: eventId,
          workspaceId: context.workspaceId,
          type: 'rfq.created',
          generation: 'B',
          rfqId: id,
          data: { rfq: rfqPayload },
          at: now,
        });
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
      },
      { writeLock: 'deferred' },
    );
  }

  private limits(swapType: RfqRecord['swapType'], amount: bigint, inputDecimals: number, outputDecimals: number) {
    const { maxFeeBps } = this.deps.settings;
    return swapType === 'exactInput'
      ? { minOutputAmount: minimumOutput(amount, inputDecimals, outputDecimals, maxFeeBps) }
      : { maxInputAmount: maximumInput(amount, outputDecimals, inputDecimals, maxFeeBps) };
  }

  terms(rfq: RfqRecord): AuctionTerms {
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
  close(rfq: RfqRecord, outcome: AuctionOutcome, workspaceId: string | null): { stored: StoredQuote[]; nonce: bigint | undefined } {
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
    const nonce = evidence.outbox.commit(
      () => {
        // Own rows first, without the store's write lock; the solvers' totals, rows every instance updates, once per
        // solver at the end, under it (RfqRepository.addingUpTotals).
        rfqs.addingUpTotals(() => {
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
        });
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
        // The quotes, invitations and the RFQ's close are this auction's own rows (nobody decides on them before this
        // commits): they are written before the store's write lock. The solvers' totals they add to are written at
        // the end of them, under the lock, as the nonce allocation, which reads and decides, must be.
      },
      { writeLock: 'deferred' },
    );
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

  scheduleExpiry(rfqId: string, at: number): void {
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
  allocateNonce(rfq: Pick<RfqRecord, 'id' | 'lockType' | 'originChainId'>, user: Address): bigint {
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

  trade(rfq: RfqRecord, quote: Pick<CollectedQuote, 'inputAmount' | 'outputAmount'>) {
    return {
      inputAmount: quote.inputAmount,
      inputDecimals: rfq.inputDecimals,
      outputAmount: quote.outputAmount,
      outputDecimals: rfq.outputDecimals,
    };
  }

  corridor(rfq: RfqRecord): Corridor {
    return this.deps.resolver.corridor(rfq.corridor);
  }
}
