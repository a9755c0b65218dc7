/**
 * The order shapes are shared with the clients (src/contracts/wire); the page of settlements and the route
 * parameters are the service's own.
 */
import { z } from 'zod';
import { Settlement } from '../../contracts/wire/orders.js';
import { pageSchema } from '../api/pagination.js';

export * from '../../contracts/wire/orders.js';
export { OrderStatus, SettlementPath } from '../../contracts/wire/vocabulary.js';

export const SettlementPage = pageSchema(Settlement);
export const OrderIdParams = z.object({ orderId: z.string().min(1).max(100) });
export const SettlementParams = z.object({ workspaceId: z.string().min(1).max(100), orderId: z.string().min(1).max(100) });
