import type { Address, Hex } from 'viem';
import type { LockType, StandardOrder } from '../../contracts/order.js';
import type { SettlementPath } from '../auction/types.js';
import type { Store } from '../store/store.js';
import { Statements } from '../settlement/statements.js';
import { keysetPage, type Page, type PageRequest } from '../store/pagination.js';
import { standardOrderFromJson, standardOrderToJson, type StandardOrderJson } from './order-json.js';
import type { OrderStatus } from '../../contracts/wire/enums.js';

/** The API's order status. */
export type { OrderStatus } from '../../contracts/wire/enums.js';
/** `Opening`: recorded, deposit relayed but not seen yet; `Rejected`: the deposit reverted. Neither is visible. */
export type StoredStatus = OrderStatus | 'Opening' | 'Rejected';
export type Stage = 'deposited' | 'filled' | 'attested' | 'claimed' | 'refunded' | 'reorged' | FaultStage;

/** Stages the sandbox's fault switches add to an order's timeline (src/service/faults). */
export type FaultStage =
  | 'fault.held'
  | 'fault.delayed'
  | 'fault.dropped'
  | 'fault.released'
  | 'fault.solver'
  | 'fault.reorg'
  | 'fault.oracle';

export const TERMINAL: ReadonlySet<StoredStatus> = new Set(['Claimed', 'Refunded', 'Rejected']);

/** Screening results kept with the order until its creation is recorded in the ledger. */
export interface ScreeningSummary {
  attestation: Hex | null;
  checks: { checkType: string; result: string; reason: string }[];
}

export interface OrderRecord {
  id: string;
  workspaceId: string | null;
  quoteId: string;
  rfqId: string;
  solverId: string;
  user: Address;
  nonce: bigint;
  lockType: LockType;
  settlementPath: SettlementPath;
  corridor: string;
  originChainId: number;
  destinationChainId: number;
  inputToken: Address;
  outputToken: Address;
  inputAmount: string;
  outputAmount: string;
  /** Unix seconds. */
  fillDeadline: number;
  expires: number;
  onchainOrderId: Hex;
  standardOrder: StandardOrder;
  signature: Hex;
  status: StoredStatus;
  screening: ScreeningSummary;
  originTxHash: Hex | null;
  destinationTxHash: Hex | null;
  oracleAttestationHash: Hex | null;
  claimTxHash: Hex | null;
  refundTxHash: Hex | null;
  rejectReason: string | null;
  /** Clock milliseconds. */
  quoteCreatedAt: number;
  createdAt: number;
  updatedAt: number;
  settledAt: number | null;
}

export interface StageRecord {
  stage: Stage;
  at: number;
  txHash: Hex | null;
  oracleHash: Hex | null;
  chainId: number | null;
  ledgerSequence: number;
}

interface OrderRow {
  id: string;
  workspace_id: string | null;
  quote_id: string;
  rfq_id: string;
  solver_id: string;
  user_address: string;
  nonce: string;
  lock_type: LockType;
  settlement_path: SettlementPath;
  corridor: string;
  origin_chain_id: number;
  destination_chain_id: number;
  input_token: string;
  output_token: string;
  input_amount: string;
  output_amount: string;
  fill_deadline: number;
  expires: number;
  onchain_order_id: string;
  standard_order: string;
  signature: string;
  status: StoredStatus;
  screening: string;
  origin_tx_hash: string | null;
  destination_tx_hash: string | null;
  oracle_attestation_hash: string | null;
  claim_tx_hash: string | null;
  refund_tx_hash: string | null;
  reject_reason: string | null;
  quote_created_at: number;
  created_at: number;
  updated_at: number;
  settled_at: number | null;
}

function fromRow(row: OrderRow): OrderRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    quoteId: row.quote_id,
    rfqId: row.rfq_id,
    solverId: row.solver_id,
    user: row.user_address as Address,
    nonce: BigInt(row.nonce),
    lockType: row.lock_type,
    settlementPath: row.settlement_path,
    corridor: row.corridor,
    originChainId: row.origin_chain_id,
    destinationChainId: row.destination_chain_id,
    inputToken: row.input_token as Address,
    outputToken: row.output_token as Address,
    inputAmount: row.input_amount,
    outputAmount: row.output_amount,
    fillDeadline: row.fill_deadline,
    expires: row.expires,
    onchainOrderId: row.onchain_order_id as Hex,
    standardOrder: standardOrderFromJson(JSON.parse(row.standard_order) as StandardOrderJson),
    signature: row.signature as Hex,
    status: row.status,
    screening: JSON.parse(row.screening) as ScreeningSummary,
    originTxHash: row.origin_tx_hash as Hex | null,
    destinationTxHash: row.destination_tx_hash as Hex | null,
    oracleAttestationHash: row.oracle_attestation_hash as Hex | null,
    claimTxHash: row.claim_tx_hash as Hex | null,
    refundTxHash: row.refund_tx_hash as Hex | null,
    rejectReason: row.reject_reason,
    quoteCreatedAt: row.quote_created_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    settledAt: row.settled_at,
  };
}

/** Nonces are compared as numbers of any size: stored zero-padded, text order is numeric order. */
function nonceKey(nonce: bigint): string {
  return nonce.toString().padStart(78, '0');
}

export type OrderUpdate = Partial<
  Pick<
    OrderRecord,
    | 'status'
    | 'originTxHash'
    | 'destinationTxHash'
    | 'oracleAttestationHash'
    | 'claimTxHash'
    | 'refundTxHash'
    | 'rejectReason'
    | 'settledAt'
  >
>;

const COLUMNS: Record<keyof OrderUpdate, string> = {
  status: 'status',
  originTxHash: 'origin_tx_hash',
  destinationTxHash: 'destination_tx_hash',
  oracleAttestationHash: 'oracle_attestation_hash',
  claimTxHash: 'claim_tx_hash',
  refundTxHash: 'refund_tx_hash',
  rejectReason: 'reject_reason',
  settledAt: 'settled_at',
};

export class OrderRepository {
  private readonly statements: Statements;

  constructor(private readonly store: Store) {
    this.statements = new Statements(store);
  }

  private sql(text: string) {
    return this.statements.get(text);
  }

  insert(order: OrderRecord): void {
    this.sql(
      `INSERT INTO orders (id, workspace_id, quote_id, rfq_id, solver_id, user_address, nonce, lock_type, settlement_path, corridor,
           origin_chain_id, destination_chain_id, input_token, output_token, input_amount, output_amount, fill_deadline, expires,
           onchain_order_id, standard_order, signature, status, screening, origin_tx_hash, quote_created_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      order.id,
      order.workspaceId,
      order.quoteId,
      order.rfqId,
      order.solverId,
      order.user,
      order.nonce.toString(),
      order.lockType,
      order.settlementPath,
      order.corridor,
      order.originChainId,
      order.destinationChainId,
      order.inputToken,
      order.outputToken,
      order.inputAmount,
      order.outputAmount,
      order.fillDeadline,
      order.expires,
      order.onchainOrderId.toLowerCase(),
      JSON.stringify(standardOrderToJson(order.standardOrder)),
      order.signature,
      order.status,
      JSON.stringify(order.screening),
      order.originTxHash,
      order.quoteCreatedAt,
      order.createdAt,
      order.updatedAt,
    );
  }

  update(orderId: string, update: OrderUpdate, at: number): void {
    const entries = Object.entries(update).filter(([, value]) => value !== undefined) as [keyof OrderUpdate, unknown][];
    const sets = entries.map(([key]) => `${COLUMNS[key]} = ?`);
    this.sql(`UPDATE orders SET ${[...sets, 'updated_at = ?'].join(', ')} WHERE id = ?`).run(
      ...entries.map(([, value]) => value),
      at,
      orderId,
    );
  }

  get(orderId: string): OrderRecord | undefined {
    const row = this.sql('SELECT * FROM orders WHERE id = ?').get(orderId) as OrderRow | undefined;
    return row ? fromRow(row) : undefined;
  }

  byOnchainId(onchainOrderId: Hex): OrderRecord | undefined {
    const row = this.sql('SELECT * FROM orders WHERE onchain_order_id = ?').get(onchainOrderId.toLowerCase()) as OrderRow | undefined;
    return row ? fromRow(row) : undefined;
  }

  byQuote(quoteId: string): OrderRecord | undefined {
    const row = this.sql('SELECT * FROM orders WHERE quote_id = ?').get(quoteId) as OrderRow | undefined;
    return row ? fromRow(row) : undefined;
  }

  withStatus(...statuses: StoredStatus[]): OrderRecord[] {
    const marks = statuses.map(() => '?').join(', ');
    return (this.sql(`SELECT * FROM orders WHERE status IN (${marks}) ORDER BY created_at, id`).all(...statuses) as OrderRow[]).map(
      fromRow,
    );
  }

  /** Sum of inputs that open ResourceLock orders of `user` commit from one lock id (not claimed or expired yet). */
  committedLockAmount(user: Address, originChainId: number, inputToken: Address): bigint {
    const rows = this.sql(
      `SELECT input_amount FROM orders WHERE user_address = ? AND origin_chain_id = ? AND input_token = ? AND lock_type = 'ResourceLock'
           AND status IN ('Deposited', 'Filled', 'Attested')`,
    ).all(user, originChainId, inputToken) as { input_amount: string }[];
    return rows.reduce((sum, row) => sum + BigInt(row.input_amount), 0n);
  }

  /** An open ResourceLock order that already uses this allocator nonce (Compact nonces are per allocator, not per user). */
  lockNonceInUse(originChainId: number, nonce: bigint): boolean {
    return (
      this.sql(
        `SELECT 1 FROM orders WHERE origin_chain_id = ? AND lock_type = 'ResourceLock' AND nonce = ? AND status NOT IN ('Rejected', 'Refunded') LIMIT 1`,
      ).get(originChainId, nonce.toString()) !== undefined
    );
  }

  /** Settlements of a workspace, newest first (the API hides orders whose deposit is not on chain). */
  pageForWorkspace(workspaceId: string, request: PageRequest): Page<OrderRecord> {
    const page = keysetPage<OrderRow>(this.store.db, {
      from: 'orders',
      where: "workspace_id = ? AND status NOT IN ('Opening', 'Rejected')",
      params: [workspaceId],
      sortColumn: 'created_at',
      order: 'desc',
      request,
      position: (row) => ({ key: row.created_at, id: row.id }),
    });
    return { ...page, items: page.items.map(fromRow) };
  }

  lastNonce(user: Address): { nonce: bigint; orderId: string } | undefined {
    const row = this.sql('SELECT last_nonce, order_id FROM user_nonces WHERE user_address = ?').get(user) as
      | { last_nonce: string; order_id: string }
      | undefined;
    return row ? { nonce: BigInt(row.last_nonce), orderId: row.order_id } : undefined;
  }

  /** Spends `nonce` for `user`; false when it is not above the last one spent (a replay). */
  spendNonce(user: Address, nonce: bigint, orderId: string): boolean {
    const result = this.sql(
      `INSERT INTO user_nonces (user_address, last_nonce, order_id) VALUES (?, ?, ?)
         ON CONFLICT (user_address) DO UPDATE SET last_nonce = excluded.last_nonce, order_id = excluded.order_id
         WHERE excluded.last_nonce > user_nonces.last_nonce`,
    ).run(user, nonceKey(nonce), orderId);
    return result.changes > 0;
  }

  /** A nonce above every nonce spent by anyone: monotonic for the user, and never an allocator-nonce collision. */
  suggestedNonce(): bigint {
    const row = this.sql('SELECT MAX(last_nonce) AS n FROM user_nonces').get() as { n: string | null };
    return row.n === null ? 1n : BigInt(row.n) + 1n;
  }

  addStage(orderId: string, stage: StageRecord): boolean {
    const result = this.sql(
      'INSERT INTO order_stages (order_id, stage, at, tx_hash, oracle_hash, chain_id, ledger_sequence) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
    ).run(orderId, stage.stage, stage.at, stage.txHash, stage.oracleHash, stage.chainId, stage.ledgerSequence);
    return result.changes > 0;
  }

  stages(orderId: string): StageRecord[] {
    const rows = this.sql('SELECT * FROM order_stages WHERE order_id = ? ORDER BY at, ledger_sequence').all(orderId) as {
      stage: Stage;
      at: number;
      tx_hash: string | null;
      oracle_hash: string | null;
      chain_id: number | null;
      ledger_sequence: number;
    }[];
    return rows.map((row) => ({
      stage: row.stage,
      at: row.at,
      txHash: row.tx_hash as Hex | null,
      oracleHash: row.oracle_hash as Hex | null,
      chainId: row.chain_id,
      ledgerSequence: row.ledger_sequence,
    }));
  }
}
