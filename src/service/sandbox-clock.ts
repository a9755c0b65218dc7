import type { Logger } from 'pino';
import { ChainTimeSync, type ChainTime, type Clock, RealClock, TestClock } from '../clock/index.js';
import type { Environment } from '../contracts/deployment.js';
import type { ClockAdvances } from './clock-advances.js';
import { SharedClock } from './cluster/shared-clock.js';
import { mountSandboxClockRoutes } from './http/sandbox-clock-routes.js';
import type { ServiceContext, ServiceModule } from './module.js';

export interface ServiceClockOptions {
  environment: Environment;
  /** Default: a ticking TestClock in the sandbox, the RealClock in production (then stopped with the service). */
  clock?: Clock | undefined;
  /** Moves every chain's time when the test clock advances. */
  chainTime?: ChainTime | undefined;
  /** How long `POST /sandbox/clock/advance` waits before it answers 202. */
  answerWithinMs?: number | undefined;
  logger: Logger;
}

/**
 * The service's clock and, in the sandbox, its controls (`/api/v1/sandbox/clock`): a test clock shared by the
 * instances of one store (only the instance walking an advance moves the chains; the others follow it), kept in
 * step with the chains' time. The clock exists from construction, before any other module schedules on it.
 */
export class SandboxClockModule implements ServiceModule {
  readonly name = 'sandbox-clock';
  readonly clock: Clock;
  private readonly own: boolean;
  private readonly shared: SharedClock | undefined;
  private readonly chainSync: ChainTimeSync | undefined;
  private advances: ClockAdvances | undefined;

  constructor(private readonly options: ServiceClockOptions) {
    const { logger } = options;
    this.own = options.clock === undefined;
    this.clock = options.clock ?? (options.environment === 'sandbox' ? new TestClock({ ticking: true }) : new RealClock());
    this.clock.onJobError((error, job) => logger.error({ err: error, job: job.name }, 'scheduled job failed'));
    // With several instances only the one walking an advance moves the chains: the sync sees them through the shared clock.
    this.shared = this.clock instanceof TestClock ? new SharedClock(this.clock, options.chainTime) : undefined;
    this.chainSync = this.shared?.chainTime !== undefined ? new ChainTimeSync(this.shared.clock, this.shared.chainTime) : undefined;
  }

  /** Joins the store's shared time before any module schedules, then mounts the sandbox's clock routes. */
  async setup(context: ServiceContext): Promise<void> {
    if (this.options.environment !== 'sandbox') return;
    if (this.shared !== undefined) this.advances = await this.shared.join(context.store, context.instance, context.logger);
    mountSandboxClockRoutes(context.routes(), context.openapi, {
      clock: this.clock,
      chainTime: this.options.chainTime,
      advances: this.advances,
      ...(this.options.answerWithinMs === undefined ? {} : { answerWithinMs: this.options.answerWithinMs }),
    });
  }

  /** A clock advance still walking (it answered 202) stops before the modules whose jobs it runs. */
  async stopAdvances(): Promise<void> {
    await this.advances?.stopAll();
  }

  /** Last, once every module stopped: the chains are no longer followed, and a clock of the service's own stops. */
  release(): void {
    this.chainSync?.detach();
    if (this.own) this.clock.stop();
  }
}
