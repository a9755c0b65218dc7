import type { WebhookReceiver } from '../actors/webhook-receiver.js';
import type { ChainObserver } from '../observe/chain-observer.js';
import type { Subscriber } from '../observe/events.js';
import type { LedgerReader } from '../observe/ledger-reader.js';
import { duplicateTerminalEvents } from './terminal-events.js';

/** The invariants every scenario is held to after every step. */
export const INVARIANTS = {
  'escrow-accounting': 'escrowed = claimed + refunded + open per token (read on chain); no order paid out twice',
  'single-fill': 'no output filled twice, none paid more than its amount',
  'one-terminal-event': 'at most one terminal event per order per subscriber after de-duplication by id (exactly one at the end)',
  'ledger-verifies': 'the evidence ledger’s hash chain verifies',
  'webhook-signatures': 'every webhook delivery verifies (signature over the raw body, timestamp by the service clock)',
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

  constructor(
    private readonly observer: ChainObserver,
    private readonly ledger: LedgerReader | undefined,
  ) {
    if (ledger === undefined) this._notes.add('ledger-verifies: the service store is not readable from here; the ledger was not checked');
  }

  get notes(): string[] {
    return [...this._notes, ...this.observer.notes, ...this.observer.inconclusive().map((n) => `escrow-accounting inconclusive: ${n}`)];
  }

  async check(subscribers: readonly Subscriber[], receivers: readonly WebhookReceiver[]): Promise<InvariantViolation[]> {
    this.checks += 1;
    await this.observer.sync();
    const violations: InvariantViolation[] = [];
    for (const message of this.observer.escrowViolations()) violations.push({ invariant: 'escrow-accounting', message });
    for (const message of this.observer.fillViolations()) violations.push({ invariant: 'single-fill', message });
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
