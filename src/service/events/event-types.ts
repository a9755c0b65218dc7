/**
 * The event types the service publishes, by interface generation. Webhook registrations and WebSocket channel
 * patterns are checked against this list so that a typo (`order.setled`) is a 400 rather than silence. Modules
 * that introduce a new type add it with `registerEventType`.
 */
const types = new Map<string, 'A' | 'B' | 'service'>([
  ['order.created', 'A'],
  ['order.settled', 'A'],
  ['order.failed', 'A'],
  ['compliance.event', 'A'],
  ['credit.updated', 'A'],
  ['member.added', 'A'],
  ['member.removed', 'A'],
  ['rfq.created', 'B'],
  ['quote.received', 'B'],
  ['quote.accepted', 'B'],
  ['settlement.pending', 'B'],
  ['settlement.complete', 'B'],
  ['settlement.failed', 'B'],
  ['audit.recorded', 'B'],
  // Sent only by `POST /webhooks/{id}/test`.
  ['webhook.test', 'service'],
]);

export function registerEventType(type: string, generation: 'A' | 'B' | 'service'): void {
  types.set(type, generation);
}

export function knownEventTypes(): string[] {
  return [...types.keys()];
}
