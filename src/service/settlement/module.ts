import type { EvidenceModule } from '../evidence/module.js';
import type { RunningContext, ServiceContext, ServiceModule } from '../module.js';
import type { MigrationSet } from '../store/migrations.js';
import { SettlementEngine } from './engine.js';
import { settlementMigrations } from './migrations.js';
import type { SettlementSettings } from './settings.js';

export interface SettlementModuleOptions {
  evidence: EvidenceModule;
  /** Relayer keys; without them the engine does not run (no chain is watched, orders answer 503). */
  settings?: SettlementSettings | undefined;
}

/** The settlement engine as a service module: its tables, and watchers and relayers that run while the service does. */
export class SettlementModule implements ServiceModule {
  readonly name = 'settlement';
  readonly migrations: MigrationSet = settlementMigrations;
  private instance: SettlementEngine | undefined;

  constructor(private readonly options: SettlementModuleOptions) {}

  /** Undefined when the service runs without relayer keys. */
  get engine(): SettlementEngine | undefined {
    return this.instance;
  }

  setup(context: ServiceContext): void {
    if (this.options.settings === undefined) return;
    this.instance = new SettlementEngine({
      chains: context.config.chains,
      settings: this.options.settings,
      store: context.store,
      clock: context.clock,
      logger: context.logger.child({ module: 'settlement' }),
      commit: (fn) => this.options.evidence.outbox.commit(fn),
      bus: context.instance.bus,
    });
  }

  /** Relayers settle what a previous holder left, watchers catch up: singleton work. */
  async startSingleton(_context: RunningContext): Promise<void> {
    await this.instance?.start();
  }

  async stop(): Promise<void> {
    await this.instance?.stop();
  }
}
