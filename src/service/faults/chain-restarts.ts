import type { Logger } from 'pino';
import type { ServiceConfig } from '../config.js';
import type { FaultSwitchboard } from './switchboard.js';

/**
 * Acts out `chain.restart` switches: each kills its chain's node and brings it back from its saved state, once,
 * right after it is set (the set answer arrives when the node is back). The devnet does the killing; a service that
 * does not run next to the sandbox's chains has no devnet and refuses the switch.
 */
export class ChainRestarts {
  constructor(
    private readonly board: FaultSwitchboard,
    private readonly devnet: ServiceConfig['devnet'] | undefined,
    private readonly logger: Logger,
  ) {}

  async apply(): Promise<void> {
    for (const fault of this.board.live('chain.restart')) {
      if (fault.chainId === null || !this.board.recordChainAction(fault, fault.chainId, 'restart')) continue;
      if (this.devnet?.restartChain === undefined) {
        this.logger.warn({ faultId: fault.id }, 'chain.restart: this service does not run next to the devnet');
        continue;
      }
      try {
        await this.devnet.restartChain(fault.chainId, { downMs: fault.delayMs ?? 0 });
        this.logger.warn({ chainId: fault.chainId, faultId: fault.id }, 'chain node killed and restarted by a fault switch');
      } catch (error) {
        this.logger.error({ err: error, chainId: fault.chainId, faultId: fault.id }, 'chain.restart failed');
      }
    }
  }
}

/** How long after a `service.restart` switch is set the service stops: its set answer goes out first. */
const ANSWER_FIRST_MS = 100;

/**
 * Acts out `service.restart` switches: once, right after it is set (and answered), the sandbox that runs the service
 * stops it as a crash would and starts it again `down` later. Only the instance that set it acts: a switch is never
 * acted out twice.
 */
export class ServiceRestarts {
  constructor(
    private readonly board: FaultSwitchboard,
    private readonly devnet: ServiceConfig['devnet'] | undefined,
    private readonly logger: Logger,
  ) {}

  apply(): void {
    for (const fault of this.board.live('service.restart')) {
      if (!this.board.recordChainAction(fault, null, 'restart')) continue;
      const restart = this.devnet?.restartService;
      if (restart === undefined) {
        this.logger.warn({ faultId: fault.id }, 'service.restart: this service is not run by the sandbox');
        continue;
      }
      this.logger.warn({ faultId: fault.id, downMs: fault.delayMs ?? 0 }, 'service stopped and restarted by a fault switch');
      setTimeout(() => restart({ downMs: fault.delayMs ?? 0 }), ANSWER_FIRST_MS);
    }
  }
}
