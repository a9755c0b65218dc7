/**
 * Chain mode of the reference solvers (`--solver-mode chain`): a solver as OIF's own works, without the solver
 * stream. It discovers orders from the escrows' `Open(bytes32, StandardOrder)` logs, fills those it may fill (not
 * inside another solver's exclusive window, only order types it knows), waits for the origin's input oracle to
 * prove its fill (`isProven`) and claims with `finalise`.
 */
import { type Hex, getAddress } from 'viem';
import { keccak256 } from '../contracts/keccak.js';
import { InputOracleArtifact } from '../contracts/artifacts/InputOracle.js';
import { InputSettlerEscrowArtifact } from '../contracts/artifacts/InputSettlerEscrow.js';
import type { ChainInfo } from '../contracts/deployment.js';
import { encodeFillDescription } from '../contracts/fill.js';
import { addressToBytes32, type StandardOrder } from '../contracts/order.js';
import { readOutputContext } from '../contracts/output-context.js';
import type { SolverBehaviour } from './behaviour.js';
import type { SolverCounters, SolverEvent } from './solver-events.js';
import type { SolverWallet } from './solver-wallet.js';

/** What chain mode uses of its reference solver: its wallet, books, behaviour and event stream. */
export interface ChainModeHost {
  chains: readonly ChainInfo[];
  wallet: SolverWallet;
  counters: SolverCounters;
  /** Orders seen, so a repeated log does not fill or claim twice. */
  orders: Map<string, { order: StandardOrder; filled: boolean; claimed: boolean }>;
  behaviour(): SolverBehaviour;
  stopped(): boolean;
  emit(event: SolverEvent): void;
  /** Runs work in the background; its failure is counted and reported as an `error` event. */
  track(work: Promise<void>): void;
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

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export class ChainModeSolving {
  constructor(private readonly host: ChainModeHost) {}

  /** Starts one poller per chain with an escrow, from the current block on. */
  async start(): Promise<void> {
    for (const info of this.host.chains) {
      const escrow = info.contracts.InputSettlerEscrow;
      if (escrow === undefined) continue;
      const client = this.host.wallet.chain(info.chainId).public;
      let fromBlock = (await client.getBlockNumber()) + 1n;
      const poll = async () => {
        while (!this.host.stopped()) {
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
              for (const log of logs) this.host.track(this.fillFromChain(log.args.orderId!, log.args.order!));
            }
          } catch (error) {
            this.host.counters.errors += 1;
            this.host.emit({ type: 'error', message: `watching ${info.name}: ${error instanceof Error ? error.message : String(error)}` });
          }
          await sleep(200);
        }
      };
      this.host.track(poll());
    }
  }

  /** Fills an order found in an `Open` log, waits for the input oracle to prove it, and claims it. */
  private async fillFromChain(onchainOrderId: Hex, raw: OpenedOrder): Promise<void> {
    const orderId = `ord_${onchainOrderId.slice(2).toLowerCase()}`;
    if (this.host.orders.has(orderId)) return;
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
    this.host.orders.set(orderId, record);
    const reason = await this.unfillable(order);
    if (reason !== undefined) {
      this.host.emit({ type: 'skipped', orderId, reason });
      return;
    }
    this.host.counters.assigned += 1;
    this.host.emit({ type: 'assigned', orderId, onchainOrderId });
    if (this.host.behaviour().fill === 'never') {
      this.host.emit({ type: 'skipped', orderId, reason: 'never fills by script' });
      return;
    }
    const results = await this.host.wallet.fill(order, onchainOrderId);
    record.filled = true;
    this.host.counters.filled += 1;
    this.host.emit({ type: 'filled', orderId, txHash: results[0]!.txHash, timestamp: results[0]!.timestamp });
    if (!this.host.behaviour().claim) {
      this.host.emit({ type: 'skipped', orderId, reason: 'does not claim by script' });
      return;
    }

    // Proven when the origin's input oracle holds every fill (the oracle relayer carries them there).
    const origin = this.host.wallet.chain(order.originChainId).public;
    const solveParams = results.map((r) => ({ timestamp: r.timestamp, solver: this.host.wallet.identifier }));
    const proven = async () => {
      for (const [i, output] of order.outputs.entries()) {
        const dataHash = keccak256(encodeFillDescription(this.host.wallet.identifier, onchainOrderId, results[i]!.timestamp, output));
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
    while (!this.host.stopped() && !(await proven())) {
      if ((await this.host.wallet.chainTime(order.originChainId)) > order.expires) {
        this.host.emit({ type: 'skipped', orderId, reason: 'not proven before expiry' });
        return;
      }
      await sleep(200);
    }
    if (this.host.stopped()) return;
    const txHash = await this.host.wallet.finalise(order, 'Permit2Escrow', solveParams);
    record.claimed = true;
    this.host.counters.claimed += 1;
    this.host.emit({ type: 'claimed', orderId, txHash });
  }

  /** Why this solver will not fill an order it saw on chain; undefined when it will. */
  private async unfillable(order: StandardOrder): Promise<string | undefined> {
    for (const output of order.outputs) {
      const info = this.host.chains.find((c) => BigInt(c.chainId) === output.chainId);
      const settler = info?.contracts.OutputSettler;
      if (info === undefined || settler === undefined) return `no RPC or settler for chain ${output.chainId}`;
      if (output.settler.toLowerCase() !== addressToBytes32(getAddress(settler)).toLowerCase())
        return 'output settler is not the sandbox OutputSettler';
      const now = await this.host.wallet.chainTime(output.chainId);
      if (now > order.fillDeadline) return 'fill deadline passed';
      const context = readOutputContext(output.context);
      if (context.kind === 'exclusive') {
        const mine = context.exclusiveFor === this.host.wallet.identifier.toLowerCase();
        if (!mine && now < context.until) return `exclusive to ${context.exclusiveFor} until ${context.until}`;
      } else if (context.kind !== 'limit') {
        return `order type ${context.kind === 'unknown' ? context.type : context.kind} not supported by this solver`;
      }
    }
    return undefined;
  }
}
