import type { WebhookReceiver } from '../actors/webhook-receiver.js';
import type { ChainObserver } from '../observe/chain-observer.js';
import type { Subscriber } from '../observe/events.js';
import type { LedgerObserver } from '../observe/ledger-observer.js';
import { duplicateTerminalEvents } from './terminal-events.js';

/** The invariants every scenario is held to after every step. */
export const INVARIANTS = {
  'escrow-accounting': 'escrowed = claimed + refunded + open per token (read on chain); no order paid out twice',
  'single-fill': 'no output filled twice, none paid more than its amount',
  'one-terminal-event': 'at most one terminal event per order per subscriber after de-duplication by id (exactly one at the end)',
  'ledger-verifies': 'the evidence ledger’s hash chain verifies',
  'webhook-signatures': 'every webhook delivery verifies (signature over the raw body, timestamp by the service clock)',
  'paid-for-fill': 'no order is paid to its solver without a fill of its output on chain',
} as const;

export type InvariantName = keyof typeof INVARIANTS;

export interface InvariantViolation {
  invariant: InvariantName;
  message: string;
}

/**
 * Checks every invariant against the state of the world right now: chains (synced first), the scenario's
 * subscribers, the ledger. Invariants that cannot be observed from here are reported once as notes.
 */
export class InvariantMonitor {
  checks = 0;
  private readonly _notes = new Set<string>();
  /** Violations a scenario causes on purpose (a lying oracle): which orders, and why they are expected. */
  private readonly expected: { invariant: InvariantName; matches: (onchainOrderId: string) => boolean; why: string }[] = [];
  /** Expected violations that did happen (the harness says so, as a note). */
  private readonly flaggedKeys = new Set<string>();

  constructor(
    private readonly observer: ChainObserver,
    private readonly ledger: LedgerObserver | undefined,
  ) {
    if (ledger === undefined) this._notes.add('ledger-verifies: the service store is not readable from here; the ledger was not checked');
  }

  /**
   * A fault makes this invariant's violation for this order the correct outcome (a lying oracle makes the escrow pay
   * for a fill that never happened): it is reported as flagged, not as a failure, for the rest of the session.
   */
  expectViolation(invariant: InvariantName, order: string | ((onchainOrderId: string) => boolean), why: string): void {
    const matches = typeof order === 'string' ? (id: string) => id.toLowerCase() === order.toLowerCase() : order;
    this.expected.push({ invariant, matches, why });
  }

  /** Whether an expected violation was seen. */
  flagged(invariant: InvariantName, onchainOrderId: string): boolean {
    return this.flaggedKeys.has(`${invariant}:${onchainOrderId.toLowerCase()}`);
  }

  get notes(): string[] {
    return [...this._notes, ...this.observer.notes, ...this.observer.inconclusive().map((n) => `escrow-accounting inconclusive: ${n}`)];
  }

  async check(subscribers: readonly Subscriber[], receivers: readonly WebhookReceiver[]): Promise<InvariantViolation[]> {
    this.checks += 1;
    await this.observer.sync();
    const violations: InvariantViolation[] = [];
    const seen = [...this.observer.escrowViolations(), ...this.observer.fillViolations()];
    if (seen.length > 0) {
      // One pass may have read logs and balances across a reorganisation; a real violation survives a whole re-read.
      const began = performance.now();
      await this.observer.reread();
      const survived = [...this.observer.escrowViolations(), ...this.observer.fillViolations()].length > 0;
      if (!survived)
        this._notes.add(
          `chains read again (${Math.round(performance.now() - began)} ms) after a violation that did not survive: ${seen[0]}`,
        );
    }
    for (const message of this.observer.escrowViolations()) violations.push({ invariant: 'escrow-accounting', message });
    for (const message of this.observer.fillViolations()) violations.push({ invariant: 'single-fill', message });
    for (const [orderId, message] of this.observer.unfilledPayouts()) {
      const key = `paid-for-fill:${orderId}`;
      const why = this.expected.find((e) => e.invariant === 'paid-for-fill' && e.matches(orderId))?.why;
      if (why === undefined) {
        violations.push({ invariant: 'paid-for-fill', message });
        continue;
      }
      this.flaggedKeys.add(key);
      this._notes.add(`paid-for-fill flagged as expected (${why}): ${message}`);
    }
    for (const subscriber of subscribers) {
      for (const message of duplicateTerminalEvents(`${subscriber.channel} ${subscriber.name}`, subscriber.events())) {
        violations.push({ invariant: 'one-terminal-event', message });
      }
    }
    if (this.ledger !== undefined) {
      const verdict = this.ledger.verifyNew();
      if (!verdict.ok) violations.push({ invariant: 'ledger-verifies', message: `entry #${verdict.brokenAt}: ${verdict.reason}` });
    }
    for (const receiver of receivers) {
      for (const rejected of receiver.rejected) {
        violations.push({ invariant: 'webhook-signatures', message: `webhook ${receiver.name}: ${rejected.code} (${rejected.message})` });
      }
    }
    return violations;
  }
}
