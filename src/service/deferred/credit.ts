import { type Address, type Hex, getAddress } from 'viem';
import type { Clock } from '../../clock/index.js';
import { isoTime } from '../api/wire.js';
import type { AuthContext } from '../api/auth-context.js';
import { ConflictError, InvalidRequestError, MaintenanceError, NotFoundError, ValidationError } from '../errors/api-errors.js';
import type { OutboxRepository } from '../events/outbox.js';
import type { LedgerRepository } from '../ledger/repository.js';
import type { SettlementChain } from '../settlement/chains.js';
import type { SettlementEngine } from '../settlement/engine.js';
import type { RelayRecord } from '../settlement/relay-repository.js';
import type { AfterCommit, RelayOutcome } from '../settlement/relayer.js';
import { revertReason } from '../settlement/revert-reason.js';
import { newId } from '../store/ids.js';
import type { Store } from '../store/store.js';
import { type SignedDeposit, depositCalldata, vaultAbi, vaultAccount, withdrawCalldata } from '../../contracts/deferred-vault.js';

const VAULT_GAS = 400_000n;
/** How long a request waits for its vault transaction before answering 202 with the record as it stands. */
const ANSWER_WAIT_MS = 20_000;

export type CreditReason = 'deposit' | 'withdrawal' | 'hold' | 'release' | 'payout';

export interface DepositRecord {
  id: string;
  workspaceId: string;
  chainId: number;
  token: Address;
  amount: string;
  owner: Address;
  status: 'sending' | 'credited' | 'failed';
  txHash: Hex | null;
  error: string | null;
  createdAt: number;
}

export interface WithdrawalRecord {
  id: string;
  workspaceId: string;
  chainId: number;
  token: Address;
  amount: string;
  recipient: Address;
  status: 'pending_approval' | 'sending' | 'paid' | 'failed' | 'rejected';
  approvalId: string | null;
  txHash: Hex | null;
  error: string | null;
  requestedBy: string;
  createdAt: number;
  updatedAt: number;
}

export interface ApprovalRecord {
  id: string;
  workspaceId: string;
  kind: 'withdrawal' | 'deferred_confirmation';
  subjectId: string;
  status: 'pending' | 'approved' | 'rejected';
  summary: string;
  createdAt: number;
  decidedAt: number | null;
  decidedBy: string | null;
}

export interface DeferredCreditDeps {
  store: Store;
  clock: Clock;
  outbox: OutboxRepository;
  ledger: LedgerRepository;
  engine: () => SettlementEngine | undefined;
  /** Withdrawals above this amount (token units) wait for an admin's approval. */
  approvalThreshold: bigint;
}

/** Decides what an approved or rejected deferred confirmation does (inside the decision's transaction). */
export type ConfirmationHandler = (
  auth: AuthContext,
  approval: ApprovalRecord,
  decision: 'approved' | 'rejected',
) => AfterCommit | undefined;

const row = <T>(value: unknown) => value as T | undefined;

function depositFrom(r: Record<string, unknown>): DepositRecord {
  return {
    id: r.id as string,
    workspaceId: r.workspace_id as string,
    chainId: r.chain_id as number,
    token: r.token as Address,
    amount: r.amount as string,
    owner: r.owner as Address,
    status: r.status as DepositRecord['status'],
    txHash: (r.tx_hash as Hex | null) ?? null,
    error: (r.error as string | null) ?? null,
    createdAt: r.created_at as number,
  };
}

function withdrawalFrom(r: Record<string, unknown>): WithdrawalRecord {
  return {
    id: r.id as string,
    workspaceId: r.workspace_id as string,
    chainId: r.chain_id as number,
    token: r.token as Address,
    amount: r.amount as string,
    recipient: r.recipient as Address,
    status: r.status as WithdrawalRecord['status'],
    approvalId: (r.approval_id as string | null) ?? null,
    txHash: (r.tx_hash as Hex | null) ?? null,
    error: (r.error as string | null) ?? null,
    requestedBy: r.requested_by as string,
    createdAt: r.created_at as number,
    updatedAt: r.updated_at as number,
  };
}

export function approvalFrom(r: Record<string, unknown>): ApprovalRecord {
  return {
    id: r.id as string,
    workspaceId: r.workspace_id as string,
    kind: r.kind as ApprovalRecord['kind'],
    subjectId: r.subject_id as string,
    status: r.status as ApprovalRecord['status'],
    summary: r.summary as string,
    createdAt: r.created_at as number,
    decidedAt: (r.decided_at as number | null) ?? null,
    decidedBy: (r.decided_by as string | null) ?? null,
  };
}

export const depositView = (d: DepositRecord) => ({
  object: 'deferred_deposit' as const,
  id: d.id,
  chainId: d.chainId,
  token: d.token,
  amount: d.amount,
  owner: d.owner,
  status: d.status,
  txHash: d.txHash,
  error: d.error,
  createdAt: isoTime(d.createdAt),
});

export const withdrawalView = (w: WithdrawalRecord) => ({
  object: 'deferred_withdrawal' as const,
  id: w.id,
  chainId: w.chainId,
  token: w.token,
  amount: w.amount,
  to: w.recipient,
  status: w.status,
  approvalId: w.approvalId,
  txHash: w.txHash,
  error: w.error,
  createdAt: isoTime(w.createdAt),
  updatedAt: isoTime(w.updatedAt),
});

function actorOf(auth: AuthContext): string {
  return auth.kind === 'jwt' ? auth.userId : auth.keyId;
}

/**
 * A workspace's prefunded credit in `DeferredVault`: deposits relayed from the owner's Permit2 signature,
 * withdrawals (above the threshold only once an admin approves), the service's mirror of the vault's books, and
 * `credit.updated` with before/after and the reason on every change. The vault is the truth; the mirror moves in
 * the transaction that records each vault call's outcome, so it never runs ahead of the chain.
 */
export class DeferredCredit {
  private confirmations: ConfirmationHandler | undefined;

  constructor(private readonly deps: DeferredCreditDeps) {}

  onConfirmation(handler: ConfirmationHandler): void {
    this.confirmations = handler;
  }

  /** The chain's vault, or 503 `deferred_unavailable` naming `chainId`. */
  private vault(chainId: number): { chain: SettlementChain; vault: Address; engine: SettlementEngine } {
    const engine = this.deps.engine();
    const chain = engine?.chain(chainId);
    const vault = chain?.info.contracts.DeferredVault;
    if (engine === undefined || chain === undefined || vault === undefined) {
      if (engine !== undefined && chain === undefined)
        throw new InvalidRequestError({ code: 'parameter_invalid', param: 'chainId', message: `No chain ${chainId} is settled here.` });
      throw new MaintenanceError({
        code: 'deferred_unavailable',
        param: 'chainId',
        message: `The deferred rail is not available on chain ${chainId} (no DeferredVault or no relayer keys).`,
      });
    }
    return { chain, vault: getAddress(vault), engine };
  }

  private token(chain: SettlementChain, token: string): Address {
    const known = chain.info.tokens.find((t) => t.address.toLowerCase() === token.toLowerCase());
    if (known === undefined)
      throw new InvalidRequestError({
        code: 'parameter_invalid',
        param: 'token',
        message: `${token} is not a token of chain ${chain.chainId}.`,
      });
    return getAddress(known.address);
  }

  // ---- deposits -----------------------------------------------------------------------------------------

  async deposit(workspaceId: string, input: { chainId: number } & SignedDeposit): Promise<{ record: DepositRecord; settled: boolean }> {
    const { chain, vault, engine } = this.vault(input.chainId);
    const token = this.token(chain, input.token);
    const data = depositCalldata(vaultAccount(workspaceId), { ...input, token });
    await this.simulate(chain, engine, vault, data, (reason) => {
      const param =
        reason.name === 'InvalidSigner' || reason.name === 'InvalidSignature' || reason.name === 'InvalidSignatureLength'
          ? 'signature'
          : reason.name === 'InvalidNonce'
            ? 'nonce'
            : reason.name === 'SignatureExpired'
              ? 'deadline'
              : 'amount';
      return new ValidationError({
        code: 'deposit_failed',
        param,
        message: `The deposit would revert (${reason.message}); nothing was sent.`,
      });
    });
    const id = newId('dep');
    const now = this.deps.clock.now();
    const send = this.deps.outbox.commit(() => {
      this.deps.store.db
        .prepare(
          `INSERT INTO deferred_deposits (id, workspace_id, chain_id, token, amount, owner, status, created_at)
           VALUES (?, ?, ?, ?, ?, ?, 'sending', ?)`,
        )
        .run(id, workspaceId, input.chainId, token, input.amount.toString(), getAddress(input.owner), now);
      return engine.enqueue({ kind: 'vault.deposit', key: id, chainId: input.chainId, to: vault, data, gas: VAULT_GAS }, 'service').send;
    });
    await send();
    const record = await this.waitFor(
      () => this.depositRecord(workspaceId, id),
      (d) => d.status !== 'sending',
    );
    return { record, settled: record.status !== 'sending' };
  }

  depositRecord(workspaceId: string, id: string): DepositRecord {
    const found = row<Record<string, unknown>>(
      this.deps.store.db.prepare('SELECT * FROM deferred_deposits WHERE id = ? AND workspace_id = ?').get(id, workspaceId),
    );
    if (found === undefined) throw new NotFoundError({ code: 'resource_not_found', param: 'depositId', message: `No deposit ${id}.` });
    return depositFrom(found);
  }

  // ---- withdrawals --------------------------------------------------------------------------------------

  async requestWithdrawal(
    auth: AuthContext,
    input: { chainId: number; token: string; amount: bigint; to: Address },
  ): Promise<{ record: WithdrawalRecord; settled: boolean }> {
    const { chain, vault } = this.vault(input.chainId);
    const token = this.token(chain, input.token);
    // The vault's figure, not the mirror's: credit can also arrive by a deposit someone relayed to the vault directly.
    const available = (await chain.client.readContract({
      address: vault,
      abi: vaultAbi,
      functionName: 'credit',
      args: [vaultAccount(auth.workspaceId), token],
    })) as bigint;
    if (input.amount > available) {
      throw new ValidationError({
        code: 'insufficient_credit',
        param: 'amount',
        message: `The workspace has ${available} available on chain ${input.chainId} for ${token}; ${input.amount} was asked for.`,
      });
    }
    const id = newId('wdr');
    const now = this.deps.clock.now();
    const needsApproval = input.amount > this.deps.approvalThreshold;
    const send = this.deps.outbox.commit(() => {
      const approvalId = needsApproval ? newId('apr') : null;
      this.deps.store.db
        .prepare(
          `INSERT INTO deferred_withdrawals (id, workspace_id, chain_id, token, amount, recipient, status, approval_id, requested_by, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          id,
          auth.workspaceId,
          input.chainId,
          token,
          input.amount.toString(),
          getAddress(input.to),
          needsApproval ? 'pending_approval' : 'sending',
          approvalId,
          actorOf(auth),
          now,
          now,
        );
      this.deps.ledger.append({
        type: 'deferred.withdrawal_requested',
        tradeId: id,
        recordedAt: new Date(now).toISOString(),
        payload: {
          workspaceId: auth.workspaceId,
          chainId: input.chainId,
          token,
          amount: input.amount.toString(),
          to: getAddress(input.to),
          actor: actorOf(auth),
          approval: needsApproval ? 'required' : 'not required',
        },
      });
      if (approvalId !== null) {
        this.deps.store.db
          .prepare(
            `INSERT INTO admin_approvals (id, workspace_id, kind, subject_id, status, summary, created_at)
             VALUES (?, ?, 'withdrawal', ?, 'pending', ?, ?)`,
          )
          .run(
            approvalId,
            auth.workspaceId,
            id,
            `withdraw ${input.amount} of ${token} on chain ${input.chainId} to ${getAddress(input.to)} (above ${this.deps.approvalThreshold})`,
            now,
          );
        return undefined;
      }
      return this.enqueueWithdrawal(auth.workspaceId, id);
    });
    if (send === undefined) return { record: this.withdrawalRecord(auth.workspaceId, id), settled: true };
    await send();
    const record = await this.waitFor(
      () => this.withdrawalRecord(auth.workspaceId, id),
      (w) => w.status !== 'sending',
    );
    return { record, settled: record.status !== 'sending' };
  }

  /** Records the vault call of a withdrawal (inside the caller's transaction); returns what sends it. */
  private enqueueWithdrawal(workspaceId: string, id: string): AfterCommit {
    const w = this.withdrawalRecord(workspaceId, id);
    const { vault, engine } = this.vault(w.chainId);
    const data = withdrawCalldata(vaultAccount(workspaceId), w.token, BigInt(w.amount), w.recipient);
    return engine.enqueue({ kind: 'vault.withdraw', key: id, chainId: w.chainId, to: vault, data, gas: VAULT_GAS }, 'service').send;
  }

  withdrawalRecord(workspaceId: string, id: string): WithdrawalRecord {
    const found = row<Record<string, unknown>>(
      this.deps.store.db.prepare('SELECT * FROM deferred_withdrawals WHERE id = ? AND workspace_id = ?').get(id, workspaceId),
    );
    if (found === undefined)
      throw new NotFoundError({ code: 'resource_not_found', param: 'withdrawalId', message: `No withdrawal ${id}.` });
    return withdrawalFrom(found);
  }

  // ---- approvals ----------------------------------------------------------------------------------------

  approval(workspaceId: string, id: string): ApprovalRecord {
    const found = row<Record<string, unknown>>(
      this.deps.store.db.prepare('SELECT * FROM admin_approvals WHERE id = ? AND workspace_id = ?').get(id, workspaceId),
    );
    if (found === undefined) throw new NotFoundError({ code: 'resource_not_found', param: 'approvalId', message: `No approval ${id}.` });
    return approvalFrom(found);
  }

  /** An admin approves or rejects a waiting item; approving a withdrawal sends it. Every decision is evidence. */
  async decide(auth: AuthContext, id: string, decision: 'approved' | 'rejected'): Promise<ApprovalRecord> {
    const now = this.deps.clock.now();
    const send = this.deps.outbox.commit(() => {
      const approval = this.approval(auth.workspaceId, id);
      if (approval.status !== 'pending') {
        throw new ConflictError({
          code: 'approval_decided',
          param: 'approvalId',
          message: `Approval ${id} was already ${approval.status}.`,
        });
      }
      this.deps.store.db
        .prepare('UPDATE admin_approvals SET status = ?, decided_at = ?, decided_by = ? WHERE id = ?')
        .run(decision, now, actorOf(auth), id);
      this.deps.ledger.append({
        type: `admin.approval_${decision}`,
        tradeId: approval.subjectId,
        recordedAt: new Date(now).toISOString(),
        payload: { workspaceId: auth.workspaceId, approvalId: id, kind: approval.kind, actor: actorOf(auth) },
      });
      if (approval.kind === 'deferred_confirmation') return this.confirmations?.(auth, approval, decision);
      this.deps.store.db
        .prepare('UPDATE deferred_withdrawals SET status = ?, updated_at = ? WHERE id = ?')
        .run(decision === 'approved' ? 'sending' : 'rejected', now, approval.subjectId);
      return decision === 'approved' ? this.enqueueWithdrawal(auth.workspaceId, approval.subjectId) : undefined;
    });
    if (send !== undefined) await send();
    return this.approval(auth.workspaceId, id);
  }

  // ---- books --------------------------------------------------------------------------------------------

  book(workspaceId: string, chainId: number, token: Address): { available: string; held: string } {
    const found = row<{ available: string; held: string }>(
      this.deps.store.db
        .prepare('SELECT available, held FROM deferred_credit WHERE workspace_id = ? AND chain_id = ? AND token = ?')
        .get(workspaceId, chainId, token),
    );
    return found ?? { available: '0', held: '0' };
  }

  /** Per chain and token: what the vault says (available) and holds, read from the chain now. */
  async balance(workspaceId: string): Promise<Array<{ chainId: number; token: Address; symbol: string; available: string; held: string }>> {
    const engine = this.deps.engine();
    if (engine === undefined)
      throw new MaintenanceError({ code: 'deferred_unavailable', message: 'The service runs without relayer keys.' });
    const account = vaultAccount(workspaceId);
    const rows: Array<{ chainId: number; token: Address; symbol: string; available: string; held: string }> = [];
    for (const chain of engine.chains) {
      const vault = chain.info.contracts.DeferredVault;
      if (vault === undefined) continue;
      for (const token of chain.info.tokens) {
        const available = (await chain.client.readContract({
          address: getAddress(vault),
          abi: vaultAbi,
          functionName: 'credit',
          args: [account, getAddress(token.address)],
        })) as bigint;
        rows.push({
          chainId: chain.chainId,
          token: getAddress(token.address),
          symbol: token.symbol,
          available: available.toString(),
          held: this.book(workspaceId, chain.chainId, getAddress(token.address)).held,
        });
      }
    }
    return rows;
  }

  /** Moves the mirror and publishes `credit.updated` (inside the transaction that records the vault call). */
  move(
    workspaceId: string,
    chainId: number,
    token: Address,
    delta: { available: bigint; held: bigint },
    reason: CreditReason,
    subjectId: string,
    txHash: Hex | null,
  ): void {
    const now = this.deps.clock.now();
    const before = this.book(workspaceId, chainId, token);
    const after = {
      available: (BigInt(before.available) + delta.available).toString(),
      held: (BigInt(before.held) + delta.held).toString(),
    };
    this.deps.store.db
      .prepare(
        `INSERT INTO deferred_credit (workspace_id, chain_id, token, available, held, updated_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (workspace_id, chain_id, token) DO UPDATE SET available = excluded.available, held = excluded.held, updated_at = excluded.updated_at`,
      )
      .run(workspaceId, chainId, token, after.available, after.held, now);
    this.deps.ledger.append({
      type: 'deferred.credit_updated',
      tradeId: subjectId,
      recordedAt: new Date(now).toISOString(),
      payload: { workspaceId, chainId, token, before: { ...before }, after: { ...after }, reason, txHash },
    });
    this.deps.outbox.append({
      workspaceId,
      type: 'credit.updated',
      generation: 'A',
      data: { credit: { chainId, token, before: { available: before.available, held: before.held }, after, reason, subjectId, txHash } },
      at: now,
    });
  }

  /** The settlement engine's outcome of a `vault.*` relay, in the transaction that records it. */
  onRelayOutcome(relay: RelayRecord, outcome: RelayOutcome): AfterCommit[] {
    const db = this.deps.store.db;
    if (relay.kind === 'vault.deposit') {
      const found = row<Record<string, unknown>>(db.prepare('SELECT * FROM deferred_deposits WHERE id = ?').get(relay.key));
      if (found === undefined || found.status !== 'sending') return [];
      const deposit = depositFrom(found);
      if (outcome.status === 'mined') {
        db.prepare(`UPDATE deferred_deposits SET status = 'credited', tx_hash = ? WHERE id = ?`).run(relay.txHash, deposit.id);
        this.move(
          deposit.workspaceId,
          deposit.chainId,
          deposit.token,
          { available: BigInt(deposit.amount), held: 0n },
          'deposit',
          deposit.id,
          relay.txHash,
        );
      } else {
        db.prepare(`UPDATE deferred_deposits SET status = 'failed', tx_hash = ?, error = ? WHERE id = ?`).run(
          relay.txHash,
          `deposit ${outcome.status}${outcome.error ? `: ${outcome.error}` : ''}`,
          deposit.id,
        );
      }
    }
    if (relay.kind === 'vault.withdraw') {
      const found = row<Record<string, unknown>>(db.prepare('SELECT * FROM deferred_withdrawals WHERE id = ?').get(relay.key));
      if (found === undefined || found.status !== 'sending') return [];
      const w = withdrawalFrom(found);
      const now = this.deps.clock.now();
      if (outcome.status === 'mined') {
        db.prepare(`UPDATE deferred_withdrawals SET status = 'paid', tx_hash = ?, updated_at = ? WHERE id = ?`).run(
          relay.txHash,
          now,
          w.id,
        );
        this.move(w.workspaceId, w.chainId, w.token, { available: -BigInt(w.amount), held: 0n }, 'withdrawal', w.id, relay.txHash);
      } else {
        db.prepare(`UPDATE deferred_withdrawals SET status = 'failed', tx_hash = ?, error = ?, updated_at = ? WHERE id = ?`).run(
          relay.txHash,
          `withdrawal ${outcome.status}${outcome.error ? `: ${outcome.error}` : ''}`,
          now,
          w.id,
        );
      }
    }
    return [];
  }

  private async simulate(
    chain: SettlementChain,
    engine: SettlementEngine,
    to: Address,
    data: Hex,
    refusal: (reason: { name: string | undefined; message: string }) => Error,
  ): Promise<void> {
    try {
      await chain.client.estimateGas({ account: engine.account('service'), to, data });
    } catch (error) {
      const reason = revertReason(error, vaultAbi);
      if (reason.name === undefined && /fetch failed|ECONNREFUSED|timed? ?out|HTTP request failed/i.test(reason.message)) {
        throw new MaintenanceError({ code: 'chain_unavailable', message: `Chain ${chain.chainId} does not answer: ${reason.message}` });
      }
      throw refusal(reason);
    }
  }

  /** Re-reads `read` (wall time: the chain answers in real time) until `done` or the answer window closes. */
  private async waitFor<T>(read: () => T, done: (value: T) => boolean): Promise<T> {
    const deadline = Date.now() + ANSWER_WAIT_MS;
    let value = read();
    while (!done(value) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      value = read();
    }
    return value;
  }
}
