import type { EvidenceModule } from '../evidence/module.js';
import type { RunningContext, ServiceContext, ServiceModule } from '../module.js';
import type { SettlementModule } from '../settlement/module.js';
import { DeferredCredit } from './credit.js';
import { deferredMigrations } from './migrations.js';
import { mountDeferredRoutes } from './routes.js';
import type { DeferredSettings } from './settings.js';

export const DEFAULT_APPROVAL_THRESHOLD = 10_000_000_000n;

/**
 * The deferred rail's credit: deposits into and withdrawals from `DeferredVault` through the service relayer,
 * the admin approvals queue, `credit.updated`. Deferred orders (quotes with `settlementPath: deferred`) are not
 * served yet (docs/deferred.md).
 */
export class DeferredModule implements ServiceModule {
  readonly name = 'deferred';
  readonly migrations = deferredMigrations;
  private _credit: DeferredCredit | undefined;

  constructor(
    private readonly options: { evidence: EvidenceModule; settlement: SettlementModule; settings?: DeferredSettings | undefined },
  ) {}

  setup(context: ServiceContext): void {
    const { evidence, settlement, settings } = this.options;
    const credit = new DeferredCredit({
      store: context.store,
      clock: context.clock,
      outbox: evidence.outbox,
      ledger: evidence.ledger,
      engine: () => settlement.engine,
      approvalThreshold:
        settings?.withdrawalApprovalThreshold === undefined ? DEFAULT_APPROVAL_THRESHOLD : BigInt(settings.withdrawalApprovalThreshold),
    });
    this._credit = credit;
    settlement.engine?.onRelayOutcome((relay, outcome) => credit.onRelayOutcome(relay, outcome));
    mountDeferredRoutes(context.routes(), context.openapi, credit, context.repos, context.store);
  }

  start(_context: RunningContext): void {}

  get credit(): DeferredCredit {
    if (this._credit === undefined) throw new Error('deferred module used before setup');
    return this._credit;
  }
}
