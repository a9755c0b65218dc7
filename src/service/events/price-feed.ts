import { z } from 'zod';

export const PRICE_TIERS = ['retail', 'standard', 'institutional'] as const;
export type PriceTier = (typeof PRICE_TIERS)[number];

/** One indicative price, as the auction learns it from a live solver quote. */
export interface PriceUpdate {
  /** Canonical corridor id, e.g. `alpha:USDC-beta:USDC`. */
  corridor: string;
  /** Origin chain name (as in corridor ids). */
  srcChain: string;
  inputToken: string;
  dstChain: string;
  outputToken: string;
  tier: PriceTier;
  /** Decimal string, token-decimal precision preserved (never a float). */
  price: string;
  /** Unix milliseconds (clock time) when the price was observed. */
  timestamp: number;
  /** Solver id or aggregator id. */
  source: string;
  /** Validity window: after `timestamp + ttlMs` the price is stale. */
  ttlMs: number;
}

const PriceUpdateSchema = z.strictObject({
  corridor: z.string().min(1).max(200),
  srcChain: z.string().min(1).max(100),
  inputToken: z.string().min(1).max(100),
  dstChain: z.string().min(1).max(100),
  outputToken: z.string().min(1).max(100),
  tier: z.enum(PRICE_TIERS),
  price: z.string().regex(/^(0|[1-9][0-9]*)(\.[0-9]+)?$/, 'must be a non-negative decimal string'),
  timestamp: z.number().int().nonnegative(),
  source: z.string().min(1).max(200),
  ttlMs: z.number().int().positive(),
});

export type PriceListener = (update: PriceUpdate) => void;

/**
 * The live price feed behind the `prices:` WebSocket topics. The auction publishes what solvers quote; the
 * taker stream fans it out. Prices are not events: they carry no `evt_` id, are not stored and not replayed.
 * The last price per corridor and tier is kept so a new subscriber starts with a value rather than silence.
 */
export class PriceFeed {
  private readonly listeners = new Set<PriceListener>();
  private readonly _latest = new Map<string, PriceUpdate>();

  /** Throws a TypeError for a malformed update (a bug in the caller, not a client error). */
  publish(update: PriceUpdate): void {
    const checked = PriceUpdateSchema.safeParse(update);
    if (!checked.success)
      throw new TypeError(`PriceFeed.publish: ${checked.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`);
    const value = checked.data;
    this._latest.set(`${value.corridor}|${value.tier}`, value);
    for (const listener of this.listeners) {
      try {
        listener(value);
      } catch {
        // A failing subscriber must not stop the auction or the other subscribers.
      }
    }
  }

  subscribe(listener: PriceListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Latest prices of a corridor (every tier, or one), stale ones included: callers judge freshness by their clock. */
  latest(corridor: string, tier?: PriceTier): PriceUpdate[] {
    const tiers = tier === undefined ? PRICE_TIERS : [tier];
    return tiers.flatMap((t) => {
      const found = this._latest.get(`${corridor}|${t}`);
      return found === undefined ? [] : [found];
    });
  }
}
