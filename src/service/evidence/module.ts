import { OutboxRepository, outboxMigrations } from '../events/outbox.js';
import type { ServiceContext, ServiceModule } from '../module.js';
import { LedgerRepository, ledgerMigrations } from '../ledger/repository.js';
import type { MigrationSet } from '../store/migrations.js';

/**
 * Owns the two append-only records every other module writes into within its own transactions: the evidence
 * ledger and the event outbox. One instance per service, created before the modules that use it.
 */
export class EvidenceModule implements ServiceModule {
  readonly name = 'evidence';
  readonly migrations: MigrationSet = {
    module: 'evidence',
    migrations: [...ledgerMigrations.migrations, ...outboxMigrations.migrations],
  };
  private ledgerRepository?: LedgerRepository;
  private outboxRepository?: OutboxRepository;

  setup(context: ServiceContext): void {
    this.ledgerRepository = new LedgerRepository(context.store);
    this.outboxRepository = new OutboxRepository(context.store);
  }

  get ledger(): LedgerRepository {
    if (!this.ledgerRepository) throw new Error('evidence module used before setup');
    return this.ledgerRepository;
  }

  get outbox(): OutboxRepository {
    if (!this.outboxRepository) throw new Error('evidence module used before setup');
    return this.outboxRepository;
  }
}
