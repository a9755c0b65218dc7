import type { Logger } from 'pino';
import type { Address, Hex } from 'viem';
import { keccak256 } from '../../contracts/keccak.js';
import { privateKeyToAddress } from 'viem/accounts';
import { signEip1559Transaction } from '../../contracts/secp256k1.js';
import type { Clock } from '../../clock/index.js';
import type { SettlementChain } from './chains.js';
import type { RelayRecord, RelayRepository, RelayRequest, SignedRelay } from './relay-repository.js';

/** What became of a relayed transaction. */
export interface RelayOutcome {
  status: 'mined' | 'reverted' | 'dropped';
  blockNumber?: number;
  error?: string;
}

/** What callers of the engine's relayers use: the account, "send what is queued", and "send this one now". */
export interface Relayer {
  readonly address: Address;
  readonly chainId: number;
  kick(): void;
  /**
   * Records `request` through `record` (in the caller's transaction) and sends it, answering its outcome (undefined
   * when it was not decided in time: it is still sent, and its outcome reaches the listeners later).
   */
  relayNow<T>(
    request: RelayRequest,
    record: (signed: SignedRelay | undefined) => T,
  ): Promise<{ value: T; outcome: RelayOutcome | undefined }>;
}

/**
 * How busy an account's send lane has been since the relayer started: its sends are strictly one at a time (see
 * AccountRelayer), so `busyMs` against wall time says whether the lane limits throughput (the settlement bench
 * reports it).
 */
export interface RelayLaneStats {
  /** Tasks run in the lane: sends, with their signing and recording, and recoveries. */
  tasks: number;
  /** Milliseconds the lane was held, in total. */
  busyMs: number;
}

/** Work to run once the transaction that asked for it has committed (sends, notifications, timers). */
export type AfterCommit = () => void | Promise<void>;

export interface RelayerDeps {
  chain: SettlementChain;
  privateKey: Hex;
  relays: RelayRepository;
  clock: Clock;
  logger: Logger;
  /** Runs `fn` in one store transaction and publishes its outbox events after commit. */
  commit<T>(fn: () => T): T;
  /**
   * Called inside the transaction that records an outcome, with the receipt's logs when it was mined (the chain's
   * facts, processed in the same transaction); returns work for after the commit.
   */
  onOutcome(relay: RelayRecord, outcome: RelayOutcome, logs: RawReceipt['logs']): AfterCommit[];
  /**
   * The sandbox's fault switches (src/service/faults): whether a queued relay is sent now, kept queued (held, or
   * delayed until a clock time: whoever holds it kicks the relayer again), or dropped unsent.
   */
  gate?(relay: RelayRecord): RelayGateDecision;
}

/** `notify`: a dropped relay's owner hears of it as of a lost transaction (a dropped deposit rejects its order). */
export type RelayGateDecision =
  | { action: 'send' }
  | { action: 'hold'; faultId: string }
  | { action: 'drop'; faultId: string; notify: boolean }
  | { action: 'wait'; until: number };

/**
 * Kinds whose signed transaction is recorded before it is sent, so that it is sent at most once even across a
 * crash: the taker's deposit. The others are harmless to repeat (an oracle leg records once, a second refund
 * reverts), so they are recorded with their outcome, one write less each.
 */
const DURABLE_KINDS: ReadonlySet<string> = new Set(['open']);

export interface RawReceipt {
  status: Hex;
  blockNumber: Hex;
  transactionHash: Hex;
  logs: { address: Address; topics: Hex[]; data: Hex; blockNumber: Hex; transactionHash: Hex; logIndex: Hex }[];
}

const GWEI = 1_000_000_000n;
/** A transient failure (chain down) is retried this often, in wall time: it is transport, not business time. */
const RETRY_MS = 1_000;

/**
 * Sends one account's transactions on one chain, strictly in nonce order, one at a time: anvil's automine can
 * strand a transaction when one sender's transactions arrive concurrently. Every transaction is recorded (signed,
 * with its nonce) before it is broadcast, so after a crash `start()` finds it, looks for its receipt and otherwise
 * re-broadcasts it: an intent is never sent as two different landed transactions.
 */
export class AccountRelayer implements Relayer {
  readonly address: Address;
  readonly chainId: number;
  private next = 0;
  private tail: Promise<unknown> = Promise.resolve();
  private fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } | undefined;
  private draining: Promise<void> | undefined;
  private drainAgain = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly lane: RelayLaneStats = { tasks: 0, busyMs: 0 };

  constructor(private readonly deps: RelayerDeps) {
    this.address = privateKeyToAddress(deps.privateKey);
    this.chainId = deps.chain.chainId;
  }

  /** Settles what a previous run left signed but unconfirmed, then sends queued intents. */
  async start(): Promise<void> {
    try {
      await this.exclusive(() => this.recover());
      this.kick();
    } catch (error) {
      // A chain that does not answer must not keep the service from starting: recovery is retried.
      this.deps.logger.warn({ err: error, chainId: this.chainId, account: this.address }, 'relayer recovery failed; retrying');
      this.scheduleRetry();
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
  }

  /** Resolves once everything queued so far has been sent and settled (tests, shutdown). */
  async idle(): Promise<void> {
    for (;;) {
      await this.tail;
      const draining = this.draining;
      if (draining === undefined) return;
      await draining;
    }
  }

  /**
   * Signs `request` with the next nonce and lets `record` persist it together with the caller's own state change
   * (synchronously, in the caller's transaction). If `record` throws, nothing is sent and the nonce is reused.
   * Then broadcasts and returns the outcome (undefined when the chain did not answer: it is retried in the
   * background and reported through `onOutcome`).
   */
  relayNow<T>(
    request: RelayRequest,
    record: (signed: SignedRelay | undefined) => T,
  ): Promise<{ value: T; outcome: RelayOutcome | undefined }> {
    return this.exclusive(async () => {
      if (this.stopped) throw new Error('relayer stopped');
      const signed = await this.sign(request, this.next);
      const value = record(signed);
      this.next += 1;
      const outcome = await this.broadcast({ ...request, ...signed });
      return { value, outcome };
    });
  }

  /**
   * Counts the nonce from the chain again and settles or re-sends what is signed but unconfirmed (the chain replaced
   * blocks that may have held transactions of ours). Queued after whatever the account is sending now.
   */
  resync(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return this.exclusive(() => this.recover()).catch((error: unknown) => {
      this.deps.logger.warn({ err: error, chainId: this.chainId }, 'relayer recovery failed; retrying');
      this.scheduleRetry();
    });
  }

  /** Signs and sends every queued intent of this account, in the order they were recorded. */
  kick(): void {
    if (this.stopped) return;
    if (this.draining !== undefined) {
      this.drainAgain = true;
      return;
    }
    this.draining = (async () => {
      // Yield first: `draining` must be assigned before the loop can finish and clear it.
      await Promise.resolve();
      try {
        do {
          this.drainAgain = false;
          for (const relay of this.deps.relays.queued(this.chainId, this.address)) {
            if (this.stopped) return;
            const gate = this.deps.gate?.(relay) ?? { action: 'send' };
            if (gate.action === 'hold' || gate.action === 'wait') continue;
            if (gate.action === 'drop') {
              // Never sent, so nothing on chain to wait for.
              const error = `dropped by fault switch ${gate.faultId}`;
              if (gate.notify) this.record(relay, { status: 'dropped', error });
              else this.deps.commit(() => this.deps.relays.markOutcome(relay.id, 'dropped', this.deps.clock.now(), { error }));
              continue;
            }
            await this.exclusive(async () => {
              const signed = await this.sign(relay, this.next);
              if (DURABLE_KINDS.has(relay.kind)) this.deps.commit(() => this.deps.relays.markSent(relay.id, signed, this.deps.clock.now()));
              this.next += 1;
              await this.broadcast({ ...relay, ...signed });
            });
          }
        } while (this.drainAgain && !this.stopped);
      } catch (error) {
        this.deps.logger.error({ err: error, chainId: this.chainId, account: this.address }, 'relay queue failed; retrying');
        this.scheduleRetry();
      } finally {
        this.draining = undefined;
      }
    })();
  }

  /** The lane's counters so far (a copy). */
  laneStats(): RelayLaneStats {
    return { ...this.lane };
  }

  private exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.tail.then(async () => {
      const started = performance.now();
      try {
        return await task();
      } finally {
        this.lane.tasks += 1;
        this.lane.busyMs += performance.now() - started;
      }
    });
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async feeCaps(refresh = false): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
    if (this.fees === undefined || refresh) {
      const gasPrice = await this.deps.chain.client.getGasPrice();
      // Generous caps: only base fee plus tip is charged, and a cap below the base fee would strand the queue.
      this.fees = { maxFeePerGas: gasPrice * 3n + 2n * GWEI, maxPriorityFeePerGas: GWEI };
    }
    return this.fees;
  }

  private async sign(request: Pick<RelayRequest, 'to' | 'data' | 'gas'>, nonce: number): Promise<SignedRelay> {
    const fees = await this.feeCaps();
    const rawTx = await signEip1559Transaction(this.deps.privateKey, {
      type: 'eip1559',
      chainId: this.chainId,
      nonce,
      to: request.to,
      data: request.data,
      gas: request.gas,
      value: 0n,
      ...fees,
    });
    return { nonce, rawTx, txHash: keccak256(rawTx) };
  }

  /** Sends one signed transaction and records its outcome; undefined when it could not be decided now. */
  private async broadcast(relay: RelayRequest & SignedRelay & { id?: number }, attempt = 0): Promise<RelayOutcome | undefined> {
    const stored = relay.id !== undefined ? this.deps.relays.get(relay.id) : this.deps.relays.byKey(relay.kind, relay.key);
    if (stored === undefined) throw new Error(`relay ${relay.kind} ${relay.key} was not recorded before sending`);
    try {
      const receipt = await this.deps.chain.client.request({
        method: 'eth_sendRawTransactionSync' as 'eth_sendRawTransaction',
        params: [relay.rawTx],
      });
      return this.settle(stored, receipt as unknown as RawReceipt, relay);
    } catch (error) {
      const message = errorText(error);
      if (/base fee|fee cap|underpriced/i.test(message) && attempt < 2) {
        await this.feeCaps(true);
        const signed = await this.sign(relay, relay.nonce);
        if (DURABLE_KINDS.has(relay.kind)) this.deps.commit(() => this.deps.relays.markSent(stored.id, signed, this.deps.clock.now()));
        return this.broadcast({ ...relay, ...signed, id: stored.id }, attempt + 1);
      }
      const receipt = await this.receipt(relay.txHash).catch(() => undefined);
      if (receipt !== undefined) return this.settle(stored, receipt, relay);
      if (/nonce too low/i.test(message)) {
        // Its nonce went to another transaction: this one can never land. Re-sync and let recovery resend it.
        this.deps.logger.warn({ relay: stored.id, kind: stored.kind, nonce: relay.nonce }, 'relay nonce taken; resending');
      } else {
        this.deps.logger.warn({ err: error, relay: stored.id, kind: stored.kind }, 'relay broadcast failed; retrying');
      }
      if (DURABLE_KINDS.has(relay.kind)) {
        this.deps.commit(() =>
          this.deps.relays.markUndecided(stored.id, `broadcast failed, retrying: ${message}`.slice(0, 300), this.deps.clock.now()),
        );
      }
      this.scheduleRetry();
      return undefined;
    }
  }

  private settle(relay: RelayRecord, receipt: RawReceipt, signed?: SignedRelay): RelayOutcome {
    const outcome: RelayOutcome = {
      status: receipt.status === '0x1' ? 'mined' : 'reverted',
      blockNumber: Number(receipt.blockNumber),
    };
    this.record(relay, outcome, outcome.status === 'mined' ? (receipt.logs ?? []) : [], signed);
    return outcome;
  }

  private record(relay: RelayRecord, outcome: RelayOutcome, logs: RawReceipt['logs'] = [], signed?: SignedRelay): void {
    const effects = this.deps.commit(() => {
      const current = this.deps.relays.get(relay.id);
      // Already settled (a watcher or an earlier attempt got there first): report once only.
      if (current === undefined || (current.status !== 'sent' && current.status !== 'queued')) return [];
      this.deps.relays.markOutcome(relay.id, outcome.status, this.deps.clock.now(), {
        ...(outcome.blockNumber === undefined ? {} : { blockNumber: outcome.blockNumber }),
        ...(outcome.error === undefined ? {} : { error: outcome.error }),
        ...(signed === undefined ? {} : { signed: { nonce: signed.nonce, rawTx: signed.rawTx, txHash: signed.txHash } }),
      });
      const settled = {
        ...current,
        status: outcome.status,
        ...(signed === undefined ? {} : { nonce: signed.nonce, rawTx: signed.rawTx, txHash: signed.txHash }),
      };
      return this.deps.onOutcome(settled, outcome, logs);
    });
    if (outcome.status === 'reverted')
      this.deps.logger.warn({ relay: relay.id, kind: relay.kind, key: relay.key }, 'relayed transaction reverted');
    for (const effect of effects) {
      void Promise.resolve()
        .then(effect)
        .catch((error: unknown) => this.deps.logger.error({ err: error }, 'relay follow-up failed'));
    }
  }

  private async receipt(hash: Hex | null): Promise<RawReceipt | undefined> {
    if (hash === null) return undefined;
    const receipt = (await this.deps.chain.client.request({
      method: 'eth_getTransactionReceipt',
      params: [hash],
    })) as unknown as RawReceipt | null;
    return receipt ?? undefined;
  }

  private scheduleRetry(): void {
    if (this.stopped || this.retryTimer !== undefined) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.exclusive(() => this.recover())
        .then(() => this.kick())
        .catch((error: unknown) => {
          this.deps.logger.warn({ err: error, chainId: this.chainId }, 'relayer recovery failed; retrying');
          this.scheduleRetry();
        });
    }, RETRY_MS);
    this.retryTimer.unref();
  }

  /**
   * Brings the account back in step with the chain: settles every signed transaction that has a receipt, clears
   * our stuck pool transactions (anvil), and resends the rest from the chain's nonce on, re-signing where the
   * recorded nonce is no longer the next one.
   */
  private async recover(): Promise<void> {
    const { client } = this.deps.chain;
    for (const relay of this.deps.relays.unsettled(this.chainId, this.address)) {
      const receipt = await this.receipt(relay.txHash);
      if (receipt !== undefined) this.settle(relay, receipt);
    }
    const [latest, pending] = await Promise.all([
      client.getTransactionCount({ address: this.address, blockTag: 'latest' }),
      client.getTransactionCount({ address: this.address, blockTag: 'pending' }),
    ]);
    if (pending > latest) {
      await client
        .request({ method: 'anvil_removePoolTransactions' as 'eth_chainId', params: [this.address] as unknown as undefined })
        .catch((error: unknown) => this.deps.logger.warn({ err: error }, 'could not clear stuck pool transactions'));
    }
    this.next = latest;
    for (const relay of this.deps.relays.unsettled(this.chainId, this.address)) {
      let signed: SignedRelay = { nonce: relay.nonce!, rawTx: relay.rawTx!, txHash: relay.txHash! };
      if (relay.nonce !== this.next) {
        signed = await this.sign(relay, this.next);
        this.deps.commit(() => this.deps.relays.markSent(relay.id, signed, this.deps.clock.now()));
      }
      this.next += 1;
      const outcome = await this.broadcast({ ...relay, ...signed });
      if (outcome === undefined) return;
    }
  }
}

function errorText(error: unknown): string {
  if (error instanceof Error) {
    const details = (error as Error & { details?: string; shortMessage?: string }).details ?? '';
    return `${error.message} ${details}`;
  }
  return String(error);
}
