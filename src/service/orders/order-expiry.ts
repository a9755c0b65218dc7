import { InputSettlerEscrowArtifact } from '../../contracts/artifacts/InputSettlerEscrow.js';
import { ResourceLockArtifact } from '../../contracts/artifacts/ResourceLock.js';
import { nextBlockTime } from '../settlement/chains.js';
import { refundCalldata } from '../settlement/transactions.js';
import { releaseCalldata } from '../../contracts/deferred-vault.js';
import { getAddress } from 'viem';
import type { LifecycleDeps } from './lifecycle-deps.js';
import { TERMINAL } from './order-repository.js';
import type { OrderTransitions } from './order-transitions.js';

/** What happens to an order at its `expires`: a refund relay (escrow), or Refunded without one (resource lock). */
export class OrderExpiry {
  constructor(
    private readonly deps: LifecycleDeps,
    private readonly transitions: OrderTransitions,
  ) {}

  /**
   * The keeper's question at `expires + 1 s`. Escrow: while the chain still holds the deposit, relay `refund`
   * (the `Refunded` log then finishes the order). Resource lock: a compact is claimable only before `expires`; if
   * its nonce is still unspent by then the order is Refunded without a transaction (the taker withdraws).
   */
  async onExpiry(orderId: string): Promise<{ done: true } | { done: false; retryAt: number }> {
    const order = this.deps.orders.get(orderId);
    if (order === undefined || TERMINAL.has(order.status) || order.status === 'Opening') return { done: true };
    const chain = this.deps.engine.chain(order.originChainId);
    if (chain === undefined) return { done: true };
    const retry = { done: false as const, retryAt: this.deps.clock.now() + 1_000 };
    // Read the chain's time before its state: a refund needs block.timestamp > expires, and once the next block is
    // past expires no compact claim (block.timestamp < expires) can land after the state read below.
    if ((await nextBlockTime(chain)) <= order.expires) return retry;
    if (order.settlementPath === 'deferred') return this.releaseDeferred(orderId);
    if (order.lockType === 'ResourceLock') {
      const consumed = await chain.client.readContract({
        address: chain.contracts.resourceLock,
        abi: ResourceLockArtifact.abi,
        functionName: 'hasConsumedAllocatorNonce',
        args: [order.nonce, chain.contracts.allocator],
      });
      if (consumed) return { done: true };
      const effects = this.deps.outbox.commit(() => {
        const fresh = this.deps.orders.get(orderId);
        return fresh === undefined || TERMINAL.has(fresh.status) ? [] : this.transitions.refund(fresh, null, this.deps.clock.now());
      });
      for (const effect of effects) await effect();
      return { done: true };
    }
    const status = await chain.client.readContract({
      address: chain.contracts.inputSettlerEscrow,
      abi: InputSettlerEscrowArtifact.abi,
      functionName: 'orderStatus',
      args: [order.onchainOrderId],
    });
    if (status !== 1) return { done: true };
    const effects = this.deps.outbox.commit(() => {
      const attempt = this.deps.engine.relays.countForOrder(order.id, 'refund');
      const { send } = this.deps.engine.enqueue(
        {
          kind: 'refund',
          key: `${order.id}:${attempt}`,
          orderId: order.id,
          chainId: order.originChainId,
          to: chain.contracts.inputSettlerEscrow,
          data: refundCalldata(order.standardOrder),
          gas: this.deps.engine.gas.refund,
        },
        'service',
      );
      return [send];
    });
    for (const effect of effects) await effect();
    return { done: true };
  }

  /** A deferred order nobody filled: release its hold back to the workspace's credit (a filled one waits for an admin). */
  private async releaseDeferred(orderId: string): Promise<{ done: true }> {
    const effects = this.deps.outbox.commit(() => {
      const order = this.deps.orders.get(orderId);
      if (order === undefined || order.status !== 'Deposited') return [];
      const vault = this.deps.chains.find((c) => c.chainId === order.originChainId)?.contracts.DeferredVault;
      if (vault === undefined) return [];
      const attempt = this.deps.engine.relays.countForOrder(order.id, 'vault.release');
      const { send } = this.deps.engine.enqueue(
        {
          kind: 'vault.release',
          key: `${order.id}:${attempt}`,
          orderId: order.id,
          chainId: order.originChainId,
          to: getAddress(vault),
          data: releaseCalldata(order.onchainOrderId),
          gas: 200_000n,
        },
        'service',
      );
      return [send];
    });
    for (const effect of effects) await effect();
    return { done: true };
  }
}
