/**
 * One order as the page knows it, assembled from whatever answered: the order detail, the workspace settlement,
 * and the events on the WebSocket. Pure: unit-tested in Node.
 */
import { isEventOfType } from '../contracts/event-types.js';
import { parseTime } from './format.js';
import { type Json, isObject, num, obj, str } from './read.js';

export interface OrderView {
  id: string;
  status?: string;
  corridor?: string;
  lockType?: string;
  /** Settlement rail: `direct` or `compliant`. */
  rail?: string;
  inputAmount?: string;
  outputAmount?: string;
  inputToken?: string;
  outputToken?: string;
  originChainId?: number;
  destinationChainId?: number;
  quoteId?: string;
  rfqId?: string;
  workspaceId?: string;
  /** Clock milliseconds. */
  createdAt?: number;
  fillDeadline?: number;
  expires?: number;
  settledAt?: number;
  refundedAt?: number;
  originTxHash?: string;
  destinationTxHash?: string;
  oracleAttestationHash?: string;
  claimTxHash?: string;
  refundTxHash?: string;
  /** Clock ms of the last change the page saw (the table lists the latest first). */
  seenAt?: number;
}

const STATUS_RANK: Record<string, number> = { Deposited: 1, Filled: 2, Attested: 3, Claimed: 4, Settled: 4, Refunded: 4 };

/** Claimed and Refunded end an order; nothing follows them. */
export function isTerminal(status: string | undefined): boolean {
  return status === 'Claimed' || status === 'Refunded' || status === 'Settled';
}

export function statusRank(status: string | undefined): number {
  return status === undefined ? 0 : (STATUS_RANK[status] ?? 0);
}

/** The settlement's `Settled` is the order's `Claimed`: the table speaks order statuses. */
function orderStatus(status: string | undefined): string | undefined {
  return status === 'Settled' ? 'Claimed' : status;
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * Newer knowledge wins field by field. Status is special: an event may arrive after a fresher read, so a patch
 * never moves the status backwards unless it is authoritative (a detail read of the order itself).
 */
export function mergeOrder(current: OrderView | undefined, patch: OrderView, authoritative = false): OrderView {
  if (current === undefined) return { ...definedOnly(patch), id: patch.id };
  const merged: OrderView = { ...current, ...definedOnly(patch) };
  if (!authoritative && statusRank(patch.status) < statusRank(current.status)) merged.status = current.status;
  return merged;
}

function fromCommonFields(body: Json, id: string): OrderView {
  return {
    id,
    status: orderStatus(str(body, 'status', 'state')),
    corridor: str(body, 'corridor', 'corridorId'),
    lockType: str(body, 'lockType'),
    rail: str(body, 'settlementPath', 'rail'),
    inputAmount: str(body, 'inputAmount'),
    outputAmount: str(body, 'outputAmount'),
    inputToken: str(body, 'inputToken'),
    outputToken: str(body, 'outputToken'),
    originChainId: num(body, 'originChainId'),
    destinationChainId: num(body, 'destinationChainId'),
    quoteId: str(body, 'quoteId'),
    rfqId: str(body, 'rfqId'),
    workspaceId: str(body, 'workspaceId'),
    createdAt: parseTime(body.createdAt),
    fillDeadline: parseTime(body.fillDeadline),
    expires: parseTime(body.expires ?? body.expiresAt),
    settledAt: parseTime(body.settledAt),
    refundedAt: parseTime(body.refundedAt),
    originTxHash: str(body, 'originTxHash', 'escrowTxHash'),
    destinationTxHash: str(body, 'destinationTxHash'),
    oracleAttestationHash: str(body, 'oracleAttestationHash'),
    claimTxHash: str(body, 'claimTxHash'),
    refundTxHash: str(body, 'refundTxHash'),
  };
}

/** `GET /api/v1/orders/{id}` (and a create response, or an item of an order list). */
export function orderFromDetail(body: unknown): OrderView | undefined {
  const id = str(body, 'orderId', 'id');
  if (id === undefined || !isObject(body)) return undefined;
  return fromCommonFields(body, id);
}

/** An item of `GET /api/v1/settlements` or `GET /api/v1/workspaces/{ws}/settlements/{orderId}`. */
export function orderFromSettlement(body: unknown): OrderView | undefined {
  const id = str(body, 'orderId');
  if (id === undefined || !isObject(body)) return undefined;
  const view = fromCommonFields(body, id);
  const order = obj(body, 'order');
  return order === undefined ? view : mergeOrder(view, fromCommonFields(order, id));
}

/** What an event says about its order (Reference A `order.*`, or B `settlement.*` when it names the order). */
export function orderFromEvent(event: unknown): OrderView | undefined {
  if (!isObject(event)) return undefined;
  const order = obj(event, 'order', 'settlement');
  const id = str(order, 'id', 'orderId') ?? str(event, 'orderId') ?? str(obj(event, 'compliance'), 'orderId');
  if (id === undefined || !id.startsWith('ord_')) return undefined;
  const view = order === undefined ? { id } : fromCommonFields(order, id);
  // Reference A's event status is `pending`, not an order status: the type says more.
  if (view.status !== undefined && statusRank(view.status) === 0) delete view.status;
  if (isEventOfType(event, 'order.settled')) view.status = 'Claimed';
  if (isEventOfType(event, 'order.failed')) view.status = 'Refunded';
  return view;
}
