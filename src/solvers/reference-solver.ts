/**
 * A reference solver: a real client of the service. It registers (or finds its earlier registration), connects to
 * the solver stream, prices RFQs with its strategy, fills the orders it wins on the destination chain and claims
 * them on the origin chain once the service relays the attestation.
 */
import { type Hex, getAddress, keccak256 } from 'viem';
import { InputOracleArtifact } from '../contracts/artifacts/InputOracle.js';
import { InputSettlerEscrowArtifact } from '../contracts/artifacts/InputSettlerEscrow.js';
import { encodeFillDescription } from '../contracts/fill.js';
import { RestClient } from '../clients/rest-client.js';
import { type RfqBroadcast, type SolverOrderMessage, SolverStreamClient } from '../clients/solver-stream-client.js';
import { standardOrderFromWire } from '../contracts/standard-order-wire.js';
import { bytes32ToAddress, type StandardOrder } from '../contracts/order.js';
import type { AccountInfo, ChainInfo } from '../contracts/deployment.js';
import { HONEST, type SolverBehaviour } from './behaviour.js';
import { SolverWallet } from './solver-wallet.js';
import { priceRfq, type PricingStrategy } from './strategy.js';

export type SolverEvent =
  | { type: 'rfq'; rfqId: string; corridor: string }
  | { type: 'quoted'; rfqId: string; quoteId: string }
  | { type: 'declined'; rfqId: string; reason: string }
  | { type: 'rejected'; rfqId: string; code: string; reason: string }
  | { type: 'assigned'; orderId: string; onchainOrderId: Hex }
  | { type: 'filled'; orderId: string; txHash: Hex; timestamp: number }
  | { type: 'skipped'; orderId: string; reason: string }
  | { type: 'claimed'; orderId: string; txHash: Hex }
  | { type: 'refunded'; orderId: string }
  | { type: 'error'; orderId?: string; rfqId?: string; message: string };

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
  /**
   * `stream` (default): quote on the solver stream, fill what the service assigns, claim when it says attested.
   * `chain`: no solver stream at all, as an OIF solver works: discover orders from the escrows' `Open` logs, fill
   * those it may fill (not another solver's exclusive window), and claim once the origin's input oracle proves the
   * fill (`isProven`).
   */
  mode?: 'stream' | 'chain';
}

/** A StandardOrder as viem decodes it from upstream's `Open(bytes32 indexed, StandardOrder)`. */
interface OpenedOrder {
  user: Hex;
  nonce: bigint;
  originChainId: bigint;
  expires: number;
  fillDeadline: number;
  inputOracle: Hex;
  inputs: readonly (readonly [bigint, bigint])[];
  outputs: readonly StandardOrder['outputs'][number][];
}

export interface SolverCounters {
  rfqs: number;
  quoted: number;
  declined: number;
  rejected: number;
  assigned: number;
  filled: number;
  claimed: number;
  refunded: number;
  errors: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

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
  /** Orders seen, so a repeated message does not fill or claim twice. */
  private readonly orders = new Map<string, { order: StandardOrder; filled: boolean; claimed: boolean }>();
  private readonly work = new Set<Promise<unknown>>();
  private readonly rest: RestClient;

  constructor(private readonly options: ReferenceSolverOptions) {
    this.name = options.name;
    this.strategy = options.strategy;
    this._behaviour = { ...options.behaviour };
    this.wallet = new SolverWallet(options.chains, options.account.privateKey);
    this.rest = new RestClient({ baseUrl: options.serviceUrl, apiKey: options.apiKey });
  }

  get behaviour(): SolverBehaviour {
    return { ...HONEST, ...this._behaviour };
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
      await this.watchChains();
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
    this.stream.onRfq((rfq) => this.track(this.answer(rfq)));
    this.stream.onOrder((message) => this.track(this.onOrder(message)));
  }

  /** Closes the stream and waits for fills and claims in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.stream?.close();
    await Promise.allSettled([...this.work]);
  }

  // ---- chain mode: an OIF-style solver that reads the chain only ------------------------------------------

  /** Starts one poller per chain with an escrow, from the current block on. */
  private async watchChains(): Promise<void> {
    for (const info of this.options.chains) {
      const escrow = info.contracts.InputSettlerEscrow;
      if (escrow === undefined) continue;
      const client = this.wallet.chain(info.chainId).public;
      let fromBlock = (await client.getBlockNumber()) + 1n;
      const poll = async () => {
        while (!this.stopped) {
          try {
            const latest = await client.getBlockNumber();
            if (latest >= fromBlock) {
              const logs = await client.getContractEvents({
                address: escrow,
                abi: InputSettlerEscrowArtifact.abi,
                eventName: 'Open',
                fromBlock,
                toBlock: latest,
              });
              fromBlock = latest + 1n;
              for (const log of logs) this.track(this.fillFromChain(log.args.orderId!, log.args.order!));
            }
          } catch (error) {
            this.counters.errors += 1;
            this.emit({ type: 'error', message: `watching ${info.name}: ${error instanceof Error ? error.message : String(error)}` });
          }
          await sleep(200);
        }
      };
      this.track(poll());
    }
  }

  /** Fills an order found in an `Open` log, waits for the input oracle to prove it, and claims it. */
  private async fillFromChain(onchainOrderId: Hex, raw: OpenedOrder): Promise<void> {
    const orderId = `ord_${onchainOrderId.slice(2).toLowerCase()}`;
    if (this.orders.has(orderId)) return;
    const order: StandardOrder = {
      user: getAddress(raw.user),
      nonce: raw.nonce,
      originChainId: raw.originChainId,
      expires: raw.expires,
      fillDeadline: raw.fillDeadline,
      inputOracle: getAddress(raw.inputOracle),
      inputs: raw.inputs.map(([id, amount]) => [id, amount] as const),
      outputs: raw.outputs.map((output) => ({ ...output })),
    };
    const record = { order, filled: false, claimed: false };
    this.orders.set(orderId, record);
    const reason = await this.unfillable(order);
    if (reason !== undefined) {
      this.emit({ type: 'skipped', orderId, reason });
      return;
    }
    this.counters.assigned += 1;
    this.emit({ type: 'assigned', orderId, onchainOrderId });
    if (this.behaviour.fill === 'never') {
      this.emit({ type: 'skipped', orderId, reason: 'never fills by script' });
      return;
    }
    const results = await this.wallet.fill(order, onchainOrderId);
    record.filled = true;
    this.counters.filled += 1;
    this.emit({ type: 'filled', orderId, txHash: results[0]!.txHash, timestamp: results[0]!.timestamp });
    if (!this.behaviour.claim) {
      this.emit({ type: 'skipped', orderId, reason: 'does not claim by script' });
      return;
    }

    // Proven when the origin's input oracle holds every fill (the oracle relayer carries them there).
    const origin = this.wallet.chain(order.originChainId).public;
    const solveParams = results.map((r) => ({ timestamp: r.timestamp, solver: this.wallet.identifier }));
    const proven = async () => {
      for (const [i, output] of order.outputs.entries()) {
        const dataHash = keccak256(encodeFillDescription(this.wallet.identifier, onchainOrderId, results[i]!.timestamp, output));
        const ok = await origin.readContract({
          address: order.inputOracle,
          abi: InputOracleArtifact.abi,
          functionName: 'isProven',
          args: [output.chainId, output.oracle, output.settler, dataHash],
        });
        if (!ok) return false;
      }
      return true;
    };
    while (!this.stopped && !(await proven())) {
      if ((await this.wallet.chainTime(order.originChainId)) > order.expires) {
        this.emit({ type: 'skipped', orderId, reason: 'not proven before expiry' });
        return;
      }
      await sleep(200);
    }
    if (this.stopped) return;
    const txHash = await this.wallet.finalise(order, 'Permit2Escrow', solveParams);
    record.claimed = true;
    this.counters.claimed += 1;
    this.emit({ type: 'claimed', orderId, txHash });
  }

  /** Why this solver will not fill an order it saw on chain; undefined when it will. */
  private async unfillable(order: StandardOrder): Promise<string | undefined> {
    for (const output of order.outputs) {
      const info = this.options.chains.find((c) => BigInt(c.chainId) === output.chainId);
      const settler = info?.contracts.OutputSettler;
      if (info === undefined || settler === undefined) return `no RPC or settler for chain ${output.chainId}`;
      if (bytes32ToAddress(output.settler) !== getAddress(settler)) return 'output settler is not the sandbox OutputSettler';
      const now = await this.wallet.chainTime(output.chainId);
      if (now > order.fillDeadline) return 'fill deadline passed';
      const context = output.context.toLowerCase();
      if (context.startsWith('0xe0') || context.startsWith('0xe1')) {
        const exclusiveFor = `0x${context.slice(4, 68)}`;
        const until = Number.parseInt(context.slice(68, 76), 16);
        if (exclusiveFor !== this.wallet.identifier.toLowerCase() && now < until) return `exclusive to ${exclusiveFor} until ${until}`;
      } else if (context !== '0x' && context !== '0x00') {
        return `order type ${context.slice(0, 4)} not supported by this solver`;
      }
    }
    return undefined;
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

  private inventoryLeft(chainId: number, token: string, decimals: number): bigint {
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
    const behaviour = this.behaviour;
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
        if (known !== undefined && !known.filled) this.release(known.order);
        this.emit({ type: 'refunded', orderId: message.orderId });
        return;
      }
    }
  }

  private async fill(message: Extract<SolverOrderMessage, { type: 'order.assigned' }>): Promise<void> {
    if (this.orders.has(message.orderId)) return;
    const order = standardOrderFromWire(message.standardOrder);
    const record = { order, filled: false, claimed: false };
    this.orders.set(message.orderId, record);
    this.counters.assigned += 1;
    this.reserve(order);
    this.emit({ type: 'assigned', orderId: message.orderId, onchainOrderId: message.onchainOrderId });
    const behaviour = this.behaviour;
    if (behaviour.fill === 'never') {
      this.emit({ type: 'skipped', orderId: message.orderId, reason: 'never fills by script' });
      return;
    }
    if (behaviour.fillDelayMs !== undefined && behaviour.fillDelayMs > 0) await sleep(behaviour.fillDelayMs);
    if (behaviour.fill === 'late') {
      const destination = order.outputs[0]!.chainId;
      while (!this.stopped && (await this.wallet.chainTime(destination)) <= order.fillDeadline) await sleep(200);
      if (this.stopped) return;
    }
    const results = await this.wallet.fill(order, message.onchainOrderId, { late: behaviour.fill === 'late' });
    record.filled = true;
    this.counters.filled += 1;
    this.emit({ type: 'filled', orderId: message.orderId, txHash: results[0]!.txHash, timestamp: results[0]!.timestamp });
  }

  private async claim(message: Extract<SolverOrderMessage, { type: 'order.attested' }>): Promise<void> {
    const known = this.orders.get(message.orderId);
    if (known?.claimed) return;
    if (!this.behaviour.claim) {
      this.emit({ type: 'skipped', orderId: message.orderId, reason: 'does not claim by script' });
      return;
    }
    const order = known?.order ?? standardOrderFromWire(message.standardOrder);
    const txHash = await this.wallet.finalise(order, message.lockType, message.solveParams, message.compactSignatures);
    if (known !== undefined) known.claimed = true;
    else this.orders.set(message.orderId, { order, filled: true, claimed: true });
    this.counters.claimed += 1;
    this.emit({ type: 'claimed', orderId: message.orderId, txHash });
  }

  private reserve(order: StandardOrder): void {
    for (const output of order.outputs) {
      const key = this.inventoryKey(Number(output.chainId), bytes32ToAddress(output.token));
      const left = this.inventory.get(key);
      if (left !== undefined) this.inventory.set(key, left - output.amount);
    }
  }

  private release(order: StandardOrder): void {
    for (const output of order.outputs) {
      const key = this.inventoryKey(Number(output.chainId), bytes32ToAddress(output.token));
      const left = this.inventory.get(key);
      if (left !== undefined) this.inventory.set(key, left + output.amount);
    }
  }
}
