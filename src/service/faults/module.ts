import { keccak256 } from '../../contracts/keccak.js';
import type { EvidenceModule } from '../evidence/module.js';
import { MaintenanceError } from '../errors/api-errors.js';
import type { RequestGate, ServiceContext, ServiceModule } from '../module.js';
import type { AuctionModule } from '../auction/module.js';
import type { OrdersModule } from '../orders/module.js';
import type { ServiceConfig } from '../config.js';
import { ChainHalts } from './chain-halts.js';
import { ChainRestarts, ServiceRestarts } from './chain-restarts.js';
import { OracleLie } from './oracle-lie.js';
import type { SettlementModule } from '../settlement/module.js';
import { faultMigrations } from './migrations.js';
import { mountFaultRoutes } from './routes.js';
import { FaultSwitchboard } from './switchboard.js';

/** The bus topic that tells the other instances the fault switches changed. */
const FAULTS_CHANGED = 'faults.changed';

/**
 * The sandbox's fault switches (`/api/v1/sandbox/faults`, `sandbox fault`): relays held, delayed or dropped, the
 * oracle withholding or attesting late, routes answering 503 or slowly. Sandbox environment only.
 */
export class FaultsModule implements ServiceModule {
  readonly name = 'faults';
  readonly migrations = faultMigrations;
  private board: FaultSwitchboard | undefined;
  private halts: ChainHalts | undefined;

  constructor(
    private readonly options: {
      evidence: EvidenceModule;
      settlement: SettlementModule;
      orders: OrdersModule;
      auction: AuctionModule;
      /** The devnet's controls; without them `chain.restart` is refused. */
      devnet?: ServiceConfig['devnet'] | undefined;
    },
  ) {}

  /** Undefined outside the sandbox environment. */
  get switchboard(): FaultSwitchboard | undefined {
    return this.board;
  }

  setup(context: ServiceContext): void {
    if (context.config.environment !== 'sandbox') return;
    const { evidence, settlement, orders, auction } = this.options;
    const board = new FaultSwitchboard({
      shared: context.instance.bus.shared,
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
    const halts = new ChainHalts(board, () => settlement.engine, context.clock, context.logger.child({ module: 'faults' }));
    this.halts = halts;
    board.onChange(() => halts.apply());
    const restarts = new ChainRestarts(board, this.options.devnet, context.logger.child({ module: 'faults' }));
    board.onChange(() => restarts.apply());
    const serviceRestarts = new ServiceRestarts(board, this.options.devnet, context.logger.child({ module: 'faults' }));
    board.onChange(() => serviceRestarts.apply());
    // Switches live in the store; every instance keeps a copy in memory, so a change on one is announced to the
    // others. A chain halt is idempotent and applied again there; a chain restart happens once, where it was set.
    const bus = context.instance.bus;
    board.onChange(() => bus.publish(FAULTS_CHANGED, {}));
    bus.subscribe(FAULTS_CHANGED, () => {
      board.forget();
      void halts.apply();
    });
    settlement.engine?.useRelayFaults({
      gate: (relay) => board.relayGate(relay),
      catchesDeposit: (scope) => board.catchesDeposit(scope),
      beforeRpc: (chainId, method) => board.beforeRpc(chainId, method),
      oraclePayload: (order, truthful, wrong) => {
        const lie = wrong();
        return board.fireOracleLie('oracle.wrong-amount', order, { carried: keccak256(lie), truthful: keccak256(truthful) }) === undefined
          ? truthful
          : lie;
      },
    });
    mountFaultRoutes(
      context.routes(),
      context.openapi,
      board,
      context.config.chains.map((chain) => chain.chainId),
      this.options.devnet?.restartChain !== undefined,
      this.options.devnet?.restartService !== undefined,
    );
    context.useRequestGate(requestGate(board));
    orders.onDomainEvent((event) => {
      if (event.type !== 'order.created' || event.order.settlementPath === 'deferred') return;
      const engine = settlement.engine;
      const solver = auction.registry.get(event.order.solverId);
      if (engine === undefined || solver?.address == null) return;
      if (board.fireOracleLie('oracle.lie', event.order, { solver: solver.address }) === undefined) return;
      const lie = new OracleLie(engine, orders, evidence, event.order, solver.address, context.logger.child({ module: 'faults' }));
      setImmediate(() => void lie.tell());
    });
    orders.onDomainEvent((event) => {
      if (event.type !== 'order.transitioned' || event.to !== 'Filled' || event.stage.txHash === null) return;
      const engine = settlement.engine;
      const fill = engine?.facts
        .forOrder(event.order.onchainOrderId)
        .find((fact) => fact.kind === 'filled' && fact.txHash === event.stage.txHash);
      if (engine === undefined || fill === undefined) return;
      const fault = board.fireReorg(event.order, fill);
      if (fault === undefined) return;
      // After the commit that recorded the fill (the transition runs inside it): the chain is changed under the service.
      setImmediate(() => {
        void (async () => {
          try {
            await engine.reorg(fill.chainId, fill.blockNumber, fault.depth ?? undefined);
            // The watcher hears the new heads and takes the order back; the oracle waits for that (at most 5 s).
            const until = Date.now() + 5_000;
            while (Date.now() < until && orders.orders.get(event.order.id)?.status === 'Filled') {
              await new Promise((resolve) => setTimeout(resolve, 20));
            }
          } catch (error) {
            context.logger.error(
              { err: error, faultId: fault.id, chainId: fill.chainId },
              'chain.reorg fault could not reorganise the chain',
            );
          } finally {
            board.reorgDone(event.order.id);
          }
        })();
      });
    });
  }

  async start(): Promise<void> {
    this.board?.restore();
    await this.halts?.apply();
  }

  stop(): void {
    this.halts?.stop();
    this.board?.stop();
  }
}

/** Service faults: a 503 `maintenance` in the route's error format, or an answer that starts late. */
function requestGate(board: FaultSwitchboard): RequestGate {
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
      // A deliberate 503: marked with its switch so the error handler logs it as a firing, not an unhandled error.
      const error = new MaintenanceError({
        code: 'maintenance',
        message: `This route is under maintenance (sandbox fault switch ${fault.id}); retry later.`,
      });
      return next(Object.assign(error, { fault: { id: fault.id, kind: fault.kind } satisfies FiredFault }));
    }
    setTimeout(next, fault.delayMs ?? 0);
  };
}

/**
 * What a deliberate fault answer carries (`error.fault`): the http error handler logs such an error at warn level
 * with a `fault` field ("fault fired"), never as an "unhandled error", which is kept for real failures.
 */
export interface FiredFault {
  id?: string;
  kind: string;
}
