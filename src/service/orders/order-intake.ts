import { checksummed } from '../api/wire.js';
import type { Logger } from 'pino';
import { type Address, type Hex, getAddress } from 'viem';
import { hashTypedDataCached } from '../../contracts/typed-data-hash.js';
import type { Clock } from '../../clock/index.js';
import { ResourceLockArtifact } from '../../contracts/artifacts/ResourceLock.js';
import type { StandardOrder } from '../../contracts/order.js';
import type { OrderTypedData } from '../../contracts/typed-data.js';
import { lockId } from '../../contracts/typed-data.js';
import type { ChainInfo } from '../../contracts/deployment.js';
import type { QuoteBook, QuoteRecord } from '../auction/types.js';
import type { AuthContext } from '../api/auth-context.js';
import type { ComplianceModule } from '../compliance/module.js';
import type { OutboxRepository } from '../events/outbox.js';
import {
  nothingDone,
  AuthenticationError,
  ComplianceError,
  ConflictError,
  InvalidRequestError,
  MaintenanceError,
  NotFoundError,
  ValidationError,
} from '../errors/api-errors.js';
import type { SettlementChain } from '../settlement/chains.js';
import type { SettlementEngine } from '../settlement/engine.js';
import { revertReason } from '../settlement/revert-reason.js';
import { isChainUnreachable } from '../settlement/rpc-transport.js';
import type { AfterCommit } from '../settlement/relayer.js';
import { openForCalldata } from '../settlement/transactions.js';
import { holdCalldata } from '../../contracts/deferred-vault.js';
import { DeferredVaultArtifact } from '../../contracts/artifacts/DeferredVault.js';
import { newId } from '../store/ids.js';
import type { OrderLifecycle } from './order-lifecycle.js';
import type { OrderRecord, OrderRepository, ScreeningSummary } from './order-repository.js';
import { checkOrderSignature } from './signature-check.js';
import { DepositGasLimits, depositShape } from './deposit-gas.js';
import { type OrderTerms, buildStandardOrder, compactLockTag, onchainOrderId, typedDataFor } from '../../contracts/standard-order.js';

export interface CreateOrderInput {
  quoteId: string;
  signature: Hex;
  nonce: bigint;
  /** The taker; optional when the quote request named it. */
  user?: Address | undefined;
}

export interface IntakeContext {
  auth: AuthContext | undefined;
  /** `X-Service-Attestation` header value. */
  attestation: string | undefined;
}

export interface IntakeDeps {
  orders: OrderRepository;
  lifecycle: OrderLifecycle;
  compliance: ComplianceModule;
  outbox: OutboxRepository;
  chains: readonly ChainInfo[];
  clock: Clock;
  logger: Logger;
  quoteBook(): QuoteBook | undefined;
  engine(): SettlementEngine | undefined;
}

interface Prepared {
  quote: QuoteRecord;
  terms: OrderTerms;
  order: StandardOrder;
  typedData: OrderTypedData;
  onchainId: Hex;
  user: Address;
  origin: SettlementChain;
  screening: ScreeningSummary;
  workspaceId: string | null;
}

/**
 * `POST /api/v1/orders`: checks a signed order against its quote, the user's nonces, the rail's compliance and the
 * chain, then creates it. Rejected orders leave nothing on chain. Escrow orders are recorded (with the signed
 * `openFor`) before the relay is sent, so the deposit is relayed at most once, also across restarts; the answer
 * comes once the deposit is mined. Resource-lock orders send nothing: the taker's deposit is verified.
 */
export class OrderIntake {
  /** Deposits are simulated once each and estimated once per shape (see DepositGasLimits). */
  private readonly depositGas = new DepositGasLimits((estimate) => (estimate * 5n) / 4n + (this.deps.engine()?.gas.openHeadroom ?? 0n));

  constructor(private readonly deps: IntakeDeps) {}

  async create(input: CreateOrderInput, context: IntakeContext): Promise<OrderRecord> {
    const prepared = await this.prepare(input, context);
    if (prepared.quote.settlementPath === 'deferred') return this.createDeferredOrder(input, prepared, context);
    return prepared.quote.lockType === 'ResourceLock' ? this.createLockOrder(input, prepared) : this.createEscrowOrder(input, prepared);
  }

  private async prepare(input: CreateOrderInput, context: IntakeContext): Promise<Prepared> {
    const { compliance } = this.deps;
    const book = this.deps.quoteBook();
    const quote = book?.get(input.quoteId);
    if (quote === undefined) {
      throw new NotFoundError({ code: 'resource_not_found', param: 'quoteId', message: `No quote ${input.quoteId}.` });
    }
    this.assertQuoteOpen(quote);
    const engine = this.deps.engine();
    if (engine === undefined) {
      throw new MaintenanceError({
        code: 'chain_unavailable',
        message: 'The settlement engine is not configured (no relayer keys); orders cannot settle.',
      });
    }
    const originInfo = this.deps.chains.find((c) => c.chainId === quote.originChainId);
    const destinationInfo = this.deps.chains.find((c) => c.chainId === quote.destinationChainId);
    const origin = engine.chain(quote.originChainId);
    if (
      originInfo === undefined ||
      destinationInfo === undefined ||
      origin === undefined ||
      engine.chain(quote.destinationChainId) === undefined
    ) {
      throw new ValidationError({
        code: 'corridor_unavailable',
        param: 'quoteId',
        message: `The quote's corridor ${quote.corridor} is not settled here.`,
      });
    }
    const user = this.userOf(input, quote, context.auth);

    let attestation: Hex | null = null;
    if (quote.settlementPath === 'compliant') attestation = compliance.requireAttestation(context.attestation, user).hash;

    const terms: OrderTerms = {
      originChain: originInfo,
      destinationChain: destinationInfo,
      inputToken: quote.inputToken,
      outputToken: quote.outputToken,
      inputAmount: BigInt(quote.inputAmount),
      outputAmount: BigInt(quote.outputAmount),
      lockType: quote.lockType,
      fillDeadline: quote.fillDeadline,
      expires: quote.expires,
      exclusive: quote.exclusive,
    };
    const order = buildStandardOrder(terms, user, input.nonce);
    const typedData = typedDataFor(terms, order);
    const verdict = await checkOrderSignature(typedData, input.signature, user, origin.client);
    if (!verdict.valid) {
      throw new ValidationError({
        code: 'signature_invalid',
        param: 'signature',
        message:
          `The signature does not authorise this order for ${user}` +
          (verdict.recovered === null ? '.' : ` (it recovers to ${verdict.recovered}).`) +
          ` Sign the quote's ${quote.lockType} typed data with nonce ${input.nonce}.`,
      });
    }
    this.assertNonceFree(user, input.nonce, quote);

    const screening: ScreeningSummary = { attestation, checks: [] };
    if (quote.settlementPath === 'compliant') {
      screening.checks.push({ checkType: 'attestation', result: 'approved', reason: 'fresh attestation for the user' });
      const results = compliance.screen(user);
      screening.checks.push(...results);
      const rejected = results.filter((r) => r.result === 'rejected');
      if (rejected.length > 0) this.rejectCompliance(quote, user, rejected, context.auth);
    }
    return {
      quote,
      terms,
      order,
      typedData,
      onchainId: onchainOrderId(terms, order),
      user,
      origin,
      screening,
      workspaceId: context.auth?.workspaceId ?? quote.workspaceId,
    };
  }

  private assertQuoteOpen(quote: QuoteRecord): void {
    const now = this.deps.clock.now();
    if (quote.status === 'expired' || (quote.status === 'open' && quote.expiresAt <= now)) {
      throw new ConflictError({
        code: 'rfq_expired',
        param: 'quoteId',
        codeB: 'QUOTE_EXPIRED',
        message: `Quote ${quote.id} expired at ${new Date(quote.expiresAt).toISOString()}; request a new quote.`,
      });
    }
    if (quote.status === 'accepted') {
      throw new ConflictError({
        code: 'quote_already_accepted',
        param: 'quoteId',
        codeB: 'ALREADY_ACCEPTED',
        message: `Quote ${quote.id} (or another quote of its RFQ) already became an order.`,
      });
    }
  }

  private userOf(input: CreateOrderInput, quote: QuoteRecord, auth: AuthContext | undefined): Address {
    const named = quote.user ?? undefined;
    const fromSession = auth?.kind === 'jwt' ? (auth.address as Address) : undefined;
    const user = input.user ?? named ?? fromSession;
    if (user === undefined) {
      throw new InvalidRequestError({
        code: 'parameter_missing',
        param: 'user',
        message: 'Name the taker: pass `user` (the address that signed), or request the quote with `user`.',
      });
    }
    if (input.user !== undefined && named !== undefined && checksummed(input.user) !== checksummed(named)) {
      throw new InvalidRequestError({
        code: 'parameter_invalid',
        param: 'user',
        message: `The quote was requested for ${named}, not ${input.user}.`,
      });
    }
    return checksummed(user);
  }

  /** Nonces rise per user; resource-lock nonces are also unique per allocator, so no open order may share one. */
  private assertNonceFree(user: Address, nonce: bigint, quote: QuoteRecord): void {
    const last = this.deps.orders.lastNonce(user);
    if (last !== undefined && nonce <= last.nonce) {
      throw new ConflictError({
        code: 'nonce_already_used',
        param: 'nonce',
        codeB: 'NONCE_ALREADY_USED',
        message: `Nonce ${nonce} is not above ${last.nonce}, the last nonce ${user} used (order ${last.orderId}); sign a new order with a higher nonce.`,
      });
    }
    if (quote.lockType === 'ResourceLock' && this.deps.orders.lockNonceInUse(quote.originChainId, nonce)) {
      throw new ConflictError({
        code: 'nonce_already_used',
        param: 'nonce',
        codeB: 'NONCE_ALREADY_USED',
        message: `Nonce ${nonce} is held by another open resource-lock order (Compact nonces are per allocator); use another.`,
      });
    }
  }

  private rejectCompliance(
    quote: QuoteRecord,
    user: Address,
    rejected: { checkType: string; reason: string }[],
    auth: AuthContext | undefined,
  ): never {
    const at = this.deps.clock.now();
    this.deps.outbox.commit(() => {
      for (const check of rejected) {
        this.deps.compliance.record(
          {
            tradeId: quote.id,
            orderId: null,
            workspaceId: auth?.workspaceId ?? quote.workspaceId,
            subject: user,
            checkType: check.checkType as 'kyc' | 'sanctions' | 'travel_rule',
            result: 'rejected',
            details: { reason: check.reason, quoteId: quote.id, rail: 'compliant' },
          },
          at,
        );
      }
    });
    throw new ComplianceError({
      code: 'compliance_rejected',
      param: 'user',
      codeB: 'COMPLIANCE_FAILED',
      message: `${user} is not compliant to trade: ${rejected.map((r) => `${r.checkType} (${r.reason})`).join(', ')}.`,
    });
  }

  // ---- escrow: relay openFor ------------------------------------------------------------------------------

  private async createEscrowOrder(input: CreateOrderInput, prepared: Prepared): Promise<OrderRecord> {
    const engine = this.deps.engine()!;
    const { origin, quote, order } = prepared;
    const lockType = quote.lockType as 'Permit2Escrow' | 'EIP3009Escrow';
    const data = openForCalldata(lockType, order, input.signature);
    const relayer = engine.relayer(origin.chainId, 'service');
    let gas: bigint;
    try {
      const to = origin.contracts.inputSettlerEscrow;
      gas = await this.depositGas.limitFor(
        origin.client,
        { account: relayer.address, to, data },
        depositShape(origin.chainId, to, lockType, [quote.inputToken]),
      );
    } catch (error) {
      throw this.depositError(error, input.nonce);
    }
    return this.relayOpening(input, prepared, {
      kind: 'open',
      to: origin.contracts.inputSettlerEscrow,
      data,
      gas,
      unconfirmed: (orderId) =>
        `The deposit of order ${orderId} is signed and recorded, but chain ${origin.chainId} did not confirm it yet; it is retried. Read the order again shortly.`,
      rejected: { param: 'user', message: (reason) => `The deposit reverted on chain: ${reason}.` },
    });
  }

  /**
   * Signs the opening transaction of a new order (escrow deposit or credit hold), records the order as Opening with
   * the signed relay in one transaction, sends it and answers once it is mined: Deposited, or the refusal.
   */
  private async relayOpening(
    input: CreateOrderInput,
    prepared: Prepared,
    opening: {
      kind: 'open' | 'vault.hold';
      to: Address;
      data: Hex;
      gas: bigint;
      unconfirmed: (orderId: string) => string;
      rejected: { param: string; message: (reason: string) => string };
    },
  ): Promise<OrderRecord> {
    const engine = this.deps.engine()!;
    const relayer = engine.relayer(prepared.origin.chainId, 'service');
    const orderId = newId('ord');
    const request = {
      kind: opening.kind,
      key: orderId,
      orderId,
      chainId: prepared.origin.chainId,
      account: relayer.address,
      to: opening.to,
      data: opening.data,
      gas: opening.gas,
    };
    if (
      opening.kind === 'open' &&
      engine.catchesDeposit({ orderId, corridor: prepared.quote.corridor, solverId: prepared.quote.solverId })
    ) {
      // A sandbox fault switch acts on this deposit: record the order with its deposit queued, unsigned, and let the
      // relayer's gate hold, delay or drop it; the order moves on (or is rejected) when the relay does.
      this.deps.outbox.commit(() => {
        this.recordOpening(orderId, input, prepared, null);
        engine.relays.enqueue(request, this.deps.clock.now());
      });
      relayer.kick();
      // Deliberate (a fault switch): marked so the error handler logs a fault firing, not an unhandled error.
      throw Object.assign(
        new MaintenanceError({
          code: 'deposit_held',
          message: `Order ${orderId} is recorded, but a sandbox fault switch keeps its deposit from the chain: held or delayed, the order appears at GET /api/v1/orders/${orderId} once the deposit lands; dropped, it is rejected and never appears (nothing moved).`,
        }),
        { fault: { kind: 'relay', relay: 'deposit' } },
      );
    }
    const { outcome } = await relayer.relayNow(request, (signed) =>
      this.deps.outbox.commit(() => {
        this.recordOpening(orderId, input, prepared, null);
        engine.relays.enqueue(request, this.deps.clock.now(), signed);
      }),
    );
    const created = this.deps.orders.get(orderId)!;
    if (outcome === undefined) throw new MaintenanceError({ code: 'chain_unavailable', message: opening.unconfirmed(orderId) });
    if (created.status === 'Rejected') {
      throw new ValidationError({
        code: 'deposit_failed',
        param: opening.rejected.param,
        message: opening.rejected.message(created.rejectReason ?? 'unknown reason'),
      });
    }
    return asDeposited(created);
  }

  // ---- deferred rail: hold the workspace's vault credit ----------------------------------------------------

  /**
   * A deferred order moves no taker funds: the workspace's DeferredVault credit is held for it (`hold`, relayed
   * like a deposit). The taker's signature over the quote's payload is still its consent; the credit is the
   * workspace's, so the order needs its API key or session.
   */
  private async createDeferredOrder(input: CreateOrderInput, prepared: Prepared, context: IntakeContext): Promise<OrderRecord> {
    const engine = this.deps.engine()!;
    const { origin, quote, onchainId } = prepared;
    const workspaceId = context.auth?.workspaceId;
    if (workspaceId === undefined) {
      throw new AuthenticationError({
        code: 'api_key_required',
        param: 'Authorization',
        message: "A deferred order spends the workspace's vault credit: send the workspace's API key or a session token.",
      });
    }
    const vault = origin.info.contracts.DeferredVault;
    if (vault === undefined) {
      throw new MaintenanceError({
        code: 'deferred_unavailable',
        param: 'quoteId',
        message: `Chain ${origin.chainId} has no DeferredVault.`,
      });
    }
    const data = holdCalldata(onchainId, workspaceId, getAddress(quote.inputToken), BigInt(quote.inputAmount));
    const relayer = engine.relayer(origin.chainId, 'service');
    let gas: bigint;
    try {
      gas = await origin.client.estimateGas({ account: relayer.address, to: getAddress(vault), data });
    } catch (error) {
      const reason = revertReason(error, DeferredVaultArtifact.abi);
      if (reason.name === 'InsufficientCredit') {
        throw new ValidationError({
          code: 'insufficient_credit',
          param: 'quoteId',
          message: `The workspace's vault credit does not cover ${quote.inputAmount} of ${quote.inputToken} (${reason.message}); deposit first.`,
        });
      }
      throw this.depositError(error, input.nonce);
    }
    return this.relayOpening(
      input,
      { ...prepared, workspaceId },
      {
        kind: 'vault.hold',
        to: getAddress(vault),
        data,
        gas: (gas * 5n) / 4n,
        unconfirmed: (orderId) =>
          `The credit hold of order ${orderId} is signed and recorded, but chain ${origin.chainId} did not confirm it yet; it is retried.`,
        rejected: { param: 'quoteId', message: (reason) => `The credit hold reverted: ${reason}.` },
      },
    );
  }

  private depositError(error: unknown, nonce: bigint): Error {
    const reason = revertReason(error);
    if (reason.name === 'InvalidNonce' || reason.name === 'AuthorizationAlreadyUsed' || reason.name === 'InvalidOrderStatus') {
      return new ConflictError({
        code: 'nonce_already_used',
        param: 'nonce',
        codeB: 'NONCE_ALREADY_USED',
        message: `The chain refuses nonce ${nonce}: ${reason.message}. Sign a new order with a fresh nonce.`,
      });
    }
    if (
      isChainUnreachable(error) ||
      (reason.name === undefined && /fetch failed|ECONNREFUSED|timed? ?out|HTTP request failed/i.test(reason.message))
    ) {
      // Before any write: a retry with the same Idempotency-Key runs again rather than replaying this answer.
      return nothingDone(
        new MaintenanceError({
          code: 'chain_unavailable',
          message: `The origin chain does not answer: ${reason.message}; nothing was recorded.`,
        }),
      );
    }
    return new ValidationError({
      code: 'deposit_failed',
      param: 'user',
      message: `The deposit would revert (${reason.message}); nothing was sent.`,
    });
  }

  // ---- resource lock: verify the deposit ------------------------------------------------------------------

  private async createLockOrder(input: CreateOrderInput, prepared: Prepared): Promise<OrderRecord> {
    const { origin, quote, order, user, typedData } = prepared;
    const id = lockId(compactLockTag(origin.contracts.allocator), quote.inputToken);
    const [balance, consumed, forced, block] = await Promise.all([
      origin.client.readContract({
        address: origin.contracts.resourceLock,
        abi: ResourceLockArtifact.abi,
        functionName: 'balanceOf',
        args: [user, id],
      }),
      origin.client.readContract({
        address: origin.contracts.resourceLock,
        abi: ResourceLockArtifact.abi,
        functionName: 'hasConsumedAllocatorNonce',
        args: [order.nonce, origin.contracts.allocator],
      }),
      origin.client.readContract({
        address: origin.contracts.resourceLock,
        abi: ResourceLockArtifact.abi,
        functionName: 'getForcedWithdrawalStatus',
        args: [user, id],
      }),
      origin.client.getBlock({ blockTag: 'latest' }),
    ]).catch((error: unknown) => {
      throw new MaintenanceError({ code: 'chain_unavailable', message: `The origin chain does not answer: ${(error as Error).message}` });
    });
    if (consumed) {
      throw new ConflictError({
        code: 'nonce_already_used',
        param: 'nonce',
        codeB: 'NONCE_ALREADY_USED',
        message: `Compact nonce ${order.nonce} is spent on chain.`,
      });
    }
    if (Number(block.timestamp) >= quote.fillDeadline) {
      throw new ConflictError({
        code: 'rfq_expired',
        param: 'quoteId',
        codeB: 'QUOTE_EXPIRED',
        message: 'The fill deadline has passed on chain; request a new quote.',
      });
    }
    if (forced[0] !== 0) {
      throw new ValidationError({
        code: 'insufficient_lock_balance',
        param: 'user',
        message: 'A forced withdrawal is pending or enabled for this lock; disable it before committing the balance.',
      });
    }
    const orderId = newId('ord');
    // The taker signs the compact off chain and nothing is sent: its EIP-712 digest stands for the deposit.
    const registration = hashTypedDataCached(typedData);
    const effects: AfterCommit[] = this.deps.outbox.commit(() => {
      const committed = this.deps.orders.committedLockAmount(user, quote.originChainId, getAddress(quote.inputToken));
      if (balance < committed + BigInt(quote.inputAmount)) {
        throw new ValidationError({
          code: 'insufficient_lock_balance',
          param: 'user',
          message: `The lock holds ${balance} for ${user}; open orders commit ${committed} and this one needs ${quote.inputAmount}.`,
        });
      }
      this.recordOpening(orderId, input, prepared, null);
      return this.deps.lifecycle.recordCreation(orderId, registration, this.deps.clock.now());
    });
    for (const effect of effects) {
      try {
        await effect();
      } catch (error) {
        this.deps.logger.error({ err: error, orderId }, 'order follow-up failed');
      }
    }
    return asDeposited(this.deps.orders.get(orderId)!);
  }

  // ---- shared ---------------------------------------------------------------------------------------------

  /**
   * The authoritative checks and the order row, in one transaction: the quote is taken and the nonce spent here,
   * so two racing requests cannot both pass.
   */
  private recordOpening(orderId: string, input: CreateOrderInput, prepared: Prepared, originTxHash: Hex | null): void {
    const { quote, order, user, onchainId, screening, workspaceId } = prepared;
    const now = this.deps.clock.now();
    this.assertNonceFree(user, input.nonce, quote);
    if (!this.deps.quoteBook()!.accept(quote.id, orderId, now)) {
      const fresh = this.deps.quoteBook()!.get(quote.id) ?? quote;
      this.assertQuoteOpen({ ...fresh, status: fresh.status === 'open' ? 'accepted' : fresh.status });
      throw new ConflictError({
        code: 'quote_already_accepted',
        param: 'quoteId',
        codeB: 'ALREADY_ACCEPTED',
        message: `Quote ${quote.id} is not open any more.`,
      });
    }
    if (this.deps.orders.byOnchainId(onchainId) !== undefined) {
      throw new ConflictError({
        code: 'nonce_already_used',
        param: 'nonce',
        codeB: 'NONCE_ALREADY_USED',
        message: 'This exact order was submitted before.',
      });
    }
    this.deps.orders.spendNonce(user, input.nonce, orderId);
    this.deps.orders.insert({
      id: orderId,
      workspaceId,
      quoteId: quote.id,
      rfqId: quote.rfqId,
      solverId: quote.solverId,
      user,
      nonce: input.nonce,
      lockType: quote.lockType,
      settlementPath: quote.settlementPath,
      corridor: quote.corridor,
      originChainId: quote.originChainId,
      destinationChainId: quote.destinationChainId,
      inputToken: getAddress(quote.inputToken),
      outputToken: getAddress(quote.outputToken),
      inputAmount: quote.inputAmount,
      outputAmount: quote.outputAmount,
      fillDeadline: quote.fillDeadline,
      expires: quote.expires,
      onchainOrderId: onchainId,
      standardOrder: order,
      signature: input.signature,
      status: 'Opening',
      screening,
      originTxHash,
      destinationTxHash: null,
      oracleAttestationHash: null,
      claimTxHash: null,
      refundTxHash: null,
      rejectReason: null,
      quoteCreatedAt: quote.createdAt,
      createdAt: now,
      updatedAt: now,
      settledAt: null,
    });
  }
}

/**
 * The create response is the order as its deposit left it. The solver is told at once and may fill before the
 * response is written; later stages are for `GET /orders/{id}`.
 */
function asDeposited(order: OrderRecord): OrderRecord {
  if (order.status === 'Opening' || order.status === 'Rejected') return order;
  return {
    ...order,
    status: 'Deposited',
    destinationTxHash: null,
    oracleAttestationHash: null,
    claimTxHash: null,
    refundTxHash: null,
    settledAt: null,
  };
}
