import type { Logger } from 'pino';
import type { Address, Hex } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import type { Clock } from '../../clock/index.js';
import type { ChainInfo } from '../../contracts/deployment.js';
import type { Store } from '../store/store.js';
import { type ChainFact, ChainCursorRepository, ChainFactRepository } from './chain-facts.js';
import { type SettlementChain, settlementChains } from './chains.js';
import { type RelayRecord, RelayRepository, type RelayRequest } from './relay-repository.js';
import type { InstanceBus } from '../cluster/instance-bus.js';
import {
  AccountRelayer,
  type AfterCommit,
  type Relayer,
  type RelayGateDecision,
  type RelayLaneStats,
  type RelayOutcome,
} from './relayer.js';
import { RELAYS_QUEUED, RemoteRelayer } from './remote-relayer.js';
import { DEFAULT_GAS, type GasLimits, type SettlementSettings } from './settings.js';
import { ChainWatcher } from './watchers.js';

/** The service relayer deposits and refunds; the oracle relayer carries fills from destination to origin. */
export type RelayerRole = 'service' | 'oracle';

/** The sandbox's fault switches as the engine sees them (src/service/faults). */
export interface RelayFaults {
  gate(relay: RelayRecord): RelayGateDecision;
  catchesDeposit(scope: { orderId: string; corridor: string; solverId: string }): boolean;
  /** Before each JSON-RPC call the engine makes: may delay it, or throw as if the chain had not answered. */
  beforeRpc?(chainId: number, method: string): Promise<void> | void;
  /** What the oracle carries to the origin chain for a fill: `truthful`, or `wrong()` when a lying switch fires. */
  oraclePayload?(order: { id: string; corridor: string; solverId: string }, truthful: Hex, wrong: () => Hex): Hex;
}

/** What the orders make of chain facts and relay outcomes; called inside the recording transaction. */
export interface SettlementListener {
  onFacts(facts: ChainFact[]): AfterCommit[];
  /** Facts a reorg took away (already forgotten by the facts table). */
  onFactsRemoved?(facts: ChainFact[]): AfterCommit[];
  onRelayOutcome(relay: RelayRecord, outcome: RelayOutcome): AfterCommit[];
}

export interface SettlementEngineDeps {
  chains: readonly ChainInfo[];
  settings: SettlementSettings;
  store: Store;
  clock: Clock;
  logger: Logger;
  /** Runs `fn` in one transaction and publishes its outbox events after commit (EvidenceModule.outbox.commit). */
  commit<T>(fn: () => T): T;
  /**
   * The bus to the other instances of the store, when there can be others: only the instance that started the engine
   * (the singleton holder) signs; the others queue their relays and wake it through the bus.
   */
  bus?: InstanceBus | undefined;
}

/** How long a relay sent through the singleton holder may take before `relayNow` answers "not decided yet". */
const REMOTE_RELAY_WAIT_MS = 20_000;
/** The singleton holder looks at its queues this often even without a message (a bus message can be lost). */
const QUEUE_SWEEP_MS = 1_000;

/**
 * The chain side of settlement: per-chain watchers, per-(chain, account) relayers, and the relay intents and
 * chain facts tables. It knows nothing of orders; the orders module attaches a listener and asks for relays.
 */
export class SettlementEngine {
  readonly chains: readonly SettlementChain[];
  readonly relays: RelayRepository;
  readonly facts: ChainFactRepository;
  readonly gas: GasLimits;
  private readonly cursors: ChainCursorRepository;
  private readonly relayers = new Map<string, AccountRelayer>();
  private readonly remoteRelayers = new Map<string, RemoteRelayer>();
  private queueSweep: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private readonly watchers = new Map<number, ChainWatcher>();
  private readonly accounts: Record<RelayerRole, Address>;
  private listener: SettlementListener | undefined;
  /** The sandbox's fault switches, when set: consulted for every queued relay before it is sent. */
  private faults: RelayFaults | undefined;
  /** Owners of other relay kinds (the deferred rail's vault calls): told of every outcome, they pick theirs. */
  private readonly relayListeners: Array<(relay: RelayRecord, outcome: RelayOutcome) => AfterCommit[]> = [];
  private started = false;

  constructor(private readonly deps: SettlementEngineDeps) {
    this.chains = settlementChains(deps.chains, { beforeCall: (chainId, method) => this.faults?.beforeRpc?.(chainId, method) });
    this.relays = new RelayRepository(deps.store);
    this.facts = new ChainFactRepository(deps.store);
    this.cursors = new ChainCursorRepository(deps.store);
    this.gas = { ...DEFAULT_GAS, ...deps.settings.gas };
    this.accounts = {
      service: privateKeyToAddress(deps.settings.serviceRelayer.privateKey),
      oracle: privateKeyToAddress(deps.settings.oracleRelayer.privateKey),
    };
    for (const chain of this.chains) {
      for (const role of ['service', 'oracle'] as const) {
        const key = role === 'service' ? deps.settings.serviceRelayer.privateKey : deps.settings.oracleRelayer.privateKey;
        if (deps.bus?.shared === true) {
          this.remoteRelayers.set(
            relayerKey(chain.chainId, role),
            new RemoteRelayer(privateKeyToAddress(key), chain.chainId, {
              bus: deps.bus,
              relays: this.relays,
              waitMs: REMOTE_RELAY_WAIT_MS,
            }),
          );
        }
        this.relayers.set(
          relayerKey(chain.chainId, role),
          new AccountRelayer({
            chain,
            privateKey: key,
            relays: this.relays,
            clock: deps.clock,
            logger: deps.logger,
            commit: deps.commit,
            gate: (relay) => this.faults?.gate(relay) ?? { action: 'send' },
            onOutcome: (relay, outcome, logs) => [
              ...(this.listener?.onRelayOutcome(relay, outcome) ?? []),
              ...this.relayListeners.flatMap((listen) => listen(relay, outcome)),
              // The receipt's logs are the chain's facts: processed now, in the same transaction, instead of a
              // round trip later through the subscription (whose copy is then a duplicate).
              ...(logs.length === 0 ? [] : (this.watchers.get(chain.chainId)?.ingestInTransaction(logs) ?? [])),
            ],
          }),
        );
      }
    }
  }

  attach(listener: SettlementListener): void {
    this.listener = listener;
  }

  /** Puts the fault switches in front of every queued relay (sandbox only). */
  useRelayFaults(faults: RelayFaults): void {
    this.faults = faults;
  }

  /** Whether a fault switch would act on this order's deposit (order intake then queues it instead of sending). */
  catchesDeposit(scope: { orderId: string; corridor: string; solverId: string }): boolean {
    return this.faults?.catchesDeposit(scope) ?? false;
  }

  /** Wakes every relayer: queued relays that may go now are sent. */
  /**
   * The sandbox's chain.reorg fault: anvil replaces the chain's blocks from `fromBlock` up to the head (or only the
   * last `depth`) with as many empty ones; the watcher then finds the fork (it is told to look, not left to the head
   * notifications alone) and forgets what is gone.
   */
  async reorg(chainId: number, fromBlock: number, depth?: number): Promise<number> {
    const chain = this.settledChain(chainId);
    const head = Number(await chain.client.request({ method: 'eth_blockNumber' }));
    const blocks = Math.max(1, depth ?? head - fromBlock + 1);
    await chain.client.request({ method: 'anvil_reorg', params: [blocks, []] } as never);
    // The watcher learns of reorgs from head notifications, and anvil may not send the ones that would show this one.
    await this.watchers.get(chainId)?.recheck(head - blocks + 1);
    return blocks;
  }

  /** The fill description the oracle's origin leg carries (a lying-oracle fault may change it). */
  oraclePayload(order: { id: string; corridor: string; solverId: string }, truthful: Hex, wrong: () => Hex): Hex {
    return this.faults?.oraclePayload?.(order, truthful, wrong) ?? truthful;
  }

  /**
   * The sandbox's chain.halt fault: block production stops (anvil's automine off; transactions wait in the pool) or
   * resumes (automine on, and the pool mined at once).
   */
  async setBlockProduction(chainId: number, producing: boolean): Promise<void> {
    const chain = this.settledChain(chainId);
    await chain.client.request({ method: 'evm_setAutomine', params: [producing] } as never);
    if (producing) await chain.client.request({ method: 'evm_mine', params: [] } as never);
  }

  kickAll(): void {
    for (const relayer of this.relayers.values()) relayer.kick();
  }

  /** Hears every relay outcome, inside the transaction that records it (for relay kinds the listener owns). */
  onRelayOutcome(listen: (relay: RelayRecord, outcome: RelayOutcome) => AfterCommit[]): void {
    this.relayListeners.push(listen);
  }

  chain(chainId: number): SettlementChain | undefined {
    return this.chains.find((chain) => chain.chainId === chainId);
  }

  /** The chain, or an error naming it (the sandbox's chain faults act on one the service settles on). */
  private settledChain(chainId: number): SettlementChain {
    const chain = this.chain(chainId);
    if (chain === undefined) throw new Error(`chain ${chainId} is not one the service settles on`);
    return chain;
  }

  /** Each relayer account's send lane on each chain, as far as this instance ran it (the settlement bench). */
  relayLanes(): Array<{ chainId: number; role: RelayerRole; address: Address } & RelayLaneStats> {
    return [...this.relayers].map(([key, relayer]) => ({
      chainId: relayer.chainId,
      role: key.slice(key.indexOf(':') + 1) as RelayerRole,
      address: relayer.address,
      ...relayer.laneStats(),
    }));
  }

  account(role: RelayerRole): Address {
    return this.accounts[role];
  }

  /**
   * The relayer of one account on one chain. On an instance sharing its store that has not started the engine (it
   * does not hold the singleton work), the relayer records and forwards instead of signing.
   */
  relayer(chainId: number, role: RelayerRole): Relayer {
    const key = relayerKey(chainId, role);
    const relayer = this.started || this.deps.bus?.shared !== true ? this.relayers.get(key) : this.remoteRelayers.get(key);
    if (relayer === undefined) throw new Error(`no settlement contracts on chain ${chainId}`);
    return relayer;
  }

  /** This instance's own relayer (tests and the sandbox's diagnostics): signs with the key, whoever holds the work. */
  localRelayer(chainId: number, role: RelayerRole): AccountRelayer {
    const relayer = this.relayers.get(relayerKey(chainId, role));
    if (relayer === undefined) throw new Error(`no settlement contracts on chain ${chainId}`);
    return relayer;
  }

  /**
   * Records a relay intent (call inside the transaction of the state change that calls for it); returns the
   * follow-up that sends it once that transaction has committed.
   */
  enqueue(request: Omit<RelayRequest, 'account'>, role: RelayerRole): { relay: RelayRecord; created: boolean; send: AfterCommit } {
    const { relay, created } = this.relays.enqueue({ ...request, account: this.accounts[role] }, this.deps.clock.now());
    return { relay, created, send: () => this.relayer(request.chainId, role).kick() };
  }

  /** Settles what the last run left behind, then follows every chain live. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await Promise.all([...this.relayers.values()].map((relayer) => relayer.start()));
    for (const chain of this.chains) {
      const watcher = new ChainWatcher({
        chain,
        facts: this.facts,
        cursors: this.cursors,
        clock: this.deps.clock,
        logger: this.deps.logger,
        commit: this.deps.commit,
        onFacts: (facts) => this.listener?.onFacts(facts) ?? [],
        onFactsRemoved: (facts) => this.listener?.onFactsRemoved?.(facts) ?? [],
        onReorganised: () => this.resyncRelayers(chain.chainId),
      });
      this.watchers.set(chain.chainId, watcher);
    }
    await Promise.all([...this.watchers.values()].map((watcher) => watcher.start()));
    const bus = this.deps.bus;
    if (bus?.shared === true) {
      // Other instances queue relays and say so; a lost message is caught by the sweep.
      this.unsubscribe = bus.subscribe(RELAYS_QUEUED, () => this.kickAll());
      this.queueSweep = setInterval(() => this.kickAll(), QUEUE_SWEEP_MS);
      this.queueSweep.unref();
    }
  }

  /**
   * A reorg on `chainId` may have taken relayed transactions with it: each relayer there counts its nonce from the
   * chain again before the re-queued relays go out. Signed past the gap, they would wait for a nonce that never
   * comes until the send times out (a `chain.restart` that lost blocks held every relay of the chain for 15 s).
   */
  private async resyncRelayers(chainId: number): Promise<void> {
    await Promise.all([...this.relayers.values()].filter((relayer) => relayer.chainId === chainId).map((relayer) => relayer.resync()));
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    if (this.queueSweep !== undefined) clearInterval(this.queueSweep);
    for (const relayer of this.relayers.values()) relayer.stop();
    await Promise.all([...this.watchers.values()].map((watcher) => watcher.stop()));
    for (const chain of this.chains) chain.close();
  }

  /** Resolves when every relay sent so far has settled and every log received so far has been processed. */
  async idle(): Promise<void> {
    await Promise.all([...this.relayers.values()].map((relayer) => relayer.idle()));
    await Promise.all([...this.watchers.values()].map((watcher) => watcher.idle()));
  }
}

function relayerKey(chainId: number, role: RelayerRole): string {
  return `${chainId}:${role}`;
}
