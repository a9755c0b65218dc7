/** The zod schemas of the wire's enums (values in enums.ts): the service validates and documents with these. */
import { z } from 'zod';
import { LOCK_TYPES, ORDER_STATUSES, PREFERENCES, QUOTE_STATUSES, SETTLEMENT_PATHS, SWAP_TYPES } from './enums.js';

import type * as Enum from './enums.js';

// Each name is both the schema and its type, as zod schemas usually are; the type is the enums.ts one.
export type LockType = Enum.LockType;
export type SettlementPath = Enum.SettlementPath;
export type OrderStatus = Enum.OrderStatus;
export type Preference = Enum.Preference;
export type SwapType = Enum.SwapType;
export type QuoteStatus = Enum.QuoteStatus;

export const LockType = z.enum(LOCK_TYPES);
export const SettlementPath = z.enum(SETTLEMENT_PATHS);
export const OrderStatus = z.enum(ORDER_STATUSES);
export const Preference = z.enum(PREFERENCES).meta({ description: 'Solver selection bias.' });
export const SwapType = z.enum(SWAP_TYPES).meta({
  description: '`exactInput`: the input amount is fixed and solvers quote outputs; `exactOutput`: the reverse.',
});
export const QuoteStatus = z.enum(QUOTE_STATUSES);
