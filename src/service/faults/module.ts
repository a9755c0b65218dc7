import type { RequestHandler } from 'express';
import type { EvidenceModule } from '../evidence/module.js';
import { MaintenanceError } from '../errors/api-errors.js';
import type { ServiceContext, ServiceModule } from '../module.js';
import type { OrdersModule } from '../orders/module.js';
import type { SettlementModule } from '../settlement/module.js';
import { faultMigrations } from './migrations.js';
import { mountFaultRoutes } from './routes.js';
import { FaultSwitchboard } from './switchboard.js';

/**
 * The sandbox's fault switches (`/api/v1/sandbox/faults`, `sandbox fault`): relays held, delayed or dropped, the
 * oracle withholding or attesting late, routes answering 503 or slowly. Sandbox environment only.
 */
export class FaultsModule implements ServiceModule {
  readonly name = 'faults';
  readonly migrations = faultMigrations;
  private board: FaultSwitchboard | undefined;

  constructor(private readonly options: { evidence: EvidenceModule; settlement: SettlementModule; orders: OrdersModule }) {}

  /** Undefined outside the sandbox environment. */
  get switchboard(): FaultSwitchboard | undefined {
    return this.board;
  }

  setup(context: ServiceContext): void {
    if (context.config.environment !== 'sandbox') return;
    const { evidence, settlement, orders } = this.options;
    const board = new FaultSwitchboard({
      store: context.store,
      clock: context.clock,
      ledger: evidence.ledger,
      logger: context.logger.child({ module: 'faults' }),
      orders: () => {
        try {
          return orders.orders;
        } catch {
          return undefined;
        }
      },
      kickRelays: () => settlement.engine?.kickAll(),
    });
    this.board = board;
    settlement.engine?.useRelayFaults({
      gate: (relay) => board.relayGate(relay),
      catchesDeposit: (scope) => board.catchesDeposit(scope),
      beforeRpc: (chainId, method) => board.beforeRpc(chainId, method),
    });
    mountFaultRoutes(
      context.routes(),
      context.openapi,
      board,
      context.config.chains.map((chain) => chain.chainId),
    );
    context.useRequestGate(requestGate(board));
  }

  start(): void {
    this.board?.restore();
  }

  stop(): void {
    this.board?.stop();
  }
}

/** Service faults: a 503 `maintenance` in the route's error format, or an answer that starts late. */
function requestGate(board: FaultSwitchboard): RequestHandler {
  return (req, _res, next) => {
    let fault: ReturnType<FaultSwitchboard['requestFault']>;
    try {
      fault = board.requestFault(req.method, req.path);
    } catch {
      // The switches cannot be read (the store is down): no fault, and the route answers as it would without them.
      return next();
    }
    if (fault === undefined) return next();
    if (fault.kind === 'service.maintenance') {
      return next(
        new MaintenanceError({
          code: 'maintenance',
          message: `This route is under maintenance (sandbox fault switch ${fault.id}); retry later.`,
        }),
      );
    }
    setTimeout(next, fault.delayMs ?? 0);
  };
}
