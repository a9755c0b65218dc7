/**
 * What a reference solver can deliver, read from the chain. A solver fills on the destination chain and is paid on
 * the origin chain, so a one-way flow drains the destination: a bookkeeping guess ("claims give the outputs back")
 * keeps quoting after the tokens are gone and then cannot fill. Here the limit is the solver's own token balance on
 * the destination chain (read, cached for a moment and dropped after each fill), less the outputs it owes to orders
 * it won and has not filled yet; and inventory is rebalanced the way a market maker does it: when a chain's balance
 * falls below half the solver's working inventory and another chain holds more than enough, the surplus leaves the
 * rich chain (sent to the bridge's burn address) and the same amount arrives on the poor one (minted by the
 * sandbox faucet, `POST /api/v1/sandbox/faucet`, standing in for the bridge). Both transactions are real and each
 * move is reported as a `rebalanced` event (the sandbox logs it).
 */
import type { Address, Hex } from 'viem';
import type { ChainInfo, TokenInfo } from '../contracts/deployment.js';
import type { SolverWallet } from './solver-wallet.js';

/** Where rebalanced tokens leave a chain: nobody holds its key, so they are gone there (the bridge's burn). */
export const BRIDGE_BURN_ADDRESS: Address = '0x000000000000000000000000000000000000dEaD';
/** A balance read is reused this long (wall ms): one read serves a burst of RFQs; a fill drops it at once. */
const BALANCE_TTL_MS = 250;
/** At most this many whole tokens arrive per bridge mint (the faucet's per-request limit). */
const MAX_MOVE_TOKENS = 10_000_000n;
/** Rebalancing is looked at no more often than this (wall ms). */
const REBALANCE_INTERVAL_MS = 1_000;

/** Mints `wholeTokens` of `symbol` to the solver on `chainId`: the arriving half of a bridge. */
export type BridgeMint = (chainId: number, symbol: string, wholeTokens: bigint) => Promise<void>;

export type InventoryReport =
  | { type: 'rebalanced'; symbol: string; fromChainId: number; toChainId: number; amount: string; txHash: Hex }
  | { type: 'short'; chainId: number; symbol: string; reason: string };

export interface InventoryOptions {
  chains: readonly ChainInfo[];
  wallet: SolverWallet;
  /** Working inventory per chain and token, whole tokens (the strategy's `inventory`). */
  workingTokens: number;
  /** The arriving half of a rebalance; absent (no faucet, production): the solver only declines what it lacks. */
  bridge?: BridgeMint;
  report(event: InventoryReport): void;
}

export class SolverInventory {
  private readonly balances = new Map<string, { value: bigint; at: number; read: Promise<bigint> | undefined }>();
  /** Outputs of won orders not filled yet, per `chainId:token`. */
  private readonly owed = new Map<string, bigint>();
  private rebalancing: Promise<void> | undefined;
  private lastRebalance = 0;
  /** Chains (per token) reported short, so a long drought is logged once, not per RFQ. */
  private readonly short = new Set<string>();

  constructor(private readonly options: InventoryOptions) {}

  private key(chainId: number, token: string): string {
    return `${chainId}:${token.toLowerCase()}`;
  }

  /** The solver's balance of `token` on `chainId`, smallest units (a read no older than a moment). */
  async balance(chainId: number, token: Address): Promise<bigint> {
    const key = this.key(chainId, token);
    const cached = this.balances.get(key);
    if (cached !== undefined && performance.now() - cached.at < BALANCE_TTL_MS) return cached.value;
    if (cached?.read !== undefined) return cached.read;
    const read = this.options.wallet.balanceOf(chainId, token);
    this.balances.set(key, { value: cached?.value ?? 0n, at: cached?.at ?? 0, read });
    try {
      const value = await read;
      this.balances.set(key, { value, at: performance.now(), read: undefined });
      return value;
    } catch (error) {
      this.balances.delete(key);
      throw error;
    }
  }

  /** The balance changed (a fill, a claim, a rebalance): the next question reads the chain again. */
  forget(chainId: number, token: string): void {
    this.balances.delete(this.key(chainId, token));
  }

  /** What it can still promise on `chainId` in `token`: its balance there less what it owes unfilled orders. */
  async deliverable(chainId: number, token: Address): Promise<{ balance: bigint; owed: bigint; left: bigint }> {
    const balance = await this.balance(chainId, token);
    const owed = this.owed.get(this.key(chainId, token)) ?? 0n;
    return { balance, owed, left: balance > owed ? balance - owed : 0n };
  }

  /** A won order's output is owed until it is filled (or the order ends unfilled). */
  owe(chainId: number, token: string, amount: bigint): void {
    const key = this.key(chainId, token);
    this.owed.set(key, (this.owed.get(key) ?? 0n) + amount);
  }

  settle(chainId: number, token: string, amount: bigint): void {
    const key = this.key(chainId, token);
    const left = (this.owed.get(key) ?? 0n) - amount;
    if (left > 0n) this.owed.set(key, left);
    else this.owed.delete(key);
  }

  /** Says once per drought that it cannot deliver on a chain; a recovered balance re-arms the report. */
  noteShort(chainId: number, token: string, reason: string): void {
    const key = this.key(chainId, token);
    if (this.short.has(key)) return;
    this.short.add(key);
    this.options.report({ type: 'short', chainId, symbol: this.token(chainId, token)?.symbol ?? token, reason });
  }

  noteSupplied(chainId: number, token: string): void {
    this.short.delete(this.key(chainId, token));
  }

  private token(chainId: number, address: string): TokenInfo | undefined {
    return this.options.chains.find((c) => c.chainId === chainId)?.tokens.find((t) => t.address.toLowerCase() === address.toLowerCase());
  }

  /**
   * Moves inventory to where it is short, if a bridge exists and another chain can spare it. One at a time, at most
   * once a second unless `force` (a fill waiting for it). Resolves when the move (if any) has landed.
   */
  rebalance(force = false): Promise<void> {
    const bridge = this.options.bridge;
    if (bridge === undefined) return Promise.resolve();
    if (this.rebalancing !== undefined) return this.rebalancing;
    if (!force && performance.now() - this.lastRebalance < REBALANCE_INTERVAL_MS) return Promise.resolve();
    this.lastRebalance = performance.now();
    this.rebalancing = this.moveWhereShort(bridge).finally(() => {
      this.rebalancing = undefined;
    });
    return this.rebalancing;
  }

  private async moveWhereShort(bridge: BridgeMint): Promise<void> {
    const symbols = new Set(this.options.chains.flatMap((c) => c.tokens.map((t) => t.symbol)));
    for (const symbol of symbols) {
      const holdings: { chain: ChainInfo; token: TokenInfo; balance: bigint; target: bigint }[] = [];
      for (const chain of this.options.chains) {
        const token = chain.tokens.find((t) => t.symbol === symbol);
        if (token === undefined) continue;
        this.forget(chain.chainId, token.address);
        const balance = await this.balance(chain.chainId, token.address);
        const owed = this.owed.get(this.key(chain.chainId, token.address)) ?? 0n;
        // What it works with here, plus what it already owes here: the level a rebalance restores.
        const target = BigInt(this.options.workingTokens) * 10n ** BigInt(token.decimals) + owed;
        holdings.push({ chain, token, balance, target });
      }
      for (const poor of holdings.filter((h) => h.balance < h.target / 2n)) {
        const unit = 10n ** BigInt(poor.token.decimals);
        let whole = (poor.target - poor.balance + unit - 1n) / unit;
        if (whole > MAX_MOVE_TOKENS) whole = MAX_MOVE_TOKENS;
        const amount = whole * unit;
        // The richest other chain that keeps its own working level after giving.
        const inUnits = (h: (typeof holdings)[number]) => whole * 10n ** BigInt(h.token.decimals);
        const rich = holdings
          .filter((h) => h !== poor && h.balance - inUnits(h) >= h.target)
          .sort((a, b) => (a.balance > b.balance ? -1 : 1))[0];
        if (rich === undefined) continue;
        const leaving = inUnits(rich);
        // Arriving half first: a bridge that refuses (no faucet, a chain down) must not cost the solver its tokens.
        await bridge(poor.chain.chainId, symbol, whole);
        poor.balance += amount;
        this.forget(poor.chain.chainId, poor.token.address);
        const txHash = await this.options.wallet.transfer(rich.chain.chainId, rich.token.address, BRIDGE_BURN_ADDRESS, leaving);
        rich.balance -= leaving;
        this.forget(rich.chain.chainId, rich.token.address);
        this.noteSupplied(poor.chain.chainId, poor.token.address);
        this.options.report({
          type: 'rebalanced',
          symbol,
          fromChainId: rich.chain.chainId,
          toChainId: poor.chain.chainId,
          amount: whole.toString(),
          txHash,
        });
      }
    }
  }
}
