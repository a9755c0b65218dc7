import type { Logger } from 'pino';
import type { Address, Hex } from 'viem';
import { keccak256 } from '../../contracts/keccak.js';
import { privateKeyToAddress } from 'viem/accounts';
import { signEip1559Transaction } from '../../contracts/secp256k1.js';
import { sendRawTransactionSync } from '../../contracts/sync-send.js';
import type { Clock } from '../../clock/index.js';
import type { SettlementChain } from './chains.js';
import type { RelayRecord, RelayRepository, RelayRequest, SignedRelay } from './relay-repository.js';
import { type OracleLeg, oracleBatchCalldata, oracleLegOf } from './transactions.js';

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
  /** Oracle legs whose shared transaction reverted: each is sent on its own until it is recorded. */
  private readonly alone = new Set<number>();

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
          const queued = this.deps.relays.queued(this.chainId, this.address);
          // A leg to send alone that is no longer queued (recorded, or dropped by a fault switch) is forgotten.
          if (this.alone.size > 0) {
            const stillQueued = new Set(queued.map((relay) => relay.id));
            for (const id of this.alone) if (!stillQueued.has(id)) this.alone.delete(id);
          }
          // Oracle legs that may share a transaction wait here until the run of them ends (see OracleBatch).
          let batch: OracleBatch | undefined;
          for (const relay of queued) {
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
            const leg = this.legOf(relay);
            if (leg !== undefined && batch !== undefined && batch.add(relay, leg)) continue;
            if (batch !== undefined) await this.sendBatch(batch);
            batch = leg === undefined ? undefined : new OracleBatch(relay, leg);
            if (batch === undefined) await this.sendOne(relay);
          }
          if (batch !== undefined && !this.stopped) await this.sendBatch(batch);
        } while (this.drainAgain && !this.stopped);
      } catch (error) {
        this.deps.logger.error({ err: error, chainId: this.chainId, account: this.address }, 'relay queue failed; retrying');
        this.scheduleRetry();
      } finally {
        this.draining = undefined;
      }
    })();
  }

  private sendOne(relay: RelayRecord): Promise<void> {
    return this.exclusive(async () => {
      const signed = await this.sign(relay, this.next);
      if (DURABLE_KINDS.has(relay.kind)) this.deps.commit(() => this.deps.relays.markSent(relay.id, signed, this.deps.clock.now()));
      this.next += 1;
      await this.broadcast({ ...relay, ...signed });
    });
  }

  /** An oracle leg that may share a transaction with the legs queued beside it, or undefined. */
  private legOf(relay: RelayRecord): OracleLeg | undefined {
    if ((relay.kind !== 'oracle.submit' && relay.kind !== 'oracle.receive') || this.alone.has(relay.id)) return undefined;
    return oracleLegOf(relay.kind, relay.to, relay.data);
  }

  /**
   * Sends a run of oracle legs as one transaction carrying all their payloads (one alone goes as it is). Mined, each
   * leg is recorded with it in one commit, as if it had been sent alone. Reverted (`submit` refuses all when the
   * settler did not record one of the fills), none is recorded: each goes again on its own, where a refusal is that
   * leg's own outcome and counts as its attempt. Not decided (the chain did not answer), they stay queued and go
   * again after recovery, as a single leg would (the oracle's legs are harmless to repeat).
   */
  private async sendBatch(batch: OracleBatch): Promise<void> {
    if (batch.relays.length === 1) return this.sendOne(batch.relays[0]!);
    const [first] = batch.relays as [RelayRecord, ...RelayRecord[]];
    const request = {
      to: first.to,
      data: oracleBatchCalldata(first.kind as 'oracle.submit' | 'oracle.receive', first.data, batch.legs),
      gas: batch.relays.reduce((sum, relay) => sum + relay.gas, 0n),
    };
    await this.exclusive(async () => {
      let signed = await this.sign(request, this.next);
      this.next += 1;
      for (let attempt = 0; ; attempt++) {
        let receipt: RawReceipt | undefined;
        try {
          receipt = (await this.sendSync(signed)) as RawReceipt;
        } catch (error) {
          const message = errorText(error);
          if (/base fee|fee cap|underpriced/i.test(message) && attempt < 2) {
            await this.feeCaps(true);
            signed = await this.sign(request, signed.nonce);
            continue;
          }
          receipt = await this.receipt(signed.txHash).catch(() => undefined);
          if (receipt === undefined) {
            this.deps.logger.warn(
              { err: error, relays: batch.relays.map((r) => r.id), kind: first.kind },
              'oracle batch broadcast failed; retrying',
            );
            this.scheduleRetry();
            return;
          }
        }
        if (receipt.status !== '0x1') {
          this.deps.logger.warn(
            { relays: batch.relays.map((r) => r.id), kind: first.kind, txHash: signed.txHash },
            'oracle batch reverted; its legs go again one by one',
          );
          for (const relay of batch.relays) this.alone.add(relay.id);
          this.drainAgain = true;
          return;
        }
        this.recordMined(batch.relays, { status: 'mined', blockNumber: Number(receipt.blockNumber) }, receipt.logs ?? [], signed);
        return;
      }
    });
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

  /**
   * The receipt with the send; a transaction that vanishes while the send waits (a reorganisation took its block)
   * fails in about two seconds instead of at anvil's 30 s timeout, which held every later relay of this lane.
   */
  private sendSync(signed: Pick<SignedRelay, 'rawTx' | 'txHash'>): Promise<unknown> {
    const client = this.deps.chain.client;
    return sendRawTransactionSync(
      () => client.request({ method: 'eth_sendRawTransactionSync' as 'eth_sendRawTransaction', params: [signed.rawTx] }),
      () => client.request({ method: 'eth_getTransactionByHash', params: [signed.txHash] }),
      signed.txHash,
    );
  }

  /** Sends one signed transaction and records its outcome; undefined when it could not be decided now. */
  private async broadcast(relay: RelayRequest & SignedRelay & { id?: number }, attempt = 0): Promise<RelayOutcome | undefined> {
    const stored = relay.id !== undefined ? this.deps.relays.get(relay.id) : this.deps.relays.byKey(relay.kind, relay.key);
    if (stored === undefined) throw new Error(`relay ${relay.kind} ${relay.key} was not recorded before sending`);
    try {
      const receipt = (await this.sendSync(relay)) as RawReceipt;
      return this.settle(stored, receipt, relay);
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
      const current = this.unsettled(relay);
      return current === undefined ? [] : this.settleRecord(current, outcome, logs, signed);
    });
    if (outcome.status === 'reverted')
      this.deps.logger.warn({ relay: relay.id, kind: relay.kind, key: relay.key }, 'relayed transaction reverted');
    this.runEffects(effects);
  }

  /**
   * The legs one mined transaction carried, recorded in one commit. The receipt's logs go with the last leg
   * recorded: every leg's listeners have run when its facts are processed, as with one leg alone.
   */
  private recordMined(relays: readonly RelayRecord[], outcome: RelayOutcome, logs: RawReceipt['logs'], signed: SignedRelay): void {
    const effects = this.deps.commit(() => {
      const live = relays.map((relay) => this.unsettled(relay)).filter((relay) => relay !== undefined);
      return live.flatMap((current, i) => this.settleRecord(current, outcome, i === live.length - 1 ? logs : [], signed));
    });
    for (const relay of relays) this.alone.delete(relay.id);
    this.runEffects(effects);
  }

  /** The relay as stored now, unless it is settled already (a watcher or an earlier attempt got there first). */
  private unsettled(relay: RelayRecord): RelayRecord | undefined {
    const current = this.deps.relays.get(relay.id);
    return current === undefined || (current.status !== 'sent' && current.status !== 'queued') ? undefined : current;
  }

  private settleRecord(current: RelayRecord, outcome: RelayOutcome, logs: RawReceipt['logs'], signed?: SignedRelay): AfterCommit[] {
    this.deps.relays.markOutcome(current.id, outcome.status, this.deps.clock.now(), {
      ...(outcome.blockNumber === undefined ? {} : { blockNumber: outcome.blockNumber }),
      ...(outcome.error === undefined ? {} : { error: outcome.error }),
      ...(signed === undefined ? {} : { signed: { nonce: signed.nonce, rawTx: signed.rawTx, txHash: signed.txHash } }),
    });
    this.alone.delete(current.id);
    const settled = {
      ...current,
      status: outcome.status,
      ...(signed === undefined ? {} : { nonce: signed.nonce, rawTx: signed.rawTx, txHash: signed.txHash }),
    };
    return this.deps.onOutcome(settled, outcome, logs);
  }

  private runEffects(effects: readonly AfterCommit[]): void {
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

/** Most oracle legs one transaction carries: a block's gas limit is far above it, and a revert wastes one send. */
export const ORACLE_BATCH_LIMIT = 16;

/**
 * A run of queued oracle legs of one account that can go in one transaction: the same function of the same
 * contract with the same arguments but the payloads, one after the other in the queue (relays a fault switch holds
 * are skipped, as they are when sent one by one).
 */
class OracleBatch {
  readonly relays: RelayRecord[];
  readonly legs: OracleLeg[];

  constructor(relay: RelayRecord, leg: OracleLeg) {
    this.relays = [relay];
    this.legs = [leg];
  }

  add(relay: RelayRecord, leg: OracleLeg): boolean {
    if (leg.batchKey !== this.legs[0]!.batchKey || this.relays.length >= ORACLE_BATCH_LIMIT) return false;
    this.relays.push(relay);
    this.legs.push(leg);
    return true;
  }
}
