/**
 * Watches every block of every chain while a campaign runs and keeps the transactions the service's relayer
 * accounts sent, with their outcome. Anvil keeps only a short history (`--prune-history`), so the recorder reads
 * each block as it is mined rather than scanning afterwards; a block it could not read is counted, never guessed.
 */
import { type Abi, type AbiEvent, type AbiFunction, type Address, type Hex, toEventSelector, toFunctionSelector } from 'viem';
import { InputOracleArtifact } from '../../src/contracts/artifacts/InputOracle.js';
import { InputSettlerEscrowArtifact } from '../../src/contracts/artifacts/InputSettlerEscrow.js';
import { OutputOracleArtifact } from '../../src/contracts/artifacts/OutputOracle.js';
import type { ChainInfo } from '../../src/contracts/deployment.js';
import { createRpcClient, type RpcClient } from '../../src/devnet/rpc.js';

export type RelayKind = 'openFor' | 'refund' | 'oracleSubmit' | 'receiveAttestation' | 'other';

function selectorOf(abi: Abi, name: string): Hex {
  const item = abi.find((entry): entry is AbiFunction => entry.type === 'function' && entry.name === name);
  if (item === undefined) throw new Error(`no function ${name} in the ABI`);
  return toFunctionSelector(item);
}

const SELECTORS: Record<string, RelayKind> = {
  [selectorOf(InputSettlerEscrowArtifact.abi as Abi, 'openFor')]: 'openFor',
  [selectorOf(InputSettlerEscrowArtifact.abi as Abi, 'refund')]: 'refund',
  [selectorOf(OutputOracleArtifact.abi as Abi, 'submit')]: 'oracleSubmit',
  [selectorOf(InputOracleArtifact.abi as Abi, 'receiveAttestation')]: 'receiveAttestation',
};
const OPEN_EVENT = toEventSelector(
  (InputSettlerEscrowArtifact.abi as Abi).find((entry): entry is AbiEvent => entry.type === 'event' && entry.name === 'Open')!,
);

export interface RelayedTransaction {
  chainId: number;
  hash: Hex;
  from: Address;
  to: Address | null;
  input: Hex;
  kind: RelayKind;
  blockNumber: number;
  status: 'success' | 'reverted';
  /** On-chain order id of a successful `openFor` (its Open event). */
  openedOrderId?: Hex;
}

interface RpcTransaction {
  hash: Hex;
  from: Address;
  to: Address | null;
  input: Hex;
}

interface RpcBlock {
  number: Hex;
  transactions: RpcTransaction[];
}

interface RpcReceipt {
  status: Hex;
  logs: Array<{ topics: Hex[] }>;
}

export class BlockRecorder {
  readonly transactions: RelayedTransaction[] = [];
  /** Blocks that were gone (pruned) before they could be read. */
  missedBlocks = 0;
  blocksRead = 0;
  private readonly relayers: Set<string>;
  private readonly chains: Array<{ info: ChainInfo; rpc: RpcClient; next: number }> = [];
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private stopped = false;

  constructor(chains: readonly ChainInfo[], relayers: readonly Address[]) {
    this.relayers = new Set(relayers.map((address) => address.toLowerCase()));
    for (const info of chains) this.chains.push({ info, rpc: createRpcClient(info.rpcUrl), next: -1 });
  }

  async start(): Promise<void> {
    for (const chain of this.chains) chain.next = Number(await chain.rpc.call<Hex>('eth_blockNumber')) + 1;
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.polling = this.poll().finally(() => this.schedule());
    }, 15);
  }

  private async poll(): Promise<void> {
    await Promise.all(
      this.chains.map(async (chain) => {
        const head = Number(await chain.rpc.call<Hex>('eth_blockNumber').catch(() => `0x${(chain.next - 1).toString(16)}`));
        while (chain.next <= head) {
          const number = chain.next;
          const block = await chain.rpc.call<RpcBlock | null>('eth_getBlockByNumber', [`0x${number.toString(16)}`, true]);
          chain.next += 1;
          if (block === null) {
            this.missedBlocks += 1;
            continue;
          }
          this.blocksRead += 1;
          for (const tx of block.transactions) {
            if (!this.relayers.has(tx.from.toLowerCase())) continue;
            const receipt = await chain.rpc.call<RpcReceipt>('eth_getTransactionReceipt', [tx.hash]);
            const kind = SELECTORS[tx.input.slice(0, 10)] ?? 'other';
            const status = receipt.status === '0x1' ? 'success' : 'reverted';
            const opened =
              kind === 'openFor' && status === 'success' ? receipt.logs.find((log) => log.topics[0] === OPEN_EVENT)?.topics[1] : undefined;
            this.transactions.push({
              chainId: chain.info.chainId,
              hash: tx.hash,
              from: tx.from,
              to: tx.to,
              input: tx.input,
              kind,
              blockNumber: number,
              status,
              ...(opened === undefined ? {} : { openedOrderId: opened }),
            });
          }
        }
      }),
    ).catch(() => undefined);
  }

  /** Reads up to the current heads once more, then stops. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.polling;
    await this.poll();
    for (const chain of this.chains) chain.rpc.close();
  }

  /**
   * The same relay sent more than once: identical calldata to the same contract on the same chain. Every
   * transaction the engine sends (a deposit, a refund, either oracle leg) is a pure function of its order and
   * fill, so a repeat is a second relay of the same intent, mined or reverted.
   */
  duplicates(): { total: number; byKind: Record<RelayKind, number>; examples: RelayedTransaction[][] } {
    const groups = new Map<string, RelayedTransaction[]>();
    for (const tx of this.transactions) {
      const key = `${tx.chainId}:${tx.to?.toLowerCase()}:${tx.input}`;
      groups.set(key, [...(groups.get(key) ?? []), tx]);
    }
    const byKind: Record<RelayKind, number> = { openFor: 0, refund: 0, oracleSubmit: 0, receiveAttestation: 0, other: 0 };
    const examples: RelayedTransaction[][] = [];
    let total = 0;
    for (const group of groups.values()) {
      if (group.length < 2) continue;
      total += group.length - 1;
      byKind[group[0]!.kind] += group.length - 1;
      if (examples.length < 5) examples.push(group);
    }
    return { total, byKind, examples };
  }

  countByKind(): Record<RelayKind, number> {
    const counts: Record<RelayKind, number> = { openFor: 0, refund: 0, oracleSubmit: 0, receiveAttestation: 0, other: 0 };
    for (const tx of this.transactions) counts[tx.kind] += 1;
    return counts;
  }
}
