/**
 * The event types the service publishes (webhooks, WebSocket channels), each with its interface generation and the
 * payload it carries beside `type`, `id` and `timestamp`. Emitters in the service, the dashboard and the
 * conformance suite name types through this map, so a type exists in one place. Clients must still tolerate types
 * they do not know: the spec lets a deployment add its own (see `isKnownEventType`). Plain data, no zod, so the
 * dashboard's bundle can carry it.
 */

/** Reference A (`order.*`, `compliance.event`, …), Reference B (`rfq.*`, `quote.*`, `settlement.*`, `audit.recorded`) or the service's own. */
export type EventGeneration = 'A' | 'B' | 'service';

/** A Reference B settlement as its events carry it (`status` follows the event). */
export interface SettlementEventBody {
  id: string;
  orderId: string;
  status: string;
  corridor: string;
  [field: string]: unknown;
}

/** What each event type carries beside `type`, `id` and `timestamp`. */
export interface EventPayloads {
  'order.created': {
    order: { id: string; pair: string; side: 'buy'; amount: string; corridor: string; fillDeadline: number; status: 'pending' };
  };
  'order.settled': {
    order: { id: string; originTxHash: string | null; destinationTxHash: string | null; amount: string; settledAt: string };
  };
  'order.failed': {
    order: {
      id: string;
      status: 'failed';
      reason: string;
      originTxHash: string | null;
      refundTxHash: string | null;
      amount: string;
      refundedAt: string;
    };
  };
  'compliance.event': {
    compliance: { orderId: string | null; checkType: string; result: string; hash: string; prevHash: string | null };
  };
  'credit.updated': {
    credit: {
      chainId: number;
      token: string;
      before: { available: string; held: string };
      after: { available: string; held: string };
      reason: string;
      subjectId: string | null;
      txHash: string | null;
    };
  };
  'member.added': { member: Record<string, unknown> };
  'member.removed': { member: Record<string, unknown> };
  'rfq.created': { rfq: Record<string, unknown> };
  'quote.received': { quote: { id: string; rfqId: string; price: string; solverId: string; ttl: number; [field: string]: unknown } };
  'quote.accepted': { quote: Record<string, unknown>; settlement: SettlementEventBody };
  'settlement.pending': { settlement: SettlementEventBody };
  'settlement.complete': { settlement: SettlementEventBody };
  'settlement.failed': { settlement: SettlementEventBody };
  'audit.recorded': {
    audit: {
      tradeId: string;
      type: string;
      checkType?: string;
      timestamp: string;
      sequence: number;
      hash: string;
      prevHash: string | null;
    };
  };
  /** Sent only by `POST /webhooks/{id}/test`. */
  'webhook.test': { webhook: { id: string; url: string } };
}

export type EventType = keyof EventPayloads;

/** Every event type with its generation, in the order the service lists them. */
export const EVENT_TYPES = {
  'order.created': { generation: 'A' },
  'order.settled': { generation: 'A' },
  'order.failed': { generation: 'A' },
  'compliance.event': { generation: 'A' },
  'credit.updated': { generation: 'A' },
  'member.added': { generation: 'A' },
  'member.removed': { generation: 'A' },
  'rfq.created': { generation: 'B' },
  'quote.received': { generation: 'B' },
  'quote.accepted': { generation: 'B' },
  'settlement.pending': { generation: 'B' },
  'settlement.complete': { generation: 'B' },
  'settlement.failed': { generation: 'B' },
  'audit.recorded': { generation: 'B' },
  'webhook.test': { generation: 'service' },
} as const satisfies Record<EventType, { generation: EventGeneration }>;

export type EventGenerationOf<T extends EventType> = (typeof EVENT_TYPES)[T]['generation'];

/** Types the outbox stores and delivers: Reference A and B (the service's own test event skips it). */
export type OutboxEventType = { [T in EventType]: EventGenerationOf<T> extends 'A' | 'B' ? T : never }[EventType];

export const EVENT_TYPE_NAMES = Object.keys(EVENT_TYPES) as EventType[];

/** Whether a type from the wire is one this map knows; an unknown one is allowed by the spec and is skipped, not an error. */
export function isKnownEventType(type: unknown): type is EventType {
  return typeof type === 'string' && Object.hasOwn(EVENT_TYPES, type);
}

/** An event as delivered: the envelope and its type's payload. */
export type WireEvent<T extends EventType = EventType> = { type: T; id: string; timestamp: string } & EventPayloads[T];

/**
 * Whether a received event (of any type, known or not) is of `type`, a name the map must know. It narrows only the
 * type: what the payload holds is for the reader to check (the conformance suite judges other deployments' events).
 */
export function isEventOfType<E, T extends EventType>(event: E, type: T): event is E & { type: T } {
  return typeof event === 'object' && event !== null && (event as { type?: unknown }).type === type;
}
