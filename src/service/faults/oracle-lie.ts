import type { Logger } from 'pino';
import type { Address } from 'viem';
import { addressToBytes32 } from '../../contracts/order.js';
import type { EvidenceModule } from '../evidence/module.js';
import type { OrdersModule } from '../orders/module.js';
import { claimMessage } from '../orders/order-fills.js';
import type { OrderRecord } from '../orders/order-repository.js';
import type { SettlementEngine } from '../settlement/engine.js';
import { fillPayload, oracleReceiveCalldata } from '../settlement/transactions.js';

/** How long the lie waits for its record to be mined before giving up (wall time). */
const MINED_WITHIN_MS = 10_000;

/**
 * The sandbox's `oracle.lie` fault acted out: the oracle relayer records on the origin chain a fill of the order's
 * output by its winning solver that never happened (stamped with the destination chain's time), and the solver is
 * told it may claim, as it would be for a real attestation. The escrow checks only the oracle's record, so it pays:
 * this is what a compromised oracle can do, and why the oracle is part of the trust model.
 */
export class OracleLie {
  constructor(
    private readonly engine: SettlementEngine,
    private readonly orders: OrdersModule,
    private readonly evidence: EvidenceModule,
    private readonly order: OrderRecord,
    private readonly solver: Address,
    private readonly logger: Logger,
  ) {}

  async tell(): Promise<void> {
    const { order } = this;
    const output = order.standardOrder.outputs[0];
    const destination = output === undefined ? undefined : this.engine.chain(Number(output.chainId));
    if (output === undefined || destination === undefined) return;
    try {
      const block = await destination.client.getBlock({ blockTag: 'latest' });
      const timestamp = Math.min(Number(block.timestamp), order.fillDeadline);
      const solver = addressToBytes32(this.solver);
      const payload = fillPayload({ solver, timestamp }, order.onchainOrderId, output);
      const key = `${order.id}:lie`;
      const { send } = this.evidence.outbox.commit(() =>
        this.engine.enqueue(
          {
            kind: 'oracle.receive',
            key,
            orderId: order.id,
            chainId: order.originChainId,
            ...oracleReceiveCalldata(order.standardOrder.inputOracle, output, payload),
            gas: this.engine.gas.oracleReceive,
          },
          'oracle',
        ),
      );
      await send();
      const started = Date.now();
      let status: string | undefined;
      while (Date.now() - started < MINED_WITHIN_MS) {
        status = this.engine.relays.forOrder(order.id).find((relay) => relay.key === key)?.status;
        if (status !== 'queued' && status !== 'sent' && status !== undefined) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      if (status !== 'mined') {
        this.logger.warn({ orderId: order.id, status }, 'oracle.lie: the false record did not land');
        return;
      }
      this.orders.notifySolver(order.solverId, claimMessage(order, [{ timestamp, solver }]));
    } catch (error) {
      this.logger.error({ err: error, orderId: order.id }, 'oracle.lie could not record its false attestation');
    }
  }
}
