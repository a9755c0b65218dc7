import type { Hex } from 'viem';
import type { OrderCreated, Quote, QuoteResponse, RestClient } from '../../src/clients/rest-client.js';
import type { ChainInfo } from '../../src/contracts/deployment.js';
import type { ReferenceSolverHandle } from '../actors/reference-solvers.js';
import type { StreamRecorder } from '../actors/stream-recorder.js';
import type { Taker } from '../actors/taker.js';
import type { WebhookReceiver } from '../actors/webhook-receiver.js';
import type { InvariantMonitor } from '../invariants/monitor.js';
import type { ChainObserver } from '../observe/chain-observer.js';
import type { Subscriber } from '../observe/events.js';
import type { LedgerObserver } from '../observe/ledger-observer.js';
import type { ObservedTimeline } from '../observe/timeline.js';
import type { ScenarioTarget, Workspace } from '../deployment/target.js';
import { fail } from './errors.js';
import type { ScenarioRandom } from './random.js';
import type { ScenarioInfo } from './scenario-spec.js';

/** What a quote step leaves for later steps. */
export interface QuoteResult {
  name: string;
  taker: Taker;
  /** The body sent: `POST /api/v1/quotes` (token shape) or `POST /api/v1/rfq` (pair shape). */
  request: Record<string, unknown>;
  response: QuoteResponse;
  /** The quote the scenario goes on with (rank 1 unless the step picked another). */
  quote: Quote;
  origin: ChainInfo;
  destination: ChainInfo;
  inputSymbol: string;
  outputSymbol: string;
}

/** What a sign step leaves: the signature and the nonce it commits to. */
export interface SignatureResult {
  quote: string;
  signer: Taker;
  signature: Hex;
  nonce: string;
}

/** An order the scenario follows to its end. */
export interface TrackedOrder {
  name: string;
  orderId: string;
  onchainOrderId: Hex;
  quote: QuoteResult;
  created: OrderCreated;
  /** The request body that created it (replays resend it). */
  body: { quoteId: string; signature: string; nonce: string; user: string };
  /** Which interface created it: Reference A `POST /orders` or Reference B `POST /accept`. */
  generation: 'A' | 'B';
  /** Taker balances just before the order (input on origin, in the lock for ResourceLock; output on destination). */
  before: { input: bigint; output: bigint };
}

export interface ContextInit {
  scenario: ScenarioInfo;
  target: ScenarioTarget;
  random: ScenarioRandom;
  workspace: Workspace;
  rest: RestClient;
  observer: ChainObserver;
  ledger: LedgerObserver | undefined;
  monitor: InvariantMonitor;
  takers: ReadonlyMap<string, Taker>;
  streams: ReadonlyMap<string, StreamRecorder>;
  receivers: ReadonlyMap<string, WebhookReceiver>;
  expectTimeoutMs: number;
  observe: (context: ScenarioContext, order: TrackedOrder) => Promise<ObservedTimeline>;
  /** The target's reference solvers, in account order (scripted through fault switches). */
  referenceSolvers: readonly ReferenceSolverHandle[];
  /** Registers what the runner's teardown takes back, also when the scenario fails (a paused solver resumed…). */
  onTeardown: (undo: () => Promise<unknown>) => void;
}

/**
 * Everything a step can reach: the target, the scenario's workspace and actors, the results of earlier steps by
 * name, and the observers. One per scenario run.
 */
export class ScenarioContext {
  readonly scenario: ScenarioInfo;
  readonly target: ScenarioTarget;
  readonly random: ScenarioRandom;
  readonly workspace: Workspace;
  /** REST client with the scenario workspace's credential. */
  readonly rest: RestClient;
  readonly observer: ChainObserver;
  readonly ledger: LedgerObserver | undefined;
  readonly monitor: InvariantMonitor;
  readonly expectTimeoutMs: number;
  readonly quotes = new Map<string, QuoteResult>();
  readonly signatures = new Map<string, SignatureResult>();
  readonly orders = new Map<string, TrackedOrder>();
  readonly values = new Map<string, unknown>();
  private readonly _takers: ReadonlyMap<string, Taker>;
  private readonly _streams: ReadonlyMap<string, StreamRecorder>;
  private readonly _receivers: ReadonlyMap<string, WebhookReceiver>;
  private readonly _observe: ContextInit['observe'];
  /** The target's reference solvers in account order; may be empty (see `solvers`). */
  readonly referenceSolvers: readonly ReferenceSolverHandle[];
  /** Registers what the runner's teardown takes back, also when the scenario fails. */
  readonly onTeardown: ContextInit['onTeardown'];
  /** Service clock when the scenario began (replay windows, offsets). */
  startedAt = 0;

  constructor(init: ContextInit) {
    this.scenario = init.scenario;
    this.target = init.target;
    this.random = init.random;
    this.workspace = init.workspace;
    this.rest = init.rest;
    this.observer = init.observer;
    this.ledger = init.ledger;
    this.monitor = init.monitor;
    this.expectTimeoutMs = init.expectTimeoutMs;
    this._takers = init.takers;
    this._streams = init.streams;
    this._receivers = init.receivers;
    this._observe = init.observe;
    this.referenceSolvers = init.referenceSolvers;
    this.onTeardown = init.onTeardown;
  }

  taker(label: string): Taker {
    return this._takers.get(label) ?? fail(`no taker "${label}" in this scenario (declare it in actors.takers)`);
  }

  stream(name: string): StreamRecorder {
    return this._streams.get(name) ?? fail(`no stream "${name}" in this scenario`);
  }

  receiver(name: string): WebhookReceiver {
    return this._receivers.get(name) ?? fail(`no webhook receiver "${name}" in this scenario`);
  }

  quote(name: string): QuoteResult {
    return this.quotes.get(name) ?? fail(`no quote step named "${name}" ran before`);
  }

  signature(name: string): SignatureResult {
    return this.signatures.get(name) ?? fail(`no sign step named "${name}" ran before`);
  }

  order(name: string): TrackedOrder {
    return this.orders.get(name) ?? fail(`no order named "${name}" was created before`);
  }

  value<T>(name: string): T {
    if (!this.values.has(name)) fail(`no step stored a value named "${name}"`);
    return this.values.get(name) as T;
  }

  /** The target's reference solvers in account order (the scenario declared `scriptableSolvers`). */
  get solvers(): readonly ReferenceSolverHandle[] {
    if (this.referenceSolvers.length === 0) fail('this target has no reference solvers to script');
    return this.referenceSolvers;
  }

  get streams(): StreamRecorder[] {
    return [...this._streams.values()];
  }

  get receivers(): WebhookReceiver[] {
    return [...this._receivers.values()];
  }

  get subscribers(): Subscriber[] {
    return [...this._streams.values(), ...this._receivers.values()];
  }

  get takers(): Taker[] {
    return [...this._takers.values()];
  }

  chain(index: number): ChainInfo {
    return this.target.manifest.chains[index] ?? fail(`the target has no chain #${index}`);
  }

  /** The order's timeline as every channel sees it right now. */
  observe(order: TrackedOrder): Promise<ObservedTimeline> {
    return this._observe(this, order);
  }
}
