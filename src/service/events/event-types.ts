/**
 * The event types the service publishes, by interface generation: the map in src/contracts, which the dashboard
 * and the conformance suite read too. Webhook registrations and WebSocket channel patterns are checked against it
 * so that a typo (`order.setled`) is a 400 rather than silence.
 */
import { EVENT_TYPE_NAMES } from '../../contracts/event-types.js';

export function knownEventTypes(): string[] {
  return [...EVENT_TYPE_NAMES];
}
