/** The crash campaign's plan: which lifecycles run, where each one is killed, and what the campaign reports. */
import type { Address } from 'viem';
import type { ChainInfo } from '../../src/contracts/deployment.js';
import type { LockType } from '../../src/contracts/wire/enums.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { SeededRandom } from '../support/random.js';

export type Rail = 'direct' | 'compliant';
export type Outcome = 'settle' | 'refund';
/** Where in a lifecycle the service is killed (then a random delay of 0–`maxDelayMs`). */
export type KillPoint = 'quote' | 'order' | 'deposited' | 'filled' | 'attested' | 'refund';

export interface LifecyclePlan {
  index: number;
  lockType: LockType;
  rail: Rail;
  outcome: Outcome;
  /** Origin chain index in the manifest (the other chain is the destination). */
  origin: 0 | 1;
  taker: number;
  kill?: { at: KillPoint; delayMs: number };
  /**
   * The chain campaign: a `chain.reorg` switch takes this lifecycle's fill away (the solver fills, the reorg removes
   * it), so the order goes back to Deposited and must refund at expiry like a refund lifecycle.
   */
  reorg?: boolean;
  /** The chain campaign: the destination chain is halted (`chain.halt`) for 400 ms of wall time around the order. */
  halt?: boolean;
}

export interface LifecycleResult {
  plan: LifecyclePlan;
  orderId?: string;
  /** The 201 reached the taker (else its order was found in the store by quote). */
  acknowledged: boolean;
  /** The kill took the 201; the order was found in the store by its quote. */
  unacknowledged?: boolean;
  finalStatus?: string;
  killed: boolean;
  wallMs: number;
  error?: string;
}

export interface CrashOptions {
  sandbox: Sandbox;
  /** The campaign's folder (the service store lives in `<dir>/service/`). */
  dir: string;
  lifecycles: number;
  seed: number;
  /** Share of lifecycles with a kill (default 0.7). */
  killShare?: number;
  /**
   * `kill` (default): each planned kill is a SIGKILL of the service and a restart. `rpc`: it is a `chain.rpc-drop`
   * fault switch instead (the chain campaign): the service's JSON-RPC calls to one chain fail for a few calls.
   */
  faults?: 'kill' | 'rpc';
  /**
   * The failover campaign: the service is `instances` processes on this Postgres database (a cluster, as
   * `sandbox up --instances` runs it), and each planned kill is a SIGKILL of the instance holding the singleton work;
   * another takes it over and the cluster starts a new worker.
   */
  failover?: {
    databaseUrl: string;
    instances: number;
    /** After the lifecycles one at a time: this many at once (settling escrow orders), the holder killed meanwhile. */
    inFlight?: number;
    /** How many SIGKILLs of the holder land while those are in flight (seeded moments). */
    inFlightKills?: number;
  };
  /** Told every secret the campaign handles (keys, webhook signing key), for the log and store scans. */
  onSecret?: (kind: string, value: string) => void;
  log?: (line: string) => void;
}

export interface CrashFigures {
  lifecycles: number;
  settled: number;
  refunded: number;
  kills: number;
  /** `rpc` mode: fault switches set, and how often they fired (JSON-RPC calls that failed). */
  rpcFaultsSet: number;
  rpcFaultsFired: number;
  /** `rpc` mode: chain.reorg switches set, and fills they reorganised away. */
  reorgsSet: number;
  reorgsFired: number;
  /** `rpc` mode: destination chains halted (and resumed) around an order. */
  halts: number;
  restarts: number;
  crashes: number;
  lost: number;
  stuck: number;
  duplicateRelays: number;
  /** Every relay sent more than once, by kind (only `openFor` must never repeat). */
  repeatedRelays: Record<string, number>;
  relaysByKind: Record<string, number>;
  duplicateTerminalEvents: number;
  /** Orders whose 201 never reached the taker because of a kill (found by quote in the store). */
  unacknowledged: number;
  /** Lifecycles that ended another way than planned (e.g. planned to settle, refunded). */
  outcomeMismatches: number;
  undelivered: number;
  webhookEvents: number;
  webhookRedeliveries: number;
  webhookRejected: number;
  ledgerVerifies: boolean;
  ledgerEntries: number;
  /** The failover campaign: ms from each SIGKILL of the singleton holder until another instance held the work. */
  takeoverMs: number[];
  /**
   * The failover campaign: one `POST /quotes` with an Idempotency-Key, sent again after every take-over (through the
   * one port, so to either instance); each answer must be the first one, byte for byte.
   */
  idempotencyReplays: number;
  idempotencyMismatches: number;
  /** The failover campaign's burst: lifecycles that were in flight together, and the kills that landed among them. */
  inFlight: number;
  inFlightKills: number;
  missedBlocks: number;
  wallMs: number;
  results: LifecycleResult[];
  problems: string[];
  /** Observations that are not failures (repeated refunds or oracle legs after a kill). */
  notes: string[];
}

/** The order lifecycles take the lock types in (lifecycle i gets entry i mod 3): escrows first, as campaigns always ran. */
export const LOCK_TYPE_ROTATION: readonly LockType[] = ['Permit2Escrow', 'EIP3009Escrow', 'ResourceLock'];
export const KILL_POINTS: readonly KillPoint[] = ['quote', 'order', 'order', 'deposited', 'filled', 'attested'];
export const TERMINAL = new Set(['Claimed', 'Refunded']);
export const LIFECYCLE_TIMEOUT_MS = 45_000;
export const ESCROW_STATUS_ABI = [
  {
    type: 'function',
    name: 'orderStatus',
    stateMutability: 'view',
    inputs: [{ name: 'orderId', type: 'bytes32' }],
    outputs: [{ name: '', type: 'uint8' }],
  },
] as const;
export const ESCROW_STATUS = ['None', 'Deposited', 'Claimed', 'Refunded'] as const;

/** Mixed lock types, rails and outcomes (every combination appears in 20), kill points drawn from the seed. */
export function planLifecycles(count: number, seed: number, killShare: number, reorgs = false): LifecyclePlan[] {
  const random = new SeededRandom(seed);
  const plans: LifecyclePlan[] = [];
  for (let index = 0; index < count; index++) {
    const outcome: Outcome = index % 4 === 3 ? 'refund' : 'settle';
    const plan: LifecyclePlan = {
      index,
      lockType: LOCK_TYPE_ROTATION[index % 3]!,
      rail: Math.floor(index / 3) % 2 === 0 ? 'direct' : 'compliant',
      outcome,
      origin: (Math.floor(index / 6) % 2) as 0 | 1,
      // Takers 0–3; the fuzz and load campaigns' service (another store, so other nonces) uses taker 4.
      taker: index % 4,
      // Every other refund lifecycle (#3, #11, #19, …) refunds because a reorg took its fill, not for want of one.
      ...(reorgs && index % 8 === 3 ? { reorg: true } : {}),
      // And every eighth settle lifecycle (#5, #13, …) meets a halted destination chain.
      ...(reorgs && index % 8 === 5 ? { halt: true } : {}),
    };
    if (random.chance(killShare)) {
      const points =
        outcome === 'refund' ? [...KILL_POINTS.filter((p) => p !== 'filled' && p !== 'attested'), 'refund' as const] : KILL_POINTS;
      const at = random.pick(points);
      // An order request is answered within tens of milliseconds: kills aimed at it land early, inside its work.
      plan.kill = { at, delayMs: at === 'order' ? random.int(0, 40) : random.int(0, 150) };
    }
    plans.push(plan);
  }
  return plans;
}

export function usdcOf(chain: ChainInfo): Address {
  return chain.tokens.find((token) => token.symbol === 'USDC')!.address as Address;
}
