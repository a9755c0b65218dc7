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
      if (this.devnet === undefined) {
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
