import type { Logger } from 'pino';
import type { Clock } from '../../clock/index.js';
import type { ChainInfo } from '../../contracts/deployment.js';
import type { ComplianceModule } from '../compliance/module.js';
import type { OutboxRepository } from '../events/outbox.js';
import type { LedgerRepository } from '../ledger/repository.js';
import type { SettlementEngine } from '../settlement/engine.js';
import type { OrderRepository } from './order-repository.js';
import type { SolverDispatch } from './solver-dispatch.js';

/** What the order lifecycle and its parts (creation, reconciliation, expiry, transitions) work with. */
export interface LifecycleDeps {
  orders: OrderRepository;
  ledger: LedgerRepository;
  outbox: OutboxRepository;
  compliance: ComplianceModule;
  engine: SettlementEngine;
  chains: readonly ChainInfo[];
  clock: Clock;
  logger: Logger;
  dispatch: SolverDispatch;
}
