/**
 * A reference solver: a real client of the service. It registers (or finds its earlier registration), connects to
 * the solver stream, prices RFQs with its strategy, fills the orders it wins on the destination chain and claims
 * them on the origin chain once the service relays the attestation.
 */
import { RestClient } from '../clients/rest-client.js';
import { type RfqBroadcast, type SolverOrderMessage, SolverStreamClient } from '../clients/solver-stream-client.js';
import { standardOrderFromWire } from '../contracts/standard-order-wire.js';
import { bytes32ToAddress, type StandardOrder } from '../contracts/order.js';
import type { AccountInfo, ChainInfo } from '../contracts/deployment.js';
import { HONEST, type SolverBehaviour, VANISH_MS } from './behaviour.js';
import { ChainModeSolving } from './chain-mode.js';
import type { SolverCounters, SolverEvent } from './solver-events.js';

export type { SolverCounters, SolverEvent } from './solver-events.js';
import { type BridgeMint, SolverInventory } from './inventory.js';
import { isTransportError, SolverWallet } from './solver-wallet.js';
import { priceRfq, type PricingStrategy } from './strategy.js';

import type { SolverFaultFollower } from './fault-follower.js';
export interface ReferenceSolverOptions {
  name: string;
  /** Service base URL (`sandbox.json` api.url). */
  serviceUrl: string;
  /** A workspace API key to register with (`sandbox.json` api.apiKeys[0]). */
  apiKey: string;
  chains: readonly ChainInfo[];
  account: AccountInfo;
  strategy: PricingStrategy;
  behaviour?: SolverBehaviour;
  /** The sandbox's solver fault switches to follow (`sandbox fault set solver.…`): `sandbox up` and scenarios do. */
  faults?: SolverFaultFollower;
  /**
   * `stream` (default): quote on the solver stream, fill what the service assigns, claim when it says attested.
   * `chain`: no solver stream at all, as an OIF solver works: discover orders from the escrows' `Open` logs, fill
   * those it may fill (not another solver's exclusive window), and claim once the origin's input oracle proves the
   * fill (`isProven`).
   */
  mode?: 'stream' | 'chain';
  /**
   * The arriving half of a rebalance (the sandbox faucet stands in for a bridge): when a chain's balance runs low and
   * another chain holds a surplus, the surplus moves. Absent: the solver only declines what it cannot deliver.
   */
  bridge?: BridgeMint;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
/**
 * How long a fill is tried again while a chain does not answer (its node restarting: seconds). The service tells a
 * solver of an order once, so a fill given up on a passing outage would leave the order to its refund.
 */
const CHAIN_OUTAGE_MS = 60_000;
/** How many ended orders a solver remembers to ignore their repeated messages; older ones are forgotten. */
const REMEMBERED_ENDED_ORDERS = 10_000;

export class ReferenceSolver {
  readonly name: string;
  readonly strategy: PricingStrategy;
  readonly wallet: SolverWallet;
  readonly counters: SolverCounters = {
    rfqs: 0,
    quoted: 0,
    declined: 0,
    rejected: 0,
    assigned: 0,
    filled: 0,
    claimed: 0,
    refunded: 0,
    errors: 0,
  };
  solverId = '';
  private _behaviour: SolverBehaviour;
  private stream: SolverStreamClient | undefined;
  private stopped = false;
  private readonly listeners = new Set<(event: SolverEvent) => void>();
  /** Output still deliverable per destination token (`chainId:token`), smallest units. */
  private readonly inventory = new Map<string, bigint>();
  /**
   * Orders in hand (won, not yet claimed or refunded), so a repeated message does not fill or claim twice. An order
   * that ends leaves this map for `ended`, which is bounded: a sandbox that runs for weeks does not keep every order
   * its solvers ever won (the soak's heap snapshots showed this map growing by every order).
   */
  private readonly orders = new Map<string, { order: StandardOrder; filled: boolean; claimed: boolean }>();
  private readonly work = new Set<Promise<unknown>>();
  private readonly rest: RestClient;
  private readonly faults: SolverFaultFollower | undefined;
  /** What it holds on each chain (read from the chain) and owes to orders not filled yet; rebalances. */
  readonly holdings: SolverInventory;

  constructor(private readonly options: ReferenceSolverOptions) {
    this.name = options.name;
    this.strategy = options.strategy;
    this._behaviour = { ...options.behaviour };
    this.wallet = new SolverWallet(options.chains, options.account.privateKey);
    this.rest = new RestClient({ baseUrl: options.serviceUrl, apiKey: options.apiKey });
    this.holdings = new SolverInventory({
      chains: options.chains,
      wallet: this.wallet,
      workingTokens: options.strategy.inventory,
      ...(options.bridge === undefined ? {} : { bridge: options.bridge }),
      report: (event) => this.emit(event),
    });
    this.faults = options.faults;
  }

  get behaviour(): SolverBehaviour {
    return { ...HONEST, ...this._behaviour };
  }

  /** Reads the sandbox's fault switches now, so one set a moment ago counts for the next RFQ or order. */
  async refreshFaults(): Promise<void> {
    await this.faults?.refresh();
  }

  /** Changes behaviour on the fly (scenarios script a solver between steps). */
  setBehaviour(behaviour: SolverBehaviour): void {
    this._behaviour = { ...behaviour };
  }

  onEvent(listener: (event: SolverEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get connected(): boolean {
    return this.stream?.connected ?? false;
  }

  get mode(): 'stream' | 'chain' {
    return this.options.mode ?? 'stream';
  }

  /** Registers for every corridor (or reuses its registration of the same name), then connects and subscribes. */
  async start(): Promise<void> {
    if (this.mode === 'chain') {
      await new ChainModeSolving({
        chains: this.options.chains,
        wallet: this.wallet,
        counters: this.counters,
        orders: this.orders,
        behaviour: () => this.behaviour,
        stopped: () => this.stopped,
        emit: (event) => this.emit(event),
        track: (work) => this.track(work),
      }).start();
      return;
    }
    const corridors = (await this.rest.corridors()).map((corridor) => corridor.id).sort();
    const owned = await this.ownedSolvers();
    const existing = owned.find((solver) => solver.name === this.name && [...solver.corridors].sort().join() === corridors.join());
    let token: string;
    let url: string;
    if (existing !== undefined) {
      const rotated = await this.rest.rotateSolverToken(existing.solverId);
      this.solverId = existing.solverId;
      token = rotated.wsToken;
      url = rotated.wsUrl;
    } else {
      const registration = await this.rest.registerSolver({ name: this.name, corridors, address: this.wallet.address });
      this.solverId = registration.solverId;
      token = registration.wsToken;
      url = registration.wsUrl;
    }
    this.stream = await SolverStreamClient.connect({ url, token, reconnect: true });
    this.stream.onClose(({ code, reason }) => {
      if (!this.stopped) this.emit({ type: 'disconnected', code, reason });
    });
    // Every subscribe.ok after the first is a reconnect that re-subscribed.
    this.stream.onMessage((message) => {
      if (message.type === 'subscribe.ok') this.emit({ type: 'reconnected' });
    });
    this.stream.onRfq((rfq) => this.track(this.answer(rfq)));
    this.stream.onOrder((message) => this.track(this.onOrder(message)));
  }

  /** Closes the stream and waits for fills and claims in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.stream?.close();
    await Promise.allSettled([...this.work]);
    this.wallet.close();
  }

  private async ownedSolvers() {
    const solvers = [];
    let after: string | undefined;
    do {
      const page = await this.rest.listSolvers({ owned: true, limit: 100, ...(after === undefined ? {} : { after }) });
      solvers.push(...page.data);
      after = page.next_cursor ?? undefined;
    } while (after !== undefined);
    return solvers;
  }

  private emit(event: SolverEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A listener's failure is the listener's problem.
      }
    }
  }

  private track(work: Promise<void>): void {
    const tracked = work.catch((error: unknown) => {
      this.counters.errors += 1;
      this.emit({ type: 'error', message: error instanceof Error ? error.message : String(error) });
    });
    this.work.add(tracked);
    void tracked.finally(() => this.work.delete(tracked));
  }

  private inventoryKey(chainId: number, token: string): string {
    return `${chainId}:${token.toLowerCase()}`;
  }

  /**
   * Its risk limit for a destination token: the strategy's inventory less the outputs of the orders it won and was
   * not paid for yet (a claim frees them). This bounds what is at risk at once; what it can actually deliver is its
   * balance on the destination chain (`holdings`), checked beside it before every quote and fill.
   */
  inventoryLeft(chainId: number, token: string, decimals: number): bigint {
    const key = this.inventoryKey(chainId, token);
    let left = this.inventory.get(key);
    if (left === undefined) {
      left = BigInt(this.strategy.inventory) * 10n ** BigInt(decimals);
      this.inventory.set(key, left);
    }
    return left;
  }

  private async answer(broadcast: RfqBroadcast): Promise<void> {
    const rfq = broadcast.rfq;
    const stream = this.stream!;
    this.counters.rfqs += 1;
    this.emit({ type: 'rfq', rfqId: rfq.id, corridor: rfq.corridor });
    const faulted = await this.faults?.behaviourFor('quote', { solverId: this.solverId, corridor: rfq.corridor, rfqId: rfq.id });
    const behaviour = { ...this.behaviour, ...faulted };
    if (behaviour.quote === 'silent') return;
    if (behaviour.quote === 'decline') {
      await this.decline(stream, rfq.id, 'declines by script');
      return;
    }
    if (this.strategy.latencyMs > 0) await sleep(this.strategy.latencyMs);
    if (behaviour.quote === 'late') {
      const windowMs = Math.max(0, Date.parse(rfq.respondBy) - Date.parse(broadcast.timestamp));
      await sleep(windowMs + (behaviour.lateByMs ?? 100));
    }
    const left = this.inventoryLeft(rfq.destinationChainId, rfq.outputToken, rfq.outputDecimals);
    const price = priceRfq(this.strategy, rfq, left);
    if (price === undefined) {
      await this.decline(stream, rfq.id, 'no inventory or no price within the RFQ limits');
      return;
    }
    // Only what it can fill: its balance on the destination chain, less what it owes orders it has not filled yet.
    const output = 'outputAmount' in price ? BigInt(price.outputAmount) : BigInt(rfq.outputAmount!);
    const token = rfq.outputToken as `0x${string}`;
    const held = await this.holdings.deliverable(rfq.destinationChainId, token);
    if (held.left < output) {
      const reason = `cannot deliver ${output} on chain ${rfq.destinationChainId}: holds ${held.balance}, owes ${held.owed} to orders not filled yet`;
      this.holdings.noteShort(rfq.destinationChainId, token, reason);
      void this.holdings
        .rebalance()
        .catch((error: unknown) => this.emit({ type: 'error', message: `rebalance failed: ${errorText(error)}` }));
      await this.decline(stream, rfq.id, reason);
      return;
    }
    this.holdings.noteSupplied(rfq.destinationChainId, token);
    const submission =
      behaviour.quote === 'invalid'
        ? ({ rfqId: rfq.id, outputAmount: 'not-an-amount' } as never)
        : { rfqId: rfq.id, ...price, confidence: this.strategy.confidence, lockTypes: [rfq.lockType], settlementPath: rfq.settlementPath };
    const answer = await stream.quote(submission);
    if (answer.type === 'quote.ack') {
      this.counters.quoted += 1;
      this.emit({ type: 'quoted', rfqId: rfq.id, quoteId: answer.quoteId });
    } else {
      this.counters.rejected += 1;
      this.emit({ type: 'rejected', rfqId: rfq.id, code: answer.code, reason: answer.reason });
    }
  }

  private async decline(stream: SolverStreamClient, rfqId: string, reason: string): Promise<void> {
    await stream.decline(rfqId, reason);
    this.counters.declined += 1;
    this.emit({ type: 'declined', rfqId, reason });
  }

  private async onOrder(message: SolverOrderMessage): Promise<void> {
    switch (message.type) {
      case 'order.assigned':
        return this.fill(message);
      case 'order.attested':
        return this.claim(message);
      case 'order.refunded': {
        const known = this.orders.get(message.orderId);
        this.counters.refunded += 1;
        // The order is over: it no longer puts anything at risk. Filled and not paid, the loss is in its balance on
        // chain, which is what it quotes from; keeping it reserved would shrink its risk limit run after run.
        if (known !== undefined) this.releaseOnce(message.orderId, known.order);
        this.orderEnded(message.orderId);
        this.emit({ type: 'refunded', orderId: message.orderId });
        return;
      }
      case 'order.reorged':
        // Its fill is gone, and with it this account's nonce on that chain: the next send asks the chain again.
        // The reference solver does not fill again; the order refunds at expiry.
        // A fill whose send still waits for its block (anvil missed the block the reorg replaced) is given up now.
        this.wallet.forgetNonce(message.chainId);
        this.wallet.abandon(message.txHash);
        this.emit({ type: 'reorged', orderId: message.orderId, txHash: message.txHash });
        return;
    }
  }

  private async fill(message: Extract<SolverOrderMessage, { type: 'order.assigned' }>): Promise<void> {
    if (this.orders.has(message.orderId) || this.ended.has(message.orderId)) return;
    const order = standardOrderFromWire(message.standardOrder);
    const record = { order, filled: false, claimed: false };
    this.orders.set(message.orderId, record);
    this.counters.assigned += 1;
    this.reserve(order);
    this.emit({ type: 'assigned', orderId: message.orderId, onchainOrderId: message.onchainOrderId });
    const outputs = order.outputs.map((o) => ({ chainId: Number(o.chainId), token: bytes32ToAddress(o.token), amount: o.amount }));
    for (const o of outputs) this.holdings.owe(o.chainId, o.token, o.amount);
    try {
      await this.fillOwed(message, order, record, outputs);
    } catch (error) {
      // Given up: forgotten, so that the order's assignment sent again (a reconnect, a take-over) is a new try.
      if (!record.filled) {
        this.orders.delete(message.orderId);
        this.release(order);
      }
      throw error;
    } finally {
      // Filled or not, it no longer owes these outputs; the balances it read are stale after a fill.
      for (const o of outputs) {
        this.holdings.settle(o.chainId, o.token, o.amount);
        this.holdings.forget(o.chainId, o.token);
      }
    }
  }

  /** Whether it holds every output of the order on its chain now (after a rebalance if one can help). */
  private async shortfall(outputs: readonly { chainId: number; token: `0x${string}`; amount: bigint }[]): Promise<string | undefined> {
    const missing = async () => {
      for (const o of outputs) {
        this.holdings.forget(o.chainId, o.token);
        const balance = await this.holdings.balance(o.chainId, o.token);
        if (balance < o.amount) return `holds ${balance} of ${o.token} on chain ${o.chainId}, the fill needs ${o.amount}`;
      }
      return undefined;
    };
    const first = await missing();
    if (first === undefined) return undefined;
    await this.holdings.rebalance(true).catch(() => undefined);
    return missing();
  }

  private async fillOwed(
    message: Extract<SolverOrderMessage, { type: 'order.assigned' }>,
    order: StandardOrder,
    record: { filled: boolean },
    outputs: readonly { chainId: number; token: `0x${string}`; amount: bigint }[],
  ): Promise<void> {
    const faulted = await this.faults?.behaviourFor('fill', { solverId: this.solverId, orderId: message.orderId });
    const behaviour = { ...this.behaviour, ...faulted };
    if (behaviour.fill === 'never') {
      this.emit({ type: 'skipped', orderId: message.orderId, reason: 'never fills by script' });
      return;
    }
    if (behaviour.fill === 'vanish') {
      this.emit({ type: 'skipped', orderId: message.orderId, reason: `vanished by script (back in ${VANISH_MS} ms)` });
      this.stream?.dropFor(VANISH_MS);
      return;
    }
    if (behaviour.fillDelayMs !== undefined && behaviour.fillDelayMs > 0) await sleep(behaviour.fillDelayMs);
    if (behaviour.fill === 'late') {
      const destination = order.outputs[0]!.chainId;
      while (!this.stopped && (await this.wallet.chainTime(destination)) <= order.fillDeadline) await sleep(200);
      if (this.stopped) return;
    }
    const misfill = behaviour.fill === 'short' || behaviour.fill === 'wrong-recipient' ? behaviour.fill : undefined;
    const filled = await this.whileChainsAway(async () => {
      const lacking = await this.shortfall(outputs);
      if (lacking !== undefined) return { lacking };
      return {
        results: await this.wallet.fill(order, message.onchainOrderId, {
          late: behaviour.fill === 'late',
          ...(misfill === undefined ? {} : { misfill }),
        }),
      };
    });
    if ('lacking' in filled) {
      // Said out loud (the sandbox logs it): without this the order just sits Deposited until it refunds.
      const reason = `cannot fill: ${filled.lacking}`;
      this.holdings.noteShort(outputs[0]!.chainId, outputs[0]!.token, reason);
      this.emit({ type: 'skipped', orderId: message.orderId, reason });
      return;
    }
    const results = filled.results;
    record.filled = true;
    this.counters.filled += 1;
    this.emit({ type: 'filled', orderId: message.orderId, txHash: results[0]!.txHash, timestamp: results[0]!.timestamp });
    if (behaviour.fill === 'twice') {
      // The same fill again: the output settler refuses a filled output, so this must revert.
      try {
        await this.wallet.fill(order, message.onchainOrderId);
        this.emit({ type: 'error', orderId: message.orderId, message: 'a second fill of the same output landed' });
      } catch (error) {
        this.emit({ type: 'skipped', orderId: message.orderId, reason: `second fill refused: ${(error as Error).message.split('\n')[0]}` });
      }
    }
  }

  /** Runs `task` again while a chain does not answer (see CHAIN_OUTAGE_MS); any other failure is the caller's. */
  private async whileChainsAway<T>(task: () => Promise<T>): Promise<T> {
    const until = Date.now() + CHAIN_OUTAGE_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        return await task();
      } catch (error) {
        if (!isTransportError(error) || this.stopped || Date.now() > until) throw error;
        await sleep(Math.min(250 * 2 ** attempt, 2_000));
      }
    }
  }

  private async claim(message: Extract<SolverOrderMessage, { type: 'order.attested' }>): Promise<void> {
    const known = this.orders.get(message.orderId);
    if (known?.claimed || this.ended.has(message.orderId)) return;
    if (!this.behaviour.claim) {
      this.emit({ type: 'skipped', orderId: message.orderId, reason: 'does not claim by script' });
      return;
    }
    const order = known?.order ?? standardOrderFromWire(message.standardOrder);
    const txHash = await this.wallet.finalise(order, message.lockType, message.solveParams, message.compactSignatures);
    // Paid: what it reserved for this order's outputs when it won is free again.
    if (known?.filled) this.releaseOnce(message.orderId, order);
    this.orderEnded(message.orderId);
    this.counters.claimed += 1;
    this.emit({ type: 'claimed', orderId: message.orderId, txHash });
    // The proceeds landed on the origin chain: move inventory back to where it fills if it runs low there.
    void this.holdings
      .rebalance()
      .catch((error: unknown) => this.emit({ type: 'error', message: `rebalance failed: ${errorText(error)}` }));
  }

  private reserve(order: StandardOrder): void {
    for (const output of order.outputs) {
      const key = this.inventoryKey(Number(output.chainId), bytes32ToAddress(output.token));
      const left = this.inventory.get(key);
      if (left !== undefined) this.inventory.set(key, left - output.amount);
    }
  }

  /**
   * Orders that ended (claimed or refunded), the most recent `REMEMBERED_ENDED_ORDERS`: their outputs were given back
   * to the risk limit once, and a message about them sent again (a reconnect, a take-over) is ignored.
   */
  private readonly ended = new Set<string>();

  /** Orders in hand: won and not yet claimed or refunded (what it still remembers beyond the bounded `ended`). */
  get ordersInHand(): number {
    return this.orders.size;
  }

  private orderEnded(orderId: string): void {
    this.ended.add(orderId);
    // Chain mode finds orders in the escrows' logs, which it may read again: there the record stays, as its guard.
    if (this.mode !== 'chain') this.orders.delete(orderId);
    // A Set iterates in insertion order: the oldest ended order is forgotten first.
    if (this.ended.size > REMEMBERED_ENDED_ORDERS) this.ended.delete(this.ended.values().next().value as string);
  }

  private releaseOnce(orderId: string, order: StandardOrder): void {
    if (this.ended.has(orderId)) return;
    this.ended.add(orderId);
    this.release(order);
  }

  private release(order: StandardOrder): void {
    for (const output of order.outputs) {
      const key = this.inventoryKey(Number(output.chainId), bytes32ToAddress(output.token));
      const left = this.inventory.get(key);
      if (left !== undefined) this.inventory.set(key, left + output.amount);
    }
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0]! : String(error);
}
