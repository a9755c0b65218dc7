import { type Abi, type Address, BlockNotFoundError, type Hex, type Log, decodeEventLog, getAddress } from 'viem';
import { InputOracleArtifact } from '../../src/contracts/artifacts/InputOracle.js';
import { InputSettlerCompactArtifact } from '../../src/contracts/artifacts/InputSettlerCompact.js';
import { InputSettlerEscrowArtifact } from '../../src/contracts/artifacts/InputSettlerEscrow.js';
import { OutputSettlerArtifact } from '../../src/contracts/artifacts/OutputSettler.js';
import { outputHash } from '../../src/contracts/fill.js';
import type { MandateOutput } from '../../src/contracts/order.js';
import type { ChainInfo } from '../../src/contracts/deployment.js';
import { chainClient, contractOf, tokenBalance } from '../actors/chain-clients.js';
import { EscrowLedger } from './escrow-accounting.js';

export type ChainFactKind = 'Open' | 'OutputFilled' | 'AttestationRecorded' | 'Finalised' | 'Refunded';

/** One log about an order, on any chain. */
export interface ChainFact {
  kind: ChainFactKind;
  chain: string;
  chainId: number;
  /** On-chain order id, lowercase hex. */
  orderId: Hex;
  blockNumber: bigint;
  logIndex: number;
  txHash: Hex;
  /** Block timestamp, Unix seconds. */
  timestamp: number;
  /** OutputFilled / Finalised: the solver identifier (bytes32). */
  solver?: Hex;
  /** Finalised: which input settler. */
  settler?: 'escrow' | 'compact';
  /** Open: the order's user. */
  user?: Address;
}

/** The lifecycle's causal order: each step needs the one before it (a refund needs nothing but time). */
const RANK: Record<ChainFactKind, number> = { Open: 0, OutputFilled: 1, AttestationRecorded: 2, Finalised: 3, Refunded: 3 };
/** Chains agree on the time to within a second: only a larger gap orders facts of different chains by time. */
const CLOCK_SLACK_S = 1;

/**
 * Facts of one order in the order they happened. Causal steps keep the lifecycle's order (block times of two chains
 * are not comparable to the second); a fill and a refund, which do not depend on each other, go by time.
 */
export function compareFacts(a: ChainFact, b: ChainFact): number {
  const independent = (a.kind === 'Refunded' && b.kind === 'OutputFilled') || (a.kind === 'OutputFilled' && b.kind === 'Refunded');
  if (independent && Math.abs(a.timestamp - b.timestamp) > CLOCK_SLACK_S) return a.timestamp - b.timestamp;
  return RANK[a.kind] - RANK[b.kind] || a.timestamp - b.timestamp || a.chainId - b.chainId || a.logIndex - b.logIndex;
}

interface WatchedChain {
  info: ChainInfo;
  escrow: Address;
  compact: Address;
  outputSettler: Address;
  inputOracle: Address;
  cursor: bigint;
  /** Hash of the block at the cursor: when the chain has another block there, it was reorganised. */
  cursorHash: string | undefined;
  /**
   * The head when this observer first looked: what happened before belongs to earlier runs against the target, so
   * logs are read from the block after it, and a re-read after a reorganisation starts there again. Reading from
   * block 0 instead made every pass of a long-lived sandbox's observer as long as its whole history (2.2 s after 45
   * catalogue runs, once per run and again at every re-read).
   */
  sessionStart: bigint | undefined;
  ledger: EscrowLedger;
  /** Escrow balance per token at the cursor. */
  balances: Map<string, bigint>;
  /** What the escrow held that the visible history does not explain (a target observed mid-life). */
  baselines: Map<string, bigint> | undefined;
  compactClaims: Map<string, number>;
}

export interface EscrowAccount {
  chain: string;
  token: Address;
  symbol: string;
  escrowed: bigint;
  claimed: bigint;
  refunded: bigint;
  open: bigint;
  balance: bigint;
  baseline: bigint;
}

/**
 * Reads the settlement contracts' logs of every chain, incrementally (from the block where the session began), and
 * the escrow's token balances at the same block: the on-chain side of every timeline and of the invariants.
 */
export class ChainObserver {
  private readonly chains: WatchedChain[];
  private readonly facts = new Map<string, ChainFact[]>();
  private readonly fills = new Map<string, { count: number; paid: bigint; amount: bigint }>();
  private readonly blockTimes = new Map<string, number>();
  readonly problems: string[] = [];
  readonly notes: string[] = [];
  private syncing: Promise<void> | undefined;

  constructor(chains: readonly ChainInfo[]) {
    this.chains = chains.map((info) => ({
      info,
      escrow: contractOf(info, 'InputSettlerEscrow'),
      compact: contractOf(info, 'InputSettlerCompact'),
      outputSettler: contractOf(info, 'OutputSettler'),
      inputOracle: contractOf(info, 'InputOracle'),
      cursor: -1n,
      cursorHash: undefined,
      sessionStart: undefined,
      ledger: new EscrowLedger(),
      balances: new Map(),
      baselines: undefined,
      compactClaims: new Map(),
    }));
  }

  /** Catches up with every chain. Concurrent callers share one pass. */
  sync(): Promise<void> {
    this.syncing ??= (async () => {
      // A reorganised chain may have taken logs already recorded: everything is read again from the start (a
      // devnet's history is short), so timelines and invariants see the chain as it is now.
      if ((await Promise.all(this.chains.map((chain) => this.reorganised(chain)))).some(Boolean)) this.forget();
      for (let attempt = 1; ; attempt++) {
        try {
          await Promise.all(this.chains.map((chain) => this.syncChain(chain)));
          return;
        } catch (error) {
          // A block named by a log just read can be gone a moment later (a reorganisation between the two reads):
          // the pass saw a chain that no longer exists, so it starts again from the start, a few times at most.
          if (!(error instanceof BlockNotFoundError) || attempt >= 5) throw error;
          this.notes.push(`reorganised during a read (${error.shortMessage}); the logs were read again`);
          this.forget();
        }
      }
    })().then(
      () => {
        this.syncing = undefined;
      },
      (error: unknown) => {
        this.syncing = undefined;
        throw error;
      },
    );
    return this.syncing;
  }

  /**
   * Reads every chain again from the start. Logs and balances are separate reads of a live chain, so one pass can
   * mix two states of it (a reorganisation between the reads); a violation seen in one pass is confirmed by a
   * second, whole pass before it is reported.
   */
  async reread(): Promise<void> {
    await this.syncing?.catch(() => undefined);
    this.forget();
    await this.sync();
  }

  private async reorganised(chain: WatchedChain): Promise<boolean> {
    if (chain.cursorHash === undefined) return false;
    const block = await chainClient(chain.info)
      .getBlock({ blockNumber: chain.cursor })
      .catch(() => undefined);
    if (block?.hash === chain.cursorHash) return false;
    this.notes.push(`${chain.info.name}: reorganised below block ${chain.cursor}; its logs were read again`);
    return true;
  }

  private forget(): void {
    // Everything here is derived from the logs since the session began, which are read again. The baselines (the
    // escrow's balance at that block, read at the first look) stay: the state at an old block may no longer be
    // there to read (a node restarted from a saved state keeps recent blocks only), and a reorganisation deep enough
    // to reach below the session's first block would have to happen in its first moments.
    this.problems.length = 0;
    this.facts.clear();
    this.fills.clear();
    this.blockTimes.clear();
    for (const chain of this.chains) {
      chain.cursor = chain.sessionStart ?? -1n;
      chain.cursorHash = undefined;
      chain.ledger = new EscrowLedger();
      chain.balances = new Map();
      chain.compactClaims = new Map();
    }
  }

  private async syncChain(chain: WatchedChain): Promise<void> {
    const client = chainClient(chain.info);
    const latest = await client.getBlock({ blockTag: 'latest' });
    const head = latest.number;
    if (chain.sessionStart === undefined) {
      // The first look: the session begins at this block, and what the escrow holds there is its baseline.
      chain.sessionStart = head;
      chain.cursor = head;
      chain.cursorHash = latest.hash;
      chain.balances = await this.escrowBalances(chain, head);
      this.setBaselines(chain, chain.balances);
      return;
    }
    if (head <= chain.cursor) return;
    const logs = await client.getLogs({
      address: [chain.escrow, chain.compact, chain.outputSettler, chain.inputOracle],
      fromBlock: chain.cursor + 1n,
      toBlock: head,
    });
    for (const log of logs) await this.record(chain, log);
    chain.balances = await this.escrowBalances(chain, head);
    chain.cursor = head;
    chain.cursorHash = latest.hash;
  }

  /** The escrow's balance of every token of the chain at `block`, keyed by lower-case token address. */
  private async escrowBalances(chain: WatchedChain, block: bigint): Promise<Map<string, bigint>> {
    const balances = await Promise.all(
      chain.info.tokens.map(
        async (token) =>
          [token.address.toLowerCase(), await tokenBalance(chain.info, token.address as Address, chain.escrow, block)] as const,
      ),
    );
    return new Map(balances);
  }

  /** What the escrow held when the session began: earlier runs' open orders, which this session's logs do not show. */
  private setBaselines(chain: WatchedChain, balances: Map<string, bigint>): void {
    chain.baselines = new Map(balances);
    for (const [token, baseline] of chain.baselines) {
      if (baseline !== 0n) this.notes.push(`${chain.info.name}: the escrow held ${baseline} of ${token} before the visible history began`);
    }
  }

  private async timestamp(chain: WatchedChain, blockNumber: bigint): Promise<number> {
    const key = `${chain.info.chainId}:${blockNumber}`;
    let time = this.blockTimes.get(key);
    if (time === undefined) {
      time = Number((await chainClient(chain.info).getBlock({ blockNumber })).timestamp);
      this.blockTimes.set(key, time);
    }
    return time;
  }

  private async record(chain: WatchedChain, log: Log): Promise<void> {
    const address = getAddress(log.address);
    const abi: Abi =
      address === getAddress(chain.escrow)
        ? InputSettlerEscrowArtifact.abi
        : address === getAddress(chain.compact)
          ? InputSettlerCompactArtifact.abi
          : address === getAddress(chain.outputSettler)
            ? OutputSettlerArtifact.abi
            : InputOracleArtifact.abi;
    let decoded: { eventName: string; args: Record<string, unknown> };
    try {
      decoded = decodeEventLog({ abi, data: log.data, topics: log.topics }) as unknown as typeof decoded;
    } catch {
      return;
    }
    const base = {
      chain: chain.info.name,
      chainId: chain.info.chainId,
      blockNumber: log.blockNumber ?? 0n,
      logIndex: log.logIndex ?? 0,
      txHash: (log.transactionHash ?? '0x') as Hex,
      timestamp: await this.timestamp(chain, log.blockNumber ?? 0n),
    };
    const args = decoded.args;
    const orderId = String(args.orderId ?? '').toLowerCase() as Hex;
    switch (decoded.eventName) {
      case 'Open': {
        // Upstream's Open(bytes32 indexed, StandardOrder): the order arrives decoded as a struct.
        const order = args.order as { user: Address; inputs: readonly (readonly [bigint, bigint])[] };
        const inputs = order.inputs.map(([id, amount]) => [`0x${id.toString(16).padStart(40, '0')}`, amount] as const);
        chain.ledger.open(orderId, order.user, inputs);
        this.add({ ...base, kind: 'Open', orderId, user: order.user });
        return;
      }
      case 'Finalised': {
        const settler = address === getAddress(chain.escrow) ? 'escrow' : 'compact';
        if (settler === 'escrow') chain.ledger.close(orderId, 'claimed');
        else {
          const claims = (chain.compactClaims.get(orderId) ?? 0) + 1;
          chain.compactClaims.set(orderId, claims);
          if (claims > 1) this.problems.push(`${chain.info.name}: compact ${orderId} was claimed ${claims} times`);
        }
        this.add({ ...base, kind: 'Finalised', orderId, solver: args.solver as Hex, settler });
        return;
      }
      case 'Refunded':
        chain.ledger.close(orderId, 'refunded');
        this.add({ ...base, kind: 'Refunded', orderId });
        return;
      case 'OutputFilled': {
        const output = args.output as MandateOutput;
        const key = `${chain.info.chainId}:${orderId}:${outputHash(output)}`;
        const fill = this.fills.get(key) ?? { count: 0, paid: 0n, amount: output.amount };
        fill.count += 1;
        fill.paid += args.finalAmount as bigint;
        this.fills.set(key, fill);
        this.add({ ...base, kind: 'OutputFilled', orderId, solver: args.solver as Hex });
        return;
      }
      case 'AttestationRecorded':
        this.add({ ...base, kind: 'AttestationRecorded', orderId });
        return;
    }
  }

  private add(fact: ChainFact): void {
    const list = this.facts.get(fact.orderId) ?? [];
    list.push(fact);
    list.sort(compareFacts);
    this.facts.set(fact.orderId, list);
  }

  /** Everything seen about one on-chain order, in lifecycle order. */
  factsOf(onchainOrderId: string): readonly ChainFact[] {
    return this.facts.get(onchainOrderId.toLowerCase()) ?? [];
  }

  /** Escrow opens of `user` seen so far (refused orders must add none). */
  opensBy(user: string): number {
    let count = 0;
    for (const facts of this.facts.values())
      count += facts.filter((f) => f.kind === 'Open' && f.user?.toLowerCase() === user.toLowerCase()).length;
    return count;
  }

  /** Per chain and token: the accounting identity's terms, as of the last sync. */
  escrowAccounts(): EscrowAccount[] {
    return this.chains.flatMap((chain) =>
      chain.info.tokens.map((token) => {
        const key = token.address.toLowerCase();
        const totals = chain.ledger.totals.get(key) ?? { escrowed: 0n, claimed: 0n, refunded: 0n };
        const balance = chain.balances.get(key) ?? 0n;
        const baseline = chain.baselines?.get(key) ?? 0n;
        return {
          chain: chain.info.name,
          token: token.address as Address,
          symbol: token.symbol,
          ...totals,
          open: balance - baseline,
          balance,
          baseline,
        };
      }),
    );
  }

  /** Violations of escrow accounting and single payouts, as of the last sync. */
  escrowViolations(): string[] {
    const violations: string[] = [];
    for (const chain of this.chains) {
      violations.push(...chain.ledger.problems.map((p) => `${chain.info.name}: ${p}`));
      if (chain.ledger.unknownClosings > 0) continue;
      for (const token of chain.info.tokens) {
        const key = token.address.toLowerCase();
        const problem = chain.ledger.check(key, chain.balances.get(key) ?? 0n, chain.baselines?.get(key) ?? 0n);
        if (problem !== undefined) violations.push(`${chain.info.name} ${token.symbol}: ${problem}`);
      }
    }
    return violations.concat(this.problems);
  }

  /** Chains whose accounting cannot be checked (orders opened before the visible history closed since). */
  inconclusive(): string[] {
    return this.chains
      .filter((chain) => chain.ledger.unknownClosings > 0)
      .map((chain) => `${chain.info.name}: ${chain.ledger.unknownClosings} order(s) opened before the visible history were closed`);
  }

  /** Outputs filled more than once, or paid more than their amount. */
  /**
   * Orders the escrow paid to their solver (`Finalised`) with no `OutputFilled` of theirs on any chain: only an oracle
   * that recorded a fill that never happened allows it. Keyed by on-chain order id.
   */
  unfilledPayouts(): Map<string, string> {
    const unpaid = new Map<string, string>();
    const since = new Map(this.chains.map((chain) => [chain.info.chainId, chain.sessionStart ?? -1n]));
    for (const [orderId, facts] of this.facts) {
      // Payouts of earlier runs against the same target (a lying-oracle scenario of yesterday) are not this run's.
      const paid = facts.find((fact) => fact.kind === 'Finalised' && fact.blockNumber > (since.get(fact.chainId) ?? -1n));
      if (paid === undefined || facts.some((fact) => fact.kind === 'OutputFilled')) continue;
      unpaid.set(orderId.toLowerCase(), `order ${orderId} was paid to its solver (tx ${paid.txHash}) and never filled on chain`);
    }
    return unpaid;
  }

  fillViolations(): string[] {
    const violations: string[] = [];
    for (const [key, fill] of this.fills) {
      if (fill.count > 1) violations.push(`output ${key} filled ${fill.count} times`);
      if (fill.paid > fill.amount) violations.push(`output ${key} paid ${fill.paid}, more than its amount ${fill.amount}`);
    }
    return violations;
  }
}
