/**
 * Runs the live part of an auction: which solvers were invited, which answered, and when the auction closes —
 * as soon as every invited solver answered (a quote or a decline) or when the window ends. Quotes are checked
 * here against the RFQ's terms; ranking and storage happen once the auction closed (QuoteService).
 *
 * The window is the solver's: measured where its socket is. A solver connected to another service instance of the
 * store hears of the RFQ later and its answer comes back later, both over Postgres (solver-network.ts); that transit
 * is the service's own and must not cost the solver its quote (under load it was often longer than the whole
 * window). So when such solvers are still to answer at the window's end, the auction runs an overtime (at most
 * `overtimeMs`) for them alone: an answer they gave within the window (by their instance's measure) still counts,
 * anything later is `rfq_expired`, as it is for a solver on this instance.
 *
 * The window is a wait on sockets, bounded in wall time like any I/O timeout: advancing the sandbox clock must
 * not cut an auction short, and clock jobs (which run one at a time) must not hold one open.
 */
import { performance } from 'node:perf_hooks';
import type { DeclineAnswer, QuoteAnswer, QuoteRejection, QuoteRejectionCode } from '../../contracts/solver-stream.js';
import type { Clock } from '../../clock/index.js';
import type { LockType } from '../../contracts/order.js';
import { newId } from '../store/ids.js';
import type { SwapType } from './ranking.js';
import type { SettlementPath } from './types.js';

export interface AuctionTerms {
  rfqId: string;
  swapType: SwapType;
  /** The fixed side: input for exactInput, output for exactOutput. */
  amount: bigint;
  inputDecimals: number;
  outputDecimals: number;
  lockType: LockType;
  settlementPath: SettlementPath;
  /** exactInput: quotes must offer at least this output. */
  minOutputAmount?: bigint;
  /** exactOutput: quotes may ask at most this input. */
  maxInputAmount?: bigint;
}

/** What a solver sends for an RFQ (the solver stream validates the message shape). */
export interface SolverQuoteInput {
  rfqId: string;
  outputAmount?: string | undefined;
  inputAmount?: string | undefined;
  price?: string | undefined;
  lockTypes?: readonly LockType[] | undefined;
  lockType?: LockType | undefined;
  settlementPath?: SettlementPath | undefined;
  confidence?: number | undefined;
  clientQuoteId?: string | undefined;
}

export type { DeclineAnswer, QuoteAnswer, QuoteRejection, QuoteRejectionCode } from '../../contracts/solver-stream.js';

/**
 * When an answer came: performance.now() as its frame arrived on this instance, or, for an answer forwarded by the
 * instance holding the solver's socket, how long the solver took there (from the RFQ sent on its socket to its answer).
 */
export type AnswerTime = number | { latencyMs: number };

/** Solvers reached through other instances, and how long past the window the auction may wait for their answers. */
export interface RemoteInvitees {
  solvers: ReadonlySet<string>;
  overtimeMs: number;
}

export interface CollectedQuote {
  quoteId: string;
  solverId: string;
  inputAmount: bigint;
  outputAmount: bigint;
  /** Broadcast to receipt, monotonic wall ms. */
  latencyMs: number;
  confidence: number;
  /** Clock ms when it arrived. */
  receivedAt: number;
}

export interface AuctionOutcome {
  quotes: CollectedQuote[];
  declined: Map<string, { reason: string | null; latencyMs: number }>;
  /** Solvers whose every attempt was rejected: their last rejection. */
  rejected: Map<string, { code: QuoteRejectionCode; reason: string }>;
  /** Invited solvers that neither quoted nor declined (silent or disconnected). */
  silent: string[];
  /** Monotonic wall ms at which the last answer arrived (undefined: none), and when the auction closed. */
  lastAnswerAt: number | undefined;
  closedAt: number;
}

interface LiveAuction {
  terms: AuctionTerms;
  invited: ReadonlySet<string>;
  waiting: Set<string>;
  startedAt: number;
  windowMs: number;
  remote: RemoteInvitees | undefined;
  /** The window ended; the auction waits only for answers in transit from other instances. */
  overtime: boolean;
  quotes: Map<string, CollectedQuote>;
  declined: Map<string, { reason: string | null; latencyMs: number }>;
  rejected: Map<string, { code: QuoteRejectionCode; reason: string }>;
  lastAnswerAt: number | undefined;
  timer: NodeJS.Timeout | undefined;
  resolve(outcome: AuctionOutcome): void;
}

/** RFQ ids recently closed here, so a late quote hears `rfq_expired` without a database read. */
const RECENTLY_CLOSED_LIMIT = 10_000;

export class Auctioneer {
  private readonly live = new Map<string, LiveAuction>();
  private readonly recentlyClosed = new Set<string>();

  constructor(
    private readonly clock: Clock,
    /** Whether an RFQ id exists at all (closed long ago or never): decides rfq_expired vs rfq_unknown. */
    private readonly rfqExists: (rfqId: string) => boolean,
  ) {}

  /**
   * Starts collecting for an RFQ that was just broadcast to `invited` at `startedAt` (performance.now()). Resolves
   * when every invited solver answered, when the window ends, or on `abortAll`.
   */
  open(
    terms: AuctionTerms,
    invited: ReadonlySet<string>,
    windowMs: number,
    startedAt: number = performance.now(),
    remote?: RemoteInvitees,
  ): Promise<AuctionOutcome> {
    return new Promise((resolve) => {
      const live: LiveAuction = {
        terms,
        invited,
        waiting: new Set(invited),
        startedAt,
        windowMs,
        remote: remote === undefined || remote.solvers.size === 0 || remote.overtimeMs <= 0 ? undefined : remote,
        overtime: false,
        quotes: new Map(),
        declined: new Map(),
        rejected: new Map(),
        lastAnswerAt: undefined,
        timer: undefined,
        resolve,
      };
      this.live.set(terms.rfqId, live);
      if (live.waiting.size === 0) {
        this.close(live);
        return;
      }
      // The end is looked at after one more turn of I/O (setImmediate runs after the poll phase): when synchronous
      // store calls held the event loop (another instance holding the store's write lock), answers that arrived in
      // time are still unread in their sockets, and the window's timer would otherwise run before them and refuse them.
      live.timer = setTimeout(() => setImmediate(() => this.windowEnded(live)), Math.max(0, windowMs - (performance.now() - startedAt)));
    });
  }

  isLive(rfqId: string): boolean {
    return this.live.has(rfqId);
  }

  liveCount(): number {
    return this.live.size;
  }

  /** A solver's quote, answered at `time` (by default: now, on this instance). */
  submitQuote(solverId: string, input: SolverQuoteInput, time: AnswerTime = performance.now()): QuoteAnswer {
    const found = this.find(input.rfqId, solverId);
    const withClientId = <T extends object>(answer: T): T =>
      input.clientQuoteId === undefined ? answer : { ...answer, clientQuoteId: input.clientQuoteId };
    if ('rejection' in found) return withClientId(found.rejection);
    const live = found.live;
    const latencyMs = this.latency(live, time);
    if (live.overtime && latencyMs > live.windowMs) return withClientId(this.late(live, solverId));
    const reject = (code: QuoteRejectionCode, reason: string): QuoteRejection => {
      if (!live.quotes.has(solverId)) live.rejected.set(solverId, { code, reason });
      return withClientId({ type: 'quote.rejected', rfqId: input.rfqId, code, reason });
    };
    if (live.quotes.has(solverId)) return withClientId(rejection(input.rfqId, 'duplicate_quote', 'this solver already quoted on this RFQ'));
    if (live.declined.has(solverId)) return withClientId(rejection(input.rfqId, 'duplicate_quote', 'this solver declined this RFQ'));
    const { terms } = live;
    if (
      (input.lockType !== undefined && input.lockType !== terms.lockType) ||
      (input.lockTypes !== undefined && !input.lockTypes.includes(terms.lockType))
    ) {
      return reject('lock_type_unsupported', `the RFQ is for lock type ${terms.lockType}`);
    }
    if (input.settlementPath !== undefined && input.settlementPath !== terms.settlementPath) {
      return reject('settlement_path_unsupported', `the RFQ is for the ${terms.settlementPath} settlement path`);
    }
    const amounts = quotedAmounts(terms, input);
    if ('error' in amounts) return reject('malformed', amounts.error);
    if (terms.minOutputAmount !== undefined && amounts.outputAmount < terms.minOutputAmount) {
      return reject('below_minimum', `outputAmount must be at least ${terms.minOutputAmount}`);
    }
    if (terms.maxInputAmount !== undefined && amounts.inputAmount > terms.maxInputAmount) {
      return reject('above_maximum', `inputAmount must be at most ${terms.maxInputAmount}`);
    }
    const quote: CollectedQuote = {
      quoteId: newId('qt'),
      solverId,
      inputAmount: amounts.inputAmount,
      outputAmount: amounts.outputAmount,
      latencyMs,
      confidence: input.confidence ?? 1,
      receivedAt: this.clock.now(),
    };
    live.quotes.set(solverId, quote);
    live.rejected.delete(solverId);
    this.answered(live, solverId, live.startedAt + latencyMs);
    return withClientId({ type: 'quote.ack', rfqId: input.rfqId, quoteId: quote.quoteId });
  }

  decline(solverId: string, rfqId: string, reason: string | undefined, time: AnswerTime = performance.now()): DeclineAnswer {
    const found = this.find(rfqId, solverId);
    if ('rejection' in found) return found.rejection;
    const live = found.live;
    if (live.quotes.has(solverId)) return rejection(rfqId, 'duplicate_quote', 'this solver already quoted on this RFQ');
    if (live.declined.has(solverId)) return { type: 'decline.ack', rfqId };
    const latencyMs = this.latency(live, time);
    if (live.overtime && latencyMs > live.windowMs) return this.late(live, solverId);
    live.declined.set(solverId, { reason: reason ?? null, latencyMs });
    this.answered(live, solverId, live.startedAt + latencyMs);
    return { type: 'decline.ack', rfqId };
  }

  /**
   * A quote the stream could not even parse, for a live RFQ the solver was invited to: remembered as the solver's
   * rejection (the RFQ view shows `rejected`, not `silent`). The answer itself is sent by the stream.
   */
  recordMalformed(solverId: string, rfqId: string, reason: string): void {
    const live = this.live.get(rfqId);
    if (live === undefined || !live.invited.has(solverId) || live.quotes.has(solverId) || live.declined.has(solverId)) return;
    live.rejected.set(solverId, { code: 'malformed', reason });
  }

  /** The solver has no live subscribed connection any more: stop waiting for it. */
  solverGone(solverId: string): void {
    for (const live of [...this.live.values()]) {
      if (live.waiting.delete(solverId)) this.closeIfDone(live);
    }
  }

  /** Closes every running auction now (service stop). */
  abortAll(): void {
    for (const live of [...this.live.values()]) this.close(live);
  }

  private find(rfqId: string, solverId: string): { live: LiveAuction } | { rejection: QuoteRejection } {
    const live = this.live.get(rfqId);
    if (live === undefined) {
      if (this.recentlyClosed.has(rfqId) || this.rfqExists(rfqId)) {
        return { rejection: rejection(rfqId, 'rfq_expired', 'the auction window of this RFQ has closed') };
      }
      return { rejection: rejection(rfqId, 'rfq_unknown', 'no such RFQ') };
    }
    if (!live.invited.has(solverId)) return { rejection: rejection(rfqId, 'not_invited', 'this solver was not invited to this RFQ') };
    return { live };
  }

  private answered(live: LiveAuction, solverId: string, at: number): void {
    live.lastAnswerAt = at;
    live.waiting.delete(solverId);
    this.closeIfDone(live);
  }

  /** Milliseconds from the broadcast to the answer, as the solver experienced them. */
  private latency(live: LiveAuction, time: AnswerTime): number {
    return Math.max(0, typeof time === 'number' ? time - live.startedAt : time.latencyMs);
  }

  /**
   * An answer given after the window, arriving in the overtime: expired, as it would be had the auction closed. (Until
   * the window's timer has run, answers count as they come, as they always did.)
   */
  private late(live: LiveAuction, solverId: string): QuoteRejection {
    live.waiting.delete(solverId);
    this.closeIfDone(live);
    return rejection(live.terms.rfqId, 'rfq_expired', 'the auction window of this RFQ has closed');
  }

  /** Everyone answered, or, in the overtime, no solver of another instance is still to answer. */
  private closeIfDone(live: LiveAuction): void {
    if (live.waiting.size === 0 || (live.overtime && !this.awaitsRemote(live))) this.close(live);
  }

  private awaitsRemote(live: LiveAuction): boolean {
    const remote = live.remote?.solvers;
    return remote !== undefined && [...live.waiting].some((solverId) => remote.has(solverId));
  }

  /** The window is over: closes, unless answers of solvers on other instances may still be on their way. */
  private windowEnded(live: LiveAuction): void {
    if (this.live.get(live.terms.rfqId) !== live) return;
    if (live.remote === undefined || !this.awaitsRemote(live)) {
      this.close(live);
      return;
    }
    live.overtime = true;
    live.timer = setTimeout(() => setImmediate(() => this.close(live)), live.remote.overtimeMs);
  }

  private close(live: LiveAuction): void {
    if (this.live.get(live.terms.rfqId) !== live) return;
    if (live.timer !== undefined) clearTimeout(live.timer);
    this.live.delete(live.terms.rfqId);
    this.recentlyClosed.add(live.terms.rfqId);
    if (this.recentlyClosed.size > RECENTLY_CLOSED_LIMIT) {
      const oldest = this.recentlyClosed.values().next().value;
      if (oldest !== undefined) this.recentlyClosed.delete(oldest);
    }
    const silent = [...live.invited].filter((id) => !live.quotes.has(id) && !live.declined.has(id));
    live.resolve({
      quotes: [...live.quotes.values()],
      declined: live.declined,
      rejected: live.rejected,
      silent,
      lastAnswerAt: live.lastAnswerAt,
      closedAt: performance.now(),
    });
  }
}

function rejection(rfqId: string, code: QuoteRejectionCode, reason: string): QuoteRejection {
  return { type: 'quote.rejected', rfqId, code, reason };
}

/** A decimal price as integer / 10^scale. */
function parsePrice(text: string): { units: bigint; scale: bigint } {
  const [whole, fraction = ''] = text.split('.');
  return { units: BigInt(`${whole}${fraction}`), scale: 10n ** BigInt(fraction.length) };
}

/**
 * Both amounts of a quote. exactInput: the output comes from `outputAmount` or from `price` (rounded down);
 * exactOutput: the input from `inputAmount` or `price` (rounded up). The fixed side may be echoed, but must match.
 */
export function quotedAmounts(
  terms: AuctionTerms,
  input: SolverQuoteInput,
): { inputAmount: bigint; outputAmount: bigint } | { error: string } {
  const exactInput = terms.swapType === 'exactInput';
  const quotedField = exactInput ? 'outputAmount' : 'inputAmount';
  const fixedField = exactInput ? 'inputAmount' : 'outputAmount';
  const quoted = input[quotedField];
  const fixed = input[fixedField];
  if (fixed !== undefined && BigInt(fixed) !== terms.amount) {
    return { error: `${fixedField} is fixed by the RFQ (${terms.amount}); quote ${quotedField} or price` };
  }
  if (quoted !== undefined && input.price !== undefined) return { error: `send either ${quotedField} or price, not both` };
  let amount: bigint;
  if (quoted !== undefined) amount = BigInt(quoted);
  else if (input.price !== undefined) {
    const price = parsePrice(input.price);
    if (price.units === 0n) return { error: 'price must be positive' };
    const inScale = 10n ** BigInt(terms.inputDecimals);
    const outScale = 10n ** BigInt(terms.outputDecimals);
    if (exactInput) amount = (terms.amount * price.units * outScale) / (price.scale * inScale);
    else {
      const numerator = terms.amount * price.scale * inScale;
      const denominator = price.units * outScale;
      amount = (numerator + denominator - 1n) / denominator;
    }
  } else return { error: `a quote needs ${quotedField} (or price)` };
  if (amount <= 0n) return { error: `${quotedField} must be positive` };
  if (amount >= 1n << 256n) return { error: `${quotedField} exceeds uint256` };
  return exactInput ? { inputAmount: terms.amount, outputAmount: amount } : { inputAmount: amount, outputAmount: terms.amount };
}
