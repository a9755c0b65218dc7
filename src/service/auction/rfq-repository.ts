import type { Address } from 'viem';
import type { LockType } from '../../contracts/order.js';
import { normalise } from './pricing.js';
import type { Store } from '../store/store.js';
import type { Preference, SwapType } from './ranking.js';
import type { QuoteStatus, SettlementPath } from './types.js';

export type RfqStatus = 'collecting' | 'quoted' | 'no_quotes';
export type InvitationOutcome = 'quoted' | 'declined' | 'rejected' | 'silent';

export interface RfqRecord {
  id: string;
  workspaceId: string | null;
  requestId: string | null;
  corridor: string;
  originChainId: number;
  destinationChainId: number;
  inputToken: Address;
  outputToken: Address;
  inputDecimals: number;
  outputDecimals: number;
  pair: string;
  side: 'buy' | 'sell';
  swapType: SwapType;
  /** The fixed side: input for exactInput, output for exactOutput. */
  amount: bigint;
  preference: Preference;
  lockType: LockType;
  settlementPath: SettlementPath;
  user: Address | null;
  attestation: string | null;
  /** Unix seconds. */
  fillDeadline: number;
  expires: number;
  status: RfqStatus;
  /** Clock ms: end of the auction window (informational; the window runs on a timer). */
  respondBy: number;
  quoteExpiresAt: number;
  /** `evt_` id of the rfq.created envelope (outbox row and solver broadcast share it). */
  eventId: string;
  createdAt: number;
  closedAt: number | null;
}

export interface InvitationRecord {
  rfqId: string;
  solverId: string;
  outcome: InvitationOutcome;
  reason: string | null;
  latencyMs: number | null;
}

export interface StoredQuote {
  id: string;
  rfqId: string;
  solverId: string;
  rank: number;
  bestPrice: boolean;
  status: QuoteStatus;
  inputAmount: bigint;
  outputAmount: bigint;
  feeBps: number;
  priceImpactBps: number;
  latencyMs: number;
  confidence: number;
  createdAt: number;
  expiresAt: number;
  orderId: string | null;
  acceptedAt: number | null;
  outcome: 'filled' | 'failed' | null;
  outcomeAt: number | null;
}

interface RfqRow {
  id: string;
  workspace_id: string | null;
  request_id: string | null;
  corridor: string;
  origin_chain_id: number;
  destination_chain_id: number;
  input_token: string;
  output_token: string;
  input_decimals: number;
  output_decimals: number;
  pair: string;
  side: 'buy' | 'sell';
  swap_type: SwapType;
  amount: string;
  preference: Preference;
  lock_type: LockType;
  settlement_path: SettlementPath;
  user: string | null;
  attestation: string | null;
  fill_deadline: number;
  expires: number;
  status: RfqStatus;
  respond_by: number;
  quote_expires_at: number;
  event_id: string;
  created_at: number;
  closed_at: number | null;
}

interface QuoteRow {
  id: string;
  rfq_id: string;
  solver_id: string;
  rank: number;
  best_price: number;
  status: QuoteStatus;
  input_amount: string;
  output_amount: string;
  fee_bps: number;
  price_impact_bps: number;
  latency_ms: number;
  confidence: number;
  created_at: number;
  expires_at: number;
  order_id: string | null;
  accepted_at: number | null;
  outcome: 'filled' | 'failed' | null;
  outcome_at: number | null;
}

function rfqFromRow(row: RfqRow): RfqRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    requestId: row.request_id,
    corridor: row.corridor,
    originChainId: row.origin_chain_id,
    destinationChainId: row.destination_chain_id,
    inputToken: row.input_token as Address,
    outputToken: row.output_token as Address,
    inputDecimals: row.input_decimals,
    outputDecimals: row.output_decimals,
    pair: row.pair,
    side: row.side,
    swapType: row.swap_type,
    amount: BigInt(row.amount),
    preference: row.preference,
    lockType: row.lock_type,
    settlementPath: row.settlement_path,
    user: row.user as Address | null,
    attestation: row.attestation,
    fillDeadline: row.fill_deadline,
    expires: row.expires,
    status: row.status,
    respondBy: row.respond_by,
    quoteExpiresAt: row.quote_expires_at,
    eventId: row.event_id,
    createdAt: row.created_at,
    closedAt: row.closed_at,
  };
}

function quoteFromRow(row: QuoteRow): StoredQuote {
  return {
    id: row.id,
    rfqId: row.rfq_id,
    solverId: row.solver_id,
    rank: row.rank,
    bestPrice: row.best_price === 1,
    status: row.status,
    inputAmount: BigInt(row.input_amount),
    outputAmount: BigInt(row.output_amount),
    feeBps: row.fee_bps,
    priceImpactBps: row.price_impact_bps,
    latencyMs: row.latency_ms,
    confidence: row.confidence,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    orderId: row.order_id,
    acceptedAt: row.accepted_at,
    outcome: row.outcome,
    outcomeAt: row.outcome_at,
  };
}

export interface SolverTotals {
  quotes: number;
  invited: number;
  responded: number;
  bestQuotes: number;
  wins: number;
  filled: number;
  failed: number;
  /** Input amounts of the accepted quotes, each in 18-decimal units of its token (the leaderboard's volume). */
  wonVolume: bigint;
}

/** RFQs, their invitations and quotes, and the nonces handed out with quotes. Statements are prepared once. */
/** What one change adds to a solver's running totals. */
type TotalsDelta = Partial<Pick<SolverTotals, 'quotes' | 'bestQuotes' | 'wins' | 'filled' | 'failed' | 'invited' | 'responded'>>;

export class RfqRepository {
  private readonly statements;
  /** Totals being added up by `addingUpTotals`, written at its end. */
  private pendingTotals: Map<string, TotalsDelta> | undefined;

  constructor(private readonly store: Store) {
    const db = store.db;
    this.statements = {
      insertRfq: db.prepare(
        `INSERT INTO rfqs (id, workspace_id, request_id, corridor, origin_chain_id, destination_chain_id, input_token, output_token,
           input_decimals, output_decimals, pair, side, swap_type, amount, preference, lock_type, settlement_path, user, attestation,
           fill_deadline, expires, status, respond_by, quote_expires_at, event_id, created_at, closed_at)
         VALUES (@id, @workspace_id, @request_id, @corridor, @origin_chain_id, @destination_chain_id, @input_token, @output_token,
           @input_decimals, @output_decimals, @pair, @side, @swap_type, @amount, @preference, @lock_type, @settlement_path, @user, @attestation,
           @fill_deadline, @expires, @status, @respond_by, @quote_expires_at, @event_id, @created_at, @closed_at)`,
      ),
      getRfq: db.prepare('SELECT * FROM rfqs WHERE id = ?'),
      closeRfq: db.prepare('UPDATE rfqs SET status = ?, closed_at = ? WHERE id = ?'),
      insertInvitation: db.prepare('INSERT INTO rfq_invitations (rfq_id, solver_id, outcome, reason, latency_ms) VALUES (?, ?, ?, ?, ?)'),
      invitations: db.prepare(
        'SELECT rfq_id, solver_id, outcome, reason, latency_ms FROM rfq_invitations WHERE rfq_id = ? ORDER BY solver_id',
      ),
      insertQuote: db.prepare(
        `INSERT INTO quotes (id, rfq_id, solver_id, rank, best_price, status, input_amount, output_amount, fee_bps, price_impact_bps,
           latency_ms, confidence, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, 'open', ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      getQuote: db.prepare('SELECT * FROM quotes WHERE id = ?'),
      quotesOf: db.prepare('SELECT * FROM quotes WHERE rfq_id = ? ORDER BY rank'),
      quoteByOrder: db.prepare('SELECT * FROM quotes WHERE order_id = ?'),
      accept: db.prepare(
        `UPDATE quotes SET status = 'accepted', order_id = ?, accepted_at = ?
         WHERE id = ? AND status = 'open' AND expires_at > ?
           AND NOT EXISTS (SELECT 1 FROM quotes sibling WHERE sibling.rfq_id = quotes.rfq_id AND sibling.status = 'accepted')`,
      ),
      expireRfqQuotes: db.prepare("UPDATE quotes SET status = 'expired' WHERE rfq_id = ? AND status = 'open' AND expires_at <= ?"),
      expireAllDue: db.prepare("UPDATE quotes SET status = 'expired' WHERE status = 'open' AND expires_at <= ?"),
      openRfqsWithQuotes: db.prepare(
        "SELECT rfq_id AS id, MIN(expires_at) AS expires_at FROM quotes WHERE status = 'open' GROUP BY rfq_id ORDER BY expires_at",
      ),
      staleCollecting: db.prepare("SELECT id FROM rfqs WHERE status = 'collecting'"),
      setOutcome: db.prepare('UPDATE quotes SET outcome = ?, outcome_at = ? WHERE order_id = ? AND outcome IS NULL'),
      recentLatencies: db.prepare('SELECT latency_ms FROM quotes WHERE solver_id = ? ORDER BY created_at DESC, id DESC LIMIT ?'),
      outcomeCounts: db.prepare(
        "SELECT COUNT(CASE WHEN outcome = 'filled' THEN 1 END) AS filled, COUNT(CASE WHEN outcome = 'failed' THEN 1 END) AS failed FROM quotes WHERE solver_id = ?",
      ),
      solverStats: db.prepare('SELECT * FROM solver_stats'),
      // Running totals per solver (see migration 003_solver_stats): each change adds its deltas in its own transaction.
      bumpStats: db.prepare(
        `INSERT INTO solver_stats (solver_id, quotes, best_quotes, wins, filled, failed, invited, responded) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (solver_id) DO UPDATE SET quotes = solver_stats.quotes + excluded.quotes,
           best_quotes = solver_stats.best_quotes + excluded.best_quotes, wins = solver_stats.wins + excluded.wins,
           filled = solver_stats.filled + excluded.filled, failed = solver_stats.failed + excluded.failed,
           invited = solver_stats.invited + excluded.invited, responded = solver_stats.responded + excluded.responded`,
      ),
      wonVolumeOf: db.prepare('SELECT won_volume FROM solver_stats WHERE solver_id = ?'),
      // Compare-and-set: the volume is a uint256-sized integer string, beyond SQL integer arithmetic.
      setWonVolume: db.prepare('UPDATE solver_stats SET won_volume = ? WHERE solver_id = ? AND won_volume = ?'),
      acceptedAmount: db.prepare(
        'SELECT q.solver_id, q.input_amount, r.input_decimals FROM quotes q JOIN rfqs r ON r.id = q.rfq_id WHERE q.id = ?',
      ),
      solverOfOrder: db.prepare('SELECT solver_id FROM quotes WHERE order_id = ?'),
      issuedNonce: db.prepare('SELECT nonce FROM quote_users WHERE rfq_id = ? AND user = ?'),
      insertIssuedNonce: db.prepare('INSERT INTO quote_users (rfq_id, user, nonce, created_at) VALUES (?, ?, ?, ?)'),
      lastIssued: db.prepare('SELECT last_issued FROM nonce_counters WHERE user = ?'),
      setLastIssued: db.prepare(
        'INSERT INTO nonce_counters (user, last_issued) VALUES (?, ?) ON CONFLICT (user) DO UPDATE SET last_issued = excluded.last_issued',
      ),
    };
  }

  insertRfq(rfq: RfqRecord): void {
    this.statements.insertRfq.run({
      id: rfq.id,
      workspace_id: rfq.workspaceId,
      request_id: rfq.requestId,
      corridor: rfq.corridor,
      origin_chain_id: rfq.originChainId,
      destination_chain_id: rfq.destinationChainId,
      input_token: rfq.inputToken,
      output_token: rfq.outputToken,
      input_decimals: rfq.inputDecimals,
      output_decimals: rfq.outputDecimals,
      pair: rfq.pair,
      side: rfq.side,
      swap_type: rfq.swapType,
      amount: rfq.amount.toString(),
      preference: rfq.preference,
      lock_type: rfq.lockType,
      settlement_path: rfq.settlementPath,
      user: rfq.user,
      attestation: rfq.attestation,
      fill_deadline: rfq.fillDeadline,
      expires: rfq.expires,
      status: rfq.status,
      respond_by: rfq.respondBy,
      quote_expires_at: rfq.quoteExpiresAt,
      event_id: rfq.eventId,
      created_at: rfq.createdAt,
      closed_at: rfq.closedAt,
    });
  }

  getRfq(id: string): RfqRecord | undefined {
    const row = this.statements.getRfq.get(id) as RfqRow | undefined;
    return row && rfqFromRow(row);
  }

  closeRfq(id: string, status: Exclude<RfqStatus, 'collecting'>, at: number): void {
    this.statements.closeRfq.run(status, at, id);
  }

  /** RFQs left `collecting` by a stop mid-auction: nobody waits for them any more. */
  staleCollecting(): string[] {
    return (this.statements.staleCollecting.all() as Array<{ id: string }>).map((row) => row.id);
  }

  insertInvitation(invitation: InvitationRecord): void {
    this.statements.insertInvitation.run(
      invitation.rfqId,
      invitation.solverId,
      invitation.outcome,
      invitation.reason,
      invitation.latencyMs,
    );
    const responded = invitation.outcome === 'quoted' || invitation.outcome === 'declined';
    this.bumpStats(invitation.solverId, { invited: 1, responded: responded ? 1 : 0 });
  }

  invitations(rfqId: string): InvitationRecord[] {
    const rows = this.statements.invitations.all(rfqId) as Array<{
      rfq_id: string;
      solver_id: string;
      outcome: InvitationOutcome;
      reason: string | null;
      latency_ms: number | null;
    }>;
    return rows.map((row) => ({
      rfqId: row.rfq_id,
      solverId: row.solver_id,
      outcome: row.outcome,
      reason: row.reason,
      latencyMs: row.latency_ms,
    }));
  }

  insertQuote(quote: Omit<StoredQuote, 'status' | 'orderId' | 'acceptedAt' | 'outcome' | 'outcomeAt'>): void {
    this.statements.insertQuote.run(
      quote.id,
      quote.rfqId,
      quote.solverId,
      quote.rank,
      quote.bestPrice ? 1 : 0,
      quote.inputAmount.toString(),
      quote.outputAmount.toString(),
      quote.feeBps,
      quote.priceImpactBps,
      quote.latencyMs,
      quote.confidence,
      quote.createdAt,
      quote.expiresAt,
    );
    this.bumpStats(quote.solverId, { quotes: 1, bestQuotes: quote.bestPrice ? 1 : 0 });
  }

  getQuote(id: string): StoredQuote | undefined {
    const row = this.statements.getQuote.get(id) as QuoteRow | undefined;
    return row && quoteFromRow(row);
  }

  quotesOf(rfqId: string): StoredQuote[] {
    return (this.statements.quotesOf.all(rfqId) as QuoteRow[]).map(quoteFromRow);
  }

  quoteByOrder(orderId: string): StoredQuote | undefined {
    const row = this.statements.quoteByOrder.get(orderId) as QuoteRow | undefined;
    return row && quoteFromRow(row);
  }

  /** Open, unexpired, and no sibling of its RFQ accepted yet: one order per RFQ. */
  accept(quoteId: string, orderId: string, now: number): boolean {
    if (this.statements.accept.run(orderId, now, quoteId, now).changes !== 1) return false;
    const won = this.statements.acceptedAmount.get(quoteId) as { solver_id: string; input_amount: string; input_decimals: number };
    this.bumpStats(won.solver_id, { wins: 1 });
    this.addWonVolume(won.solver_id, normalise(BigInt(won.input_amount), Number(won.input_decimals)));
    return true;
  }

  expireRfqQuotes(rfqId: string, now: number): number {
    return this.statements.expireRfqQuotes.run(rfqId, now).changes;
  }

  expireAllDue(now: number): number {
    return this.statements.expireAllDue.run(now).changes;
  }

  /** RFQs that still have open quotes, with the time they expire (to re-schedule expiry after a restart). */
  openQuoteRfqs(): Array<{ id: string; expiresAt: number }> {
    return (this.statements.openRfqsWithQuotes.all() as Array<{ id: string; expires_at: number }>).map((row) => ({
      id: row.id,
      expiresAt: row.expires_at,
    }));
  }

  /** Records the outcome of the order a quote became; false when unknown or already recorded. */
  setOutcome(orderId: string, outcome: 'filled' | 'failed', at: number): boolean {
    if (this.statements.setOutcome.run(outcome, at, orderId).changes !== 1) return false;
    const { solver_id } = this.statements.solverOfOrder.get(orderId) as { solver_id: string };
    this.bumpStats(solver_id, outcome === 'filled' ? { filled: 1 } : { failed: 1 });
    return true;
  }

  recentLatencies(solverId: string, limit: number): number[] {
    return (this.statements.recentLatencies.all(solverId, limit) as Array<{ latency_ms: number }>).map((row) => row.latency_ms);
  }

  outcomeCounts(solverId: string): { filled: number; failed: number } {
    return this.statements.outcomeCounts.get(solverId) as { filled: number; failed: number };
  }

  /** Every solver's running totals (one row per solver with any history; no scan of the history). */
  totals(): Map<string, SolverTotals> {
    const rows = this.statements.solverStats.all() as Array<{
      solver_id: string;
      quotes: number;
      best_quotes: number;
      wins: number;
      filled: number;
      failed: number;
      invited: number;
      responded: number;
      won_volume: string;
    }>;
    return new Map(
      rows.map((row) => [
        row.solver_id,
        {
          quotes: Number(row.quotes),
          invited: Number(row.invited),
          responded: Number(row.responded),
          bestQuotes: Number(row.best_quotes),
          wins: Number(row.wins),
          filled: Number(row.filled),
          failed: Number(row.failed),
          wonVolume: BigInt(row.won_volume),
        },
      ]),
    );
  }

  /**
   * Runs `fn` with the solver totals it changes added up, and writes them at its end, once per solver: an auction's
   * close adds to each invited solver's totals twice (its invitation, its quote) while it writes rows of its own, which
   * need no write lock; the totals do (see writeTotals), and this takes it once, after those rows.
   */
  addingUpTotals<T>(fn: () => T): T {
    if (this.pendingTotals !== undefined) return fn();
    const pending = new Map<string, TotalsDelta>();
    this.pendingTotals = pending;
    let result: T;
    try {
      result = fn();
    } finally {
      this.pendingTotals = undefined;
    }
    for (const [solverId, delta] of pending) this.writeTotals(solverId, delta);
    return result;
  }

  private bumpStats(solverId: string, delta: TotalsDelta): void {
    const pending = this.pendingTotals;
    if (pending === undefined) {
      this.writeTotals(solverId, delta);
      return;
    }
    const sum = pending.get(solverId) ?? {};
    for (const key of Object.keys(delta) as (keyof TotalsDelta)[]) sum[key] = (sum[key] ?? 0) + (delta[key] ?? 0);
    pending.set(solverId, sum);
  }

  private writeTotals(solverId: string, delta: TotalsDelta): void {
    // The totals are one row per solver that every instance's auctions and orders update: touched only under the
    // store's write lock, so that a transaction holding the lock never waits for a row lock held by one waiting for
    // the lock (a deadlock on Postgres; SQLite's transactions hold it from the start).
    this.store.holdWriteLock();
    this.statements.bumpStats.run(
      solverId,
      delta.quotes ?? 0,
      delta.bestQuotes ?? 0,
      delta.wins ?? 0,
      delta.filled ?? 0,
      delta.failed ?? 0,
      delta.invited ?? 0,
      delta.responded ?? 0,
    );
  }

  private addWonVolume(solverId: string, amount: bigint): void {
    this.store.holdWriteLock();
    // Another instance on the same Postgres store may add at the same moment: read, add, write if unchanged.
    for (;;) {
      const { won_volume } = this.statements.wonVolumeOf.get(solverId) as { won_volume: string };
      const next = (BigInt(won_volume) + amount).toString();
      if (this.statements.setWonVolume.run(next, solverId, won_volume).changes === 1) return;
    }
  }

  issuedNonce(rfqId: string, user: Address): bigint | undefined {
    const row = this.statements.issuedNonce.get(rfqId, user) as { nonce: string } | undefined;
    return row && BigInt(row.nonce);
  }

  insertIssuedNonce(rfqId: string, user: Address, nonce: bigint, at: number): void {
    this.statements.insertIssuedNonce.run(rfqId, user, nonce.toString(), at);
  }

  lastIssuedNonce(user: Address): bigint | undefined {
    const row = this.statements.lastIssued.get(user) as { last_issued: string } | undefined;
    return row && BigInt(row.last_issued);
  }

  setLastIssuedNonce(user: Address, nonce: bigint): void {
    this.statements.setLastIssued.run(user, nonce.toString());
  }
}
