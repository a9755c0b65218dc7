/**
 * Events as subscribers see them: which order an event belongs to, which events end an order, and whether a
 * subscription pattern covers a type.
 */
export interface RecordedEvent {
  id: string;
  type: string;
  /** The order (`ord_…`) the event is about, when it is about one. */
  orderId: string | undefined;
  /** The RFQ (`rfq_…`) a Reference B event belongs to (B events of a trade name its RFQ, not always its order). */
  rfqId: string | undefined;
  body: Record<string, unknown>;
  /** Wall time of the first arrival. */
  receivedAt: number;
}

/** One terminal event per order and generation: A ends with settled/failed, B with complete/failed. */
export const TERMINAL_TYPES: Readonly<Record<string, 'A' | 'B'>> = {
  'order.settled': 'A',
  'order.failed': 'A',
  'settlement.complete': 'B',
  'settlement.failed': 'B',
};

function field(body: Record<string, unknown>, object: string, key: string): string | undefined {
  const inner = body[object];
  if (typeof inner !== 'object' || inner === null) return undefined;
  const value = (inner as Record<string, unknown>)[key];
  return typeof value === 'string' ? value : undefined;
}

/** The order an event names: `order.id`, `compliance.orderId`, or a Reference B settlement's order. */
export function orderIdOf(body: Record<string, unknown>): string | undefined {
  return (
    field(body, 'order', 'id') ??
    field(body, 'compliance', 'orderId') ??
    field(body, 'settlement', 'orderId') ??
    (field(body, 'audit', 'tradeId')?.startsWith('ord_') ? field(body, 'audit', 'tradeId') : undefined) ??
    (typeof body.orderId === 'string' ? body.orderId : undefined)
  );
}

/** The RFQ a Reference B event names: `rfq.id`, `quote.rfqId`, `settlement.rfqId`, `audit.rfqId`. */
export function rfqIdOf(body: Record<string, unknown>): string | undefined {
  return (
    field(body, 'rfq', 'id') ??
    field(body, 'quote', 'rfqId') ??
    field(body, 'settlement', 'rfqId') ??
    field(body, 'audit', 'rfqId') ??
    (typeof body.rfqId === 'string' ? body.rfqId : undefined)
  );
}

/** `order.*`, `*`, `settlement.complete`: does the pattern cover `type`? */
export function patternCovers(pattern: string, type: string): boolean {
  const expression = new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return expression.test(type);
}

/** What a subscriber records and how the invariants read it. */
export interface Subscriber {
  readonly name: string;
  readonly channel: 'ws' | 'webhook';
  /** Distinct events (by id), in order of first arrival. */
  events(): readonly RecordedEvent[];
  /** Whether its subscription covers events of `type`. */
  covers(type: string): boolean;
  /** Expected to miss events (a receiver that gets paused). */
  readonly lossy: boolean;
}
