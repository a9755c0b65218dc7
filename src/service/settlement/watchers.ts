import type { Logger } from 'pino';
import type { Clock } from '../../clock/index.js';
import type { SettlementChain } from './chains.js';
import {
  type ChainCursorRepository,
  type ChainFact,
  type ChainFactRepository,
  decodeFact,
  sameFact,
  watchedAddresses,
} from './chain-facts.js';
import { LogStream, type RpcLog } from './log-stream.js';
import type { AfterCommit } from './relayer.js';

export interface WatcherDeps {
  chain: SettlementChain;
  facts: ChainFactRepository;
  cursors: ChainCursorRepository;
  clock: Clock;
  logger: Logger;
  commit<T>(fn: () => T): T;
  /** New facts of one delivery, inside the transaction that records them; returns work for after the commit. */
  onFacts(facts: ChainFact[]): AfterCommit[];
  /** Facts a reorg took away, inside the transaction that forgets them; returns work for after the commit. */
  onFactsRemoved(facts: ChainFact[]): AfterCommit[];
  /**
   * The chain replaced blocks: run before the reorg's follow-ups, so the senders on this chain count their nonces
   * from the chain again before anything is re-sent (transactions of ours in the replaced blocks are gone).
   */
  onReorganised?(): Promise<void>;
}

/**
 * Reads one chain's settlement logs into chain facts. A delivery commits in one transaction: the facts not seen
 * before, the cursor, and whatever the orders make of them (transitions, ledger entries, events, relay intents).
 */
/** Blocks without new facts between cursor writes. */
const CURSOR_STRIDE = 64;
/** How many recent receipt transactions to remember (their logs arrive again through the subscription). */
const INGESTED_MEMORY = 4_096;

/** What a log is about, whatever block and index it has: its transaction, emitter, kind and order. */
function identity(fact: ChainFact): string {
  return `${fact.txHash.toLowerCase()}:${fact.address.toLowerCase()}:${fact.kind}:${fact.onchainOrderId.toLowerCase()}`;
}

export class ChainWatcher {
  private stream: LogStream | undefined;
  private persistedCursor = 0;
  /** Transactions whose receipts were processed already (recent ones): the subscription's copies are skipped. */
  private readonly ingested = new Set<string>();

  constructor(private readonly deps: WatcherDeps) {}

  async start(): Promise<void> {
    const { chain } = this.deps;
    const from = this.deps.cursors.get(chain.chainId);
    this.persistedCursor = from ?? Number.NEGATIVE_INFINITY;
    this.stream = new LogStream({
      chainId: chain.chainId,
      wsUrl: chain.wsUrl,
      client: chain.client,
      addresses: watchedAddresses(chain),
      fromBlock: from,
      deliver: (logs, nextBlock) => this.deliver(logs, nextBlock),
      reorged: (forkBlock) => this.reorged(forkBlock),
      logger: this.deps.logger,
    });
    await this.stream.start();
  }

  async stop(): Promise<void> {
    await this.stream?.stop();
  }

  idle(): Promise<void> {
    return this.stream?.idle() ?? Promise.resolve();
  }

  /** The chain was changed from here (a reorg fault from `fromBlock`): make sure the stream has seen it. */
  recheck(fromBlock?: number): Promise<void> {
    return this.stream?.recheck(fromBlock) ?? Promise.resolve();
  }

  /**
   * Logs of a receipt the engine holds already (its own transactions), inside the caller's transaction: recorded
   * as facts now; returns the follow-ups of the new ones.
   */
  ingestInTransaction(logs: readonly RpcLog[]): AfterCommit[] {
    const { chain, clock } = this.deps;
    const now = clock.now();
    const fresh = logs
      .map((log) => decodeFact(chain, log))
      .filter((fact): fact is ChainFact => fact !== undefined && this.deps.facts.insert(fact, now));
    // Remembered once committed: a rolled-back ingestion must leave the subscription's copy to be processed.
    const remember = () => {
      for (const log of logs) this.remember(log.transactionHash);
    };
    return [remember, ...(fresh.length === 0 ? [] : this.deps.onFacts(fresh))];
  }

  private remember(txHash: string): void {
    this.ingested.add(txHash);
    if (this.ingested.size > INGESTED_MEMORY) {
      const oldest = this.ingested.values().next().value;
      if (oldest !== undefined) this.ingested.delete(oldest);
    }
  }

  /**
   * The chain replaced its blocks after `forkBlock`: facts recorded from those blocks whose logs the chain no longer
   * has are forgotten and the orders told (inside one transaction with the cursor moved back); the stream then reads
   * the new blocks, so a log that came back in another block is processed again.
   */
  private async reorged(forkBlock: number): Promise<void> {
    const { chain, clock } = this.deps;
    const head = Number(await chain.client.request({ method: 'eth_blockNumber' }));
    const logs =
      head > forkBlock
        ? ((await chain.client.request({
            method: 'eth_getLogs',
            params: [
              { address: watchedAddresses(chain), fromBlock: `0x${(forkBlock + 1).toString(16)}`, toBlock: `0x${head.toString(16)}` },
            ],
          })) as unknown as RpcLog[])
        : [];
    // The chain's facts now, by what identifies one across a re-mining: its transaction, emitter, kind and order (a
    // log's index counts within its block, so the same log mined again with other transactions gets another one).
    const current = new Map<string, ChainFact[]>();
    for (const log of logs) {
      const fact = log.removed === true ? undefined : decodeFact(chain, log);
      if (fact === undefined) continue;
      const same = current.get(identity(fact)) ?? [];
      same.push(fact);
      current.set(identity(fact), same);
    }
    const effects = this.deps.commit(() => {
      const now = clock.now();
      const gone: ChainFact[] = [];
      const renewed: ChainFact[] = [];
      // Only blocks the read covered are judged: a receipt of ours may have recorded a fact in a newer block since.
      const recorded = this.deps.facts.after(chain.chainId, forkBlock).filter((f) => f.blockNumber <= head);
      const seen = new Map<string, number>();
      for (const fact of recorded) {
        // The n-th recorded fact of an identity is matched with the n-th one the chain has now (both in log order).
        const n = seen.get(identity(fact)) ?? 0;
        seen.set(identity(fact), n + 1);
        const again = current.get(identity(fact))?.[n];
        if (again !== undefined && again.logIndex === fact.logIndex && sameFact(fact, again)) continue;
        // Gone, or mined again (another block, index or data, such as a fill's time): the recorded fact is forgotten
        // either way, and one that came back is recorded as the chain has it now, before the orders are told.
        gone.push(fact);
        if (again !== undefined) renewed.push(again);
      }
      this.deps.cursors.rewind(chain.chainId, forkBlock + 1, now);
      if (gone.length === 0) return [];
      this.deps.facts.remove(gone);
      for (const fact of renewed) this.deps.facts.insert(fact, now);
      this.deps.logger.warn(
        {
          chainId: chain.chainId,
          forkBlock,
          removed: gone.map((fact) => ({ kind: fact.kind, txHash: fact.txHash })),
          minedAgain: renewed.map((fact) => ({ kind: fact.kind, txHash: fact.txHash, blockNumber: fact.blockNumber })),
        },
        'a reorg took away processed chain facts',
      );
      return this.deps.onFactsRemoved(gone);
    });
    this.persistedCursor = Math.min(this.persistedCursor, forkBlock + 1);
    // Transactions of ours that were in the replaced blocks may come back: their logs must be read, not skipped.
    this.ingested.clear();
    try {
      await this.deps.onReorganised?.();
    } catch (error) {
      this.deps.logger.warn({ err: error, chainId: chain.chainId }, 'relayers could not re-read their nonces after a reorg');
    }
    for (const effect of effects) {
      try {
        await effect();
      } catch (error) {
        this.deps.logger.error({ err: error, chainId: chain.chainId }, 'follow-up of a reorg failed');
      }
    }
  }

  private async deliver(logs: RpcLog[], nextBlock: number | undefined): Promise<void> {
    const { chain, clock } = this.deps;
    const decoded = logs
      .filter((log) => !this.ingested.has(log.transactionHash))
      .map((log) => decodeFact(chain, log))
      .filter((fact): fact is ChainFact => fact !== undefined);
    const unseen = decoded.filter((fact) => !this.deps.facts.has(fact));
    // Nothing new (the engine's own receipts were processed already): the cursor alone is written now and then;
    // a restart re-reads a few blocks and finds them processed.
    const moveCursor = nextBlock !== undefined && (unseen.length > 0 || nextBlock - this.persistedCursor >= CURSOR_STRIDE);
    if (unseen.length === 0 && !moveCursor) return;
    const effects = this.deps.commit(() => {
      const now = clock.now();
      const fresh = unseen.filter((fact) => this.deps.facts.insert(fact, now));
      if (moveCursor) this.deps.cursors.set(chain.chainId, nextBlock!, now);
      return fresh.length === 0 ? [] : this.deps.onFacts(fresh);
    });
    if (moveCursor) this.persistedCursor = Math.max(this.persistedCursor, nextBlock!);
    for (const effect of effects) {
      try {
        await effect();
      } catch (error) {
        this.deps.logger.error({ err: error, chainId: chain.chainId }, 'follow-up of a chain event failed');
      }
    }
  }
}
