import { type RecordedEvent, TERMINAL_TYPES } from '../observe/events.js';

/** Terminal events per order and generation (`A:ord_…`), distinct by id. */
export function terminalEvents(events: readonly RecordedEvent[]): Map<string, RecordedEvent[]> {
  const byOrder = new Map<string, RecordedEvent[]>();
  for (const event of events) {
    const generation = TERMINAL_TYPES[event.type];
    if (generation === undefined || event.orderId === undefined) continue;
    const key = `${generation}:${event.orderId}`;
    const list = byOrder.get(key) ?? [];
    if (!list.some((e) => e.id === event.id)) list.push(event);
    byOrder.set(key, list);
  }
  return byOrder;
}

/** Orders with more than one terminal event of a generation (after de-duplication by id): each is a violation. */
export function duplicateTerminalEvents(subscriber: string, events: readonly RecordedEvent[]): string[] {
  const violations: string[] = [];
  for (const [key, list] of terminalEvents(events)) {
    if (list.length > 1)
      violations.push(`${subscriber} got ${list.length} terminal events for ${key}: ${list.map((e) => `${e.type} ${e.id}`).join(', ')}`);
  }
  return violations;
}
