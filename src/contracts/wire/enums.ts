/**
 * The value lists of the wire's enums, defined once and free of zod so the dashboard's bundle and the protocol
 * layer can read them too. `vocabulary.ts` wraps each in the zod schema the service validates and documents with.
 */

/** How a taker's input is locked: a Permit2 or ERC-3009 escrow deposit, or a resource lock (The Compact). */
export const LOCK_TYPES = ['ResourceLock', 'Permit2Escrow', 'EIP3009Escrow'] as const;
export type LockType = (typeof LOCK_TYPES)[number];

/** Settlement rail of an order. */
export const SETTLEMENT_PATHS = ['direct', 'compliant', 'deferred'] as const;
export type SettlementPath = (typeof SETTLEMENT_PATHS)[number];

/** An order's status on the Reference A wire, following its chain facts. */
export const ORDER_STATUSES = ['Deposited', 'Filled', 'Attested', 'Claimed', 'Refunded'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** What the taker asks the auction to favour when it ranks quotes. */
export const PREFERENCES = ['price', 'speed', 'reliability'] as const;
export type Preference = (typeof PREFERENCES)[number];

export const SWAP_TYPES = ['exactInput', 'exactOutput'] as const;
export type SwapType = (typeof SWAP_TYPES)[number];

export const QUOTE_STATUSES = ['open', 'expired', 'accepted'] as const;
export type QuoteStatus = (typeof QUOTE_STATUSES)[number];
