import type { LedgerEntry } from '../../contracts/ledger/chain.js';
import type { LedgerRepository } from '../ledger/repository.js';
import type { OutboxRepository } from '../events/outbox.js';
import type { CanonicalValue } from '../../contracts/ledger/canonical.js';
import type { Store } from '../store/store.js';
import { Statements } from '../settlement/statements.js';
import type { CheckResult, CheckType } from './screening.js';

export interface ComplianceCheckRecord {
  /** The trade the evidence belongs to: the order id (or the quote id when no order came of it). */
  tradeId: string;
  orderId: string | null;
  workspaceId: string | null;
  /** Who was checked: an address, or `order` for the settlement audit. */
  subject: string;
  checkType: CheckType;
  result: CheckResult | 'settled' | 'refunded';
  details: { readonly [key: string]: CanonicalValue | undefined };
}

/**
 * Writes a compliance check where it must go, inside the caller's transaction: a `compliance.check` ledger entry,
 * a row for queries, and a `compliance.event` whose `hash`/`prevHash` are that ledger entry's.
 */
export class ComplianceRecords {
  constructor(
    readonly store: Store,
    private readonly ledger: LedgerRepository,
    private readonly outbox: OutboxRepository,
  ) {
    this.statements = new Statements(store);
  }

  private readonly statements: Statements;

  record(check: ComplianceCheckRecord, at: number): LedgerEntry {
    const entry = this.ledger.append({
      type: 'compliance.check',
      tradeId: check.tradeId,
      recordedAt: new Date(at).toISOString(),
      payload: { orderId: check.orderId, subject: check.subject, checkType: check.checkType, result: check.result, ...check.details },
    });
    this.statements
      .get(
        `INSERT INTO compliance_checks (trade_id, order_id, workspace_id, subject, check_type, result, details, ledger_sequence, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        check.tradeId,
        check.orderId,
        check.workspaceId,
        check.subject,
        check.checkType,
        check.result,
        JSON.stringify(check.details),
        entry.sequence,
        at,
      );
    this.outbox.append({
      workspaceId: check.workspaceId,
      type: 'compliance.event',
      generation: 'A',
      ...(check.orderId === null ? {} : { orderId: check.orderId }),
      data: {
        compliance: {
          orderId: check.orderId,
          checkType: check.checkType,
          result: check.result,
          hash: entry.hash,
          prevHash: entry.prevHash,
        },
      },
      at,
    });
    return entry;
  }
}
