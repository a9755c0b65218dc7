import type { Address, Hex } from 'viem';
import type { Store } from '../store/store.js';
import { Statements } from './statements.js';

/**
 * What the engine sends: the taker's deposit (`open`), the two legs of the oracle relay, and keeper refunds.
 * `(kind, key)` is unique, so an intent is recorded once, and a transaction is sent at most once per intent.
 */
/** `vault.*`: the deferred rail's DeferredVault calls (owned by the deferred module, not by orders). */
export type RelayKind =
  | 'open'
  | 'oracle.submit'
  | 'oracle.receive'
  | 'refund'
  | 'vault.deposit'
  | 'vault.withdraw'
  | 'vault.hold'
  | 'vault.release'
  | 'vault.payout';

/**
 * `queued`: recorded, not signed yet. `sent`: signed with a nonce and recorded before broadcasting; the outcome is
 * unknown until a receipt is seen. `dropped`: its nonce went to another transaction; it never landed.
 */
export type RelayStatus = 'queued' | 'sent' | 'mined' | 'reverted' | 'dropped';

export interface RelayRequest {
  kind: RelayKind;
  key: string;
  orderId?: string;
  chainId: number;
  account: Address;
  to: Address;
  data: Hex;
  gas: bigint;
}

export interface SignedRelay {
  nonce: number;
  rawTx: Hex;
  txHash: Hex;
}

export interface RelayRecord extends RelayRequest {
  id: number;
  status: RelayStatus;
  nonce: number | null;
  rawTx: Hex | null;
  txHash: Hex | null;
  blockNumber: number | null;
  error: string | null;
  createdAt: number;
  updatedAt: number;
}

interface RelayRow {
  id: number;
  kind: RelayKind;
  key: string;
  order_id: string | null;
  chain_id: number;
  account: string;
  to_address: string;
  data: string;
  gas: string;
  status: RelayStatus;
  nonce: number | null;
  raw_tx: string | null;
  tx_hash: string | null;
  block_number: number | null;
  error: string | null;
  created_at: number;
  updated_at: number;
}

function fromRow(row: RelayRow): RelayRecord {
  return {
    id: row.id,
    kind: row.kind,
    key: row.key,
    ...(row.order_id === null ? {} : { orderId: row.order_id }),
    chainId: row.chain_id,
    account: row.account as Address,
    to: row.to_address as Address,
    data: row.data as Hex,
    gas: BigInt(row.gas),
    status: row.status,
    nonce: row.nonce,
    rawTx: row.raw_tx as Hex | null,
    txHash: row.tx_hash as Hex | null,
    blockNumber: row.block_number,
    error: row.error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export class RelayRepository {
  private readonly statements: Statements;

  constructor(readonly store: Store) {
    this.statements = new Statements(store);
  }

  private sql(text: string) {
    return this.statements.get(text);
  }

  /**
   * Records an intent unless one with the same (kind, key) exists; returns the row and whether it is new. Call
   * inside the transaction of the state change that calls for it.
   */
  enqueue(request: RelayRequest, at: number, signed?: SignedRelay): { relay: RelayRecord; created: boolean } {
    const result = this.sql(
      `INSERT INTO relays (kind, key, order_id, chain_id, account, to_address, data, gas, status, nonce, raw_tx, tx_hash, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (kind, key) DO NOTHING`,
    ).run(
      request.kind,
      request.key,
      request.orderId ?? null,
      request.chainId,
      request.account,
      request.to,
      request.data,
      request.gas.toString(),
      signed === undefined ? 'queued' : 'sent',
      signed?.nonce ?? null,
      signed?.rawTx ?? null,
      signed?.txHash ?? null,
      at,
      at,
    );
    return { relay: this.byKey(request.kind, request.key)!, created: result.changes > 0 };
  }

  byKey(kind: RelayKind, key: string): RelayRecord | undefined {
    const row = this.sql('SELECT * FROM relays WHERE kind = ? AND key = ?').get(kind, key) as RelayRow | undefined;
    return row ? fromRow(row) : undefined;
  }

  get(id: number): RelayRecord | undefined {
    const row = this.sql('SELECT * FROM relays WHERE id = ?').get(id) as RelayRow | undefined;
    return row ? fromRow(row) : undefined;
  }

  forOrder(orderId: string): RelayRecord[] {
    return (this.sql('SELECT * FROM relays WHERE order_id = ? ORDER BY id').all(orderId) as RelayRow[]).map(fromRow);
  }

  countForOrder(orderId: string, kind: RelayKind): number {
    return (this.sql('SELECT COUNT(*) AS n FROM relays WHERE order_id = ? AND kind = ?').get(orderId, kind) as { n: number }).n;
  }

  /** Intents of one sender waiting to be signed, oldest first. */
  queued(chainId: number, account: Address): RelayRecord[] {
    return (
      this.sql("SELECT * FROM relays WHERE chain_id = ? AND account = ? AND status = 'queued' ORDER BY id").all(
        chainId,
        account,
      ) as RelayRow[]
    ).map(fromRow);
  }

  /** Signed transactions of one sender whose outcome is not known yet, in nonce order. */
  unsettled(chainId: number, account: Address): RelayRecord[] {
    return (
      this.sql("SELECT * FROM relays WHERE chain_id = ? AND account = ? AND status = 'sent' ORDER BY nonce, id").all(
        chainId,
        account,
      ) as RelayRow[]
    ).map(fromRow);
  }

  markSent(id: number, signed: SignedRelay, at: number): void {
    this.sql("UPDATE relays SET status = 'sent', nonce = ?, raw_tx = ?, tx_hash = ?, updated_at = ? WHERE id = ?").run(
      signed.nonce,
      signed.rawTx,
      signed.txHash,
      at,
      id,
    );
  }

  /**
   * A broadcast of a recorded transaction failed without a decision (the chain did not answer): noted on the relay
   * while it stays `sent` and is retried. An instance waiting for this relay's outcome answers "not decided" then,
   * as the sending instance itself does.
   */
  markUndecided(id: number, error: string, at: number): void {
    this.sql("UPDATE relays SET error = ?, updated_at = ? WHERE id = ? AND status = 'sent'").run(error, at, id);
  }

  /**
   * New calldata for a relay not sent yet (an oracle leg whose fill a reorg moved: its proof must name the fill the
   * chain has now). A relay already sent keeps what it sent.
   */
  replaceData(id: number, data: Hex, at: number): boolean {
    return this.sql("UPDATE relays SET data = ?, updated_at = ? WHERE id = ? AND status = 'queued'").run(data, at, id).changes > 0;
  }

  /** The outcome; `signed` records the transaction of an intent that was not recorded before it was sent. */
  markOutcome(
    id: number,
    status: Exclude<RelayStatus, 'queued' | 'sent'>,
    at: number,
    details: { blockNumber?: number; error?: string; signed?: SignedRelay } = {},
  ): void {
    if (details.signed !== undefined) {
      this.sql(
        'UPDATE relays SET status = ?, block_number = ?, error = ?, nonce = ?, raw_tx = ?, tx_hash = ?, updated_at = ? WHERE id = ?',
      ).run(
        status,
        details.blockNumber ?? null,
        details.error ?? null,
        details.signed.nonce,
        details.signed.rawTx,
        details.signed.txHash,
        at,
        id,
      );
      return;
    }
    this.sql('UPDATE relays SET status = ?, block_number = ?, error = ?, updated_at = ? WHERE id = ?').run(
      status,
      details.blockNumber ?? null,
      details.error ?? null,
      at,
      id,
    );
  }
}
