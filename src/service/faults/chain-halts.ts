import type { Logger } from 'pino';
import type { Clock, ScheduledJob } from '../../clock/index.js';
import type { SettlementEngine } from '../settlement/engine.js';
import type { FaultSwitch } from './fault-repository.js';
import type { FaultSwitchboard } from './switchboard.js';

/**
 * Keeps each chain's block production in line with the live `chain.halt` switches: halted while one is live for it,
 * producing again once it is cleared or its `for` has passed (a clock job stands at the earliest end). Applied after
 * every set and clear, and at start (a restart finds the switches in the store and the chains as it left them).
 */
export class ChainHalts {
  /** Chains this process halted, and the switch that halted each. */
  private readonly halted = new Map<number, FaultSwitch>();
  private job: ScheduledJob | undefined;
  private applying: Promise<void> = Promise.resolve();

  constructor(
    private readonly board: FaultSwitchboard,
    private readonly engine: () => SettlementEngine | undefined,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Brings the chains in line with the switches (one pass at a time). */
  apply(): Promise<void> {
    this.applying = this.applying
      .then(() => this.applyNow())
      .catch((error: unknown) => {
        this.logger.error({ err: error }, 'chain halts could not be applied');
      });
    return this.applying;
  }

  stop(): void {
    if (this.job !== undefined) this.clock.cancel(this.job);
    this.job = undefined;
  }

  private async applyNow(): Promise<void> {
    const engine = this.engine();
    if (engine === undefined) return;
    const live = this.board.live('chain.halt');
    const wanted = new Map<number, FaultSwitch>();
    for (const fault of live) if (fault.chainId !== null && !wanted.has(fault.chainId)) wanted.set(fault.chainId, fault);
    for (const [chainId, fault] of wanted) {
      if (this.halted.has(chainId)) continue;
      await engine.setBlockProduction(chainId, false);
      this.halted.set(chainId, fault);
      if (fault.fired === 0) this.board.recordChainAction(fault, chainId, 'halt');
      this.logger.warn({ chainId, faultId: fault.id }, 'chain halted by a fault switch');
    }
    for (const [chainId, fault] of [...this.halted]) {
      if (wanted.has(chainId)) continue;
      await engine.setBlockProduction(chainId, true);
      this.halted.delete(chainId);
      this.board.recordChainAction(fault, chainId, 'resume');
      this.logger.warn({ chainId, faultId: fault.id }, 'chain producing blocks again');
    }
    if (this.job !== undefined) this.clock.cancel(this.job);
    this.job = undefined;
    const ends = live.map((fault) => fault.expiresAt).filter((at): at is number => at !== null);
    if (ends.length > 0) {
      this.job = this.clock.schedule(Math.min(...ends), () => this.apply(), { name: 'fault chain.halt ends' });
    }
  }
}
