/**
 * Contract logs the engine reacts to, decoded into chain facts, and the table that keeps them. The table is both
 * the idempotency record of the watchers (a log is processed once per (chain, tx, log index)) and the evidence
 * orders derive Filled, Attested, Claimed and Refunded from: order state is driven by the chains, never faked.
 */
import { type Address, type Hex, getAddress } from 'viem';
import { keccak256 } from '../../contracts/keccak.js';
import { InputOracleArtifact } from '../../contracts/artifacts/InputOracle.js';
import { InputSettlerEscrowArtifact } from '../../contracts/artifacts/InputSettlerEscrow.js';
import { OutputOracleArtifact } from '../../contracts/artifacts/OutputOracle.js';
import { OutputSettlerArtifact } from '../../contracts/artifacts/OutputSettler.js';
import type { MandateOutput, StandardOrder } from '../../contracts/order.js';
import type { Store } from '../store/store.js';
import { decodeLog, eventsBySelector } from './log-decoder.js';
import { Statements } from './statements.js';
import type { SettlementChain } from './chains.js';
import type { RpcLog } from './log-stream.js';

interface FactBase {
  chainId: number;
  txHash: Hex;
  logIndex: number;
  blockNumber: number;
  /** The contract that emitted the log. */
  address: Address;
  onchainOrderId: Hex;
}

export type ChainFact = FactBase &
  /** `order`: the StandardOrder of upstream's `Open(bytes32 indexed, StandardOrder)` (escrow opens only). */
  (
    | { kind: 'opened'; order?: StandardOrder }
    | { kind: 'filled'; solver: Hex; timestamp: number; output: MandateOutput; finalAmount: string }
    | { kind: 'proven'; remoteChainId: number; application: Hex; dataHash: Hex; payload: Hex }
    | { kind: 'attested'; remoteChainId: number; application: Hex; remoteOracle: Hex; dataHash: Hex }
    | { kind: 'finalised'; solver: Hex; destination: Hex }
    | { kind: 'refunded' }
  );

export type ChainFactKind = ChainFact['kind'];

const ESCROW_EVENTS = InputSettlerEscrowArtifact.abi.filter((item) => item.type === 'event');
const OUTPUT_SETTLER_EVENTS = OutputSettlerArtifact.abi.filter((item) => item.type === 'event');
const OUTPUT_ORACLE_EVENTS = OutputOracleArtifact.abi.filter((item) => item.type === 'event');
const INPUT_ORACLE_EVENTS = InputOracleArtifact.abi.filter((item) => item.type === 'event');

// The one event a log can be, by topic0, with its inputs split once (see log-decoder.ts).
const ESCROW_BY_SELECTOR = eventsBySelector(ESCROW_EVENTS);
const OUTPUT_SETTLER_BY_SELECTOR = eventsBySelector(OUTPUT_SETTLER_EVENTS);
const OUTPUT_ORACLE_BY_SELECTOR = eventsBySelector(OUTPUT_ORACLE_EVENTS);
const INPUT_ORACLE_BY_SELECTOR = eventsBySelector(INPUT_ORACLE_EVENTS);

/** The addresses whose logs a chain's watcher subscribes to. */
export function watchedAddresses(chain: SettlementChain): Address[] {
  const c = chain.contracts;
  return [c.inputSettlerEscrow, c.inputSettlerCompact, c.inputOracle, c.outputSettler, c.outputOracle];
}

/** Decodes a log of a watched contract; undefined for events the engine does not use. */
export function decodeFact(chain: SettlementChain, log: RpcLog): ChainFact | undefined {
  const address = getAddress(log.address);
  const base = {
    chainId: chain.chainId,
    txHash: log.transactionHash,
    logIndex: Number(log.logIndex),
    blockNumber: Number(log.blockNumber),
    address,
  };
  const raw = { data: log.data, topics: log.topics as [Hex, ...Hex[]] };
  if (raw.topics.length === 0) return undefined;
  const c = chain.contracts;
  try {
    if (address === c.inputSettlerEscrow || address === c.inputSettlerCompact) {
      // Both settlers share InputSettlerBase's Finalised; the escrow alone emits Open and Refunded.
      const abi = ESCROW_BY_SELECTOR.get(raw.topics[0]);
      if (abi === undefined) return undefined;
      const event = decodeLog(abi, raw.topics, raw.data);
      switch (event.eventName) {
        case 'Open': {
          const o = event.args.order;
          const order: StandardOrder = {
            user: getAddress(o.user),
            nonce: o.nonce,
            originChainId: o.originChainId,
            expires: o.expires,
            fillDeadline: o.fillDeadline,
            inputOracle: getAddress(o.inputOracle),
            inputs: o.inputs.map(([id, amount]) => [id, amount] as const),
            outputs: o.outputs.map((output) => ({ ...output })),
          };
          return { ...base, kind: 'opened', onchainOrderId: event.args.orderId, order };
        }
        case 'Refunded':
          return { ...base, kind: 'refunded', onchainOrderId: event.args.orderId };
        case 'Finalised':
          return {
            ...base,
            kind: 'finalised',
            onchainOrderId: event.args.orderId,
            solver: event.args.solver,
            destination: event.args.destination,
          };
      }
    }
    if (address === c.outputSettler) {
      const abi = OUTPUT_SETTLER_BY_SELECTOR.get(raw.topics[0]);
      if (abi === undefined) return undefined;
      const event = decodeLog(abi, raw.topics, raw.data);
      if (event.eventName !== 'OutputFilled') return undefined;
      const { orderId, solver, timestamp, output, finalAmount } = event.args;
      return {
        ...base,
        kind: 'filled',
        onchainOrderId: orderId,
        solver,
        timestamp,
        output: { ...output },
        finalAmount: finalAmount.toString(),
      };
    }
    if (address === c.outputOracle) {
      const abi = OUTPUT_ORACLE_BY_SELECTOR.get(raw.topics[0]);
      if (abi === undefined) return undefined;
      const event = decodeLog(abi, raw.topics, raw.data);
      if (event.eventName !== 'OutputAttested') return undefined;
      const { chainId, application, orderId, dataHash, payload } = event.args;
      // The oracle hashes what it emits; a log whose hash disagrees with its payload is not evidence of anything.
      if (keccak256(payload) !== dataHash) return undefined;
      return { ...base, kind: 'proven', onchainOrderId: orderId, remoteChainId: Number(chainId), application, dataHash, payload };
    }
    if (address === c.inputOracle) {
      const abi = INPUT_ORACLE_BY_SELECTOR.get(raw.topics[0]);
      if (abi === undefined) return undefined;
      const event = decodeLog(abi, raw.topics, raw.data);
      if (event.eventName !== 'AttestationRecorded') return undefined;
      const { remoteChainId, application, orderId, remoteOracle, dataHash } = event.args;
      return {
        ...base,
        kind: 'attested',
        onchainOrderId: orderId,
        remoteChainId: Number(remoteChainId),
        application,
        remoteOracle,
        dataHash,
      };
    }
  } catch {
    return undefined;
  }
  return undefined;
}

interface FactRow {
  chain_id: number;
  tx_hash: string;
  log_index: number;
  block_number: number;
  address: string;
  kind: ChainFactKind;
  onchain_order_id: string;
  data: string;
}

const BIGINT_TAG = 'bigint:';

/** A fact's stored payload (everything beside its key columns), as `processed_logs.data` holds it. */
function encodeData(fact: ChainFact): string {
  const { chainId, txHash, logIndex, blockNumber, address, kind, onchainOrderId, ...data } = fact;
  return JSON.stringify(data, (_k, v: unknown) => (typeof v === 'bigint' ? `${BIGINT_TAG}${v}` : v));
}

/**
 * Whether two facts of the same log say the same: a transaction mined again by a reorg keeps its hash and log index
 * but may land in another block with other data (a fill records its block's time, which its attestation proves).
 */
export function sameFact(a: ChainFact, b: ChainFact): boolean {
  return a.blockNumber === b.blockNumber && a.kind === b.kind && encodeData(a) === encodeData(b);
}

export class ChainFactRepository {
  private readonly statements: Statements;

  constructor(readonly store: Store) {
    this.statements = new Statements(store);
  }

  private sql(text: string) {
    return this.statements.get(text);
  }

  /** Records a fact; false when this log was processed before (the caller then does nothing). */
  insert(fact: ChainFact, at: number): boolean {
    const { chainId, txHash, logIndex, blockNumber, address, kind, onchainOrderId } = fact;
    const encoded = encodeData(fact);
    const result = this.sql(
      `INSERT INTO processed_logs (chain_id, tx_hash, log_index, block_number, address, kind, onchain_order_id, data, processed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    ).run(chainId, txHash, logIndex, blockNumber, address, kind, onchainOrderId.toLowerCase(), encoded, at);
    return result.changes > 0;
  }

  /** Whether this log was processed already (a cheap look before opening a transaction). */
  has(fact: Pick<ChainFact, 'chainId' | 'txHash' | 'logIndex'>): boolean {
    return (
      this.sql('SELECT 1 FROM processed_logs WHERE chain_id = ? AND tx_hash = ? AND log_index = ?').get(
        fact.chainId,
        fact.txHash,
        fact.logIndex,
      ) !== undefined
    );
  }

  /** Every fact about one on-chain order id, in chain order per chain. */
  forOrder(onchainOrderId: Hex): ChainFact[] {
    const rows = this.sql('SELECT * FROM processed_logs WHERE onchain_order_id = ? ORDER BY chain_id, block_number, log_index').all(
      onchainOrderId.toLowerCase(),
    ) as FactRow[];
    return rows.map(factFrom);
  }

  /** The facts of one chain recorded from blocks after `block` (what a reorg from there may have taken away). */
  after(chainId: number, block: number): ChainFact[] {
    const rows = this.sql('SELECT * FROM processed_logs WHERE chain_id = ? AND block_number > ? ORDER BY block_number, log_index').all(
      chainId,
      block,
    ) as FactRow[];
    return rows.map(factFrom);
  }

  /** Forgets facts whose logs the chain no longer has (a reorg); their logs are processed again if they come back. */
  remove(facts: readonly Pick<ChainFact, 'chainId' | 'txHash' | 'logIndex'>[]): void {
    const remove = this.sql('DELETE FROM processed_logs WHERE chain_id = ? AND tx_hash = ? AND log_index = ?');
    for (const fact of facts) remove.run(fact.chainId, fact.txHash, fact.logIndex);
  }
}

/**
 * Facts read back, by everything their row holds. A row's fact never changes (a reorg removes the row; a fact mined
 * again is another row), and an order's facts are read again at every step of its lifecycle: parsing their JSON with
 * the bigint reviver each time cost the service's thread about 0.5 ms per settled order. A pure function's cache,
 * so a transaction rolled back cannot leave anything stale in it. The facts are frozen because readers share them.
 */
const FACT_CACHE_SIZE = 4_096;
const factCache = new Map<string, ChainFact>();

function factFrom(row: FactRow): ChainFact {
  const key = `${row.chain_id}|${row.tx_hash}|${row.log_index}|${row.block_number}|${row.address}|${row.kind}|${row.onchain_order_id}|${row.data}`;
  const cached = factCache.get(key);
  if (cached !== undefined) return cached;
  const fact = deepFreeze(parseFact(row));
  // Bounded: cleared when full, as a settled order's facts are not read again.
  if (factCache.size >= FACT_CACHE_SIZE) factCache.clear();
  factCache.set(key, fact);
  return fact;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

function parseFact(row: FactRow): ChainFact {
  const data = JSON.parse(row.data, (_k, v: unknown) =>
    typeof v === 'string' && v.startsWith(BIGINT_TAG) ? BigInt(v.slice(BIGINT_TAG.length)) : v,
  ) as Record<string, unknown>;
  return {
    ...data,
    chainId: row.chain_id,
    txHash: row.tx_hash as Hex,
    logIndex: row.log_index,
    blockNumber: row.block_number,
    address: row.address as Address,
    kind: row.kind,
    onchainOrderId: row.onchain_order_id as Hex,
  } as ChainFact;
}

export class ChainCursorRepository {
  private readonly statements: Statements;

  constructor(readonly store: Store) {
    this.statements = new Statements(store);
  }

  private sql(text: string) {
    return this.statements.get(text);
  }

  /** First block not processed yet; undefined for a chain never read. */
  get(chainId: number): number | undefined {
    const row = this.sql('SELECT next_block FROM chain_cursors WHERE chain_id = ?').get(chainId) as { next_block: number } | undefined;
    return row?.next_block;
  }

  /** Moves the cursor back to `nextBlock` (a reorg replaced the blocks from there): they are read again. */
  rewind(chainId: number, nextBlock: number, at: number): void {
    this.sql('UPDATE chain_cursors SET next_block = ?, updated_at = ? WHERE chain_id = ? AND next_block > ?').run(
      nextBlock,
      at,
      chainId,
      nextBlock,
    );
  }

  set(chainId: number, nextBlock: number, at: number): void {
    this.sql(
      `INSERT INTO chain_cursors (chain_id, next_block, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (chain_id) DO UPDATE SET next_block = MAX(chain_cursors.next_block, excluded.next_block), updated_at = excluded.updated_at`,
    ).run(chainId, nextBlock, at);
  }
}
