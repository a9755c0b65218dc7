/**
 * A minimal solver, a real client of the service like the reference solvers: it registers over REST, quotes every
 * RFQ on the solver stream, fills on the destination chain when an order is assigned and claims on the origin chain
 * when it is attested. Its transactions go out like the benchmark floor's (`eth_sendRawTransactionSync`, local
 * nonces), so the benchmark's second row shows what the service itself costs, apart from a solver's own speed.
 */
import { type Address, type Hex, encodeAbiParameters, encodeFunctionData, getAddress, maxUint256 } from 'viem';
import { RestClient } from '../../../src/clients/rest-client.js';
import { SolverStreamClient, type RfqBroadcast, type SolverOrderMessage } from '../../../src/clients/solver-stream-client.js';
import { standardOrderFromWire } from '../../../src/contracts/standard-order-wire.js';
import { InputSettlerCompactArtifact } from '../../../src/contracts/artifacts/InputSettlerCompact.js';
import { InputSettlerEscrowArtifact } from '../../../src/contracts/artifacts/InputSettlerEscrow.js';
import { OutputSettlerArtifact } from '../../../src/contracts/artifacts/OutputSettler.js';
import { type StandardOrder, addressToBytes32, bytes32ToAddress, toAbiOrder } from '../../../src/contracts/order.js';
import type { ChainInfo } from '../../../src/contracts/deployment.js';
import { SerialSender, type SentReceipt } from './serial-sender.js';

const ERC20_APPROVE = [
  {
    type: 'function',
    name: 'approve',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'spender', type: 'address' },
      { name: 'amount', type: 'uint256' },
    ],
    outputs: [{ name: '', type: 'bool' }],
  },
] as const;

export interface TestSolverOptions {
  url: string;
  apiKey: string;
  privateKey: Hex;
  chains: readonly ChainInfo[];
  name?: string;
  /** Fill when assigned (default true); false: the test calls `fill`. */
  autoFill?: boolean;
  /** Claim when attested (default true). */
  autoClaim?: boolean;
  /** Fee in basis points under par (default 5). */
  feeBps?: bigint;
}

type Attested = Extract<SolverOrderMessage, { type: 'order.attested' }>;
type Assigned = Extract<SolverOrderMessage, { type: 'order.assigned' }>;

export class TestSolver {
  readonly assigned = new Map<string, Assigned>();
  readonly attested = new Map<string, Attested>();
  readonly refunded = new Set<string>();
  readonly fills = new Map<string, SentReceipt>();
  readonly claims = new Map<string, SentReceipt>();
  readonly errors: Error[] = [];
  solverId = '';
  private stream: SolverStreamClient | undefined;
  private readonly senders = new Map<number, SerialSender>();
  private readonly waiters: Array<() => void> = [];
  autoFill: boolean;
  autoClaim: boolean;

  constructor(private readonly options: TestSolverOptions) {
    this.autoFill = options.autoFill ?? true;
    this.autoClaim = options.autoClaim ?? true;
    for (const chain of options.chains)
      this.senders.set(chain.chainId, new SerialSender(options.privateKey, chain.chainId, chain.rpcUrl, { ipcPath: chain.ipcPath }));
  }

  get address(): Address {
    return this.senders.values().next().value!.address;
  }

  /** Registers for every corridor, approves the output settler on every chain, connects the stream. */
  async start(): Promise<void> {
    const rest = new RestClient({ baseUrl: this.options.url, apiKey: this.options.apiKey });
    const corridors = (await rest.corridors()).map((c) => c.id);
    const registration = await rest.registerSolver({
      name: this.options.name ?? `test solver ${this.address.slice(0, 8)}`,
      corridors,
      callbackUrl: 'https://solver.invalid/callback',
    });
    this.solverId = registration.solverId;
    for (const chain of this.options.chains) {
      const sender = this.senders.get(chain.chainId)!;
      for (const token of chain.tokens) {
        await sender.send(
          token.address,
          encodeFunctionData({ abi: ERC20_APPROVE, functionName: 'approve', args: [chain.contracts.OutputSettler!, maxUint256] }),
          100_000n,
        );
      }
    }
    this.stream = await SolverStreamClient.connect({
      url: registration.wsUrl,
      token: registration.wsToken,
      reconnect: { initialDelayMs: 50, maxDelayMs: 500 },
    });
    this.stream.onRfq((rfq) => void this.onRfq(rfq));
    this.stream.onOrder((message) => void this.onOrder(message));
  }

  async stop(): Promise<void> {
    await this.stream?.close();
    for (const sender of this.senders.values()) sender.close();
  }

  private async onRfq(broadcast: RfqBroadcast): Promise<void> {
    const rfq = broadcast.rfq;
    if (rfq.inputAmount === undefined) {
      await this.stream?.decline(rfq.id, 'exactInput only').catch(() => undefined);
      return;
    }
    const fee = this.options.feeBps ?? 5n;
    const scaled = (BigInt(rfq.inputAmount) * 10n ** BigInt(rfq.outputDecimals)) / 10n ** BigInt(rfq.inputDecimals);
    const outputAmount = (scaled * (10_000n - fee)) / 10_000n;
    await this.stream?.quote({ rfqId: rfq.id, outputAmount: outputAmount.toString() }).catch((error: Error) => this.errors.push(error));
  }

  private async onOrder(message: SolverOrderMessage): Promise<void> {
    try {
      if (message.type === 'order.assigned') {
        if (this.assigned.has(message.orderId)) return;
        this.assigned.set(message.orderId, message);
        this.notify();
        if (this.autoFill) await this.fill(message.orderId);
      } else if (message.type === 'order.attested') {
        if (this.attested.has(message.orderId)) return;
        this.attested.set(message.orderId, message);
        this.notify();
        if (this.autoClaim) await this.claim(message.orderId);
      } else {
        this.refunded.add(message.orderId);
        this.notify();
      }
    } catch (error) {
      this.errors.push(error as Error);
    }
  }

  /** Fills every output of an assigned order. `fillDeadline` overrides the deadline passed to the settler (late fills). */
  async fill(orderId: string, options: { fillDeadline?: number } = {}): Promise<SentReceipt> {
    const message = this.assigned.get(orderId);
    if (message === undefined) throw new Error(`order ${orderId} was not assigned to ${this.solverId}`);
    const order = standardOrderFromWire(message.standardOrder);
    const output = order.outputs[0]!;
    const sender = this.senders.get(Number(output.chainId))!;
    const receipt = await sender.send(
      bytes32ToAddress(output.settler),
      encodeFunctionData({
        abi: OutputSettlerArtifact.abi,
        functionName: 'fill',
        args: [
          message.onchainOrderId,
          { ...output },
          options.fillDeadline ?? message.fillDeadline,
          encodeAbiParameters([{ type: 'bytes32' }], [addressToBytes32(sender.address)]),
        ],
      }),
      400_000n,
    );
    this.fills.set(orderId, receipt);
    return receipt;
  }

  /** Claims an attested order's inputs to the solver's own address. */
  async claim(orderId: string): Promise<SentReceipt> {
    const message = this.attested.get(orderId);
    if (message === undefined) throw new Error(`order ${orderId} is not attested`);
    const order: StandardOrder = standardOrderFromWire(message.standardOrder);
    const origin = this.options.chains.find((c) => c.chainId === message.originChainId)!;
    const sender = this.senders.get(origin.chainId)!;
    const destination = addressToBytes32(sender.address);
    const solveParams = message.solveParams.map((p) => ({ timestamp: p.timestamp, solver: p.solver }));
    const data =
      message.lockType === 'ResourceLock'
        ? encodeFunctionData({
            abi: InputSettlerCompactArtifact.abi,
            functionName: 'finalise',
            args: [toAbiOrder(order), message.compactSignatures!, solveParams, destination, '0x'],
          })
        : encodeFunctionData({
            abi: InputSettlerEscrowArtifact.abi,
            functionName: 'finalise',
            args: [toAbiOrder(order), solveParams, destination, '0x'],
          });
    const settler = getAddress(
      message.lockType === 'ResourceLock' ? origin.contracts.InputSettlerCompact! : origin.contracts.InputSettlerEscrow!,
    );
    const receipt = await sender.send(settler, data, 600_000n);
    this.claims.set(orderId, receipt);
    return receipt;
  }

  /** Resolves when `predicate` holds (checked on every message), or rejects after `timeoutMs` of wall time. */
  async until(predicate: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
    const started = Date.now();
    while (!predicate()) {
      if (Date.now() - started > timeoutMs) throw new Error(`test solver: timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 25);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  private notify(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }
}
