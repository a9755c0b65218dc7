import type { WebhookProfileName } from '../webhooks/schedule.js';
import type { TakerStreamSettings } from '../ws/taker-stream-session.js';

/**
 * Deployment settings of real-time delivery, read by the composition root beside ServiceConfig (to be merged
 * into it): the webhook profile (A: pause after 5 exhausted events; B: disable after 5 failed attempts), the
 * receiver timeout, and the taker stream's limits.
 */
export interface RealtimeConfig {
  webhookProfile?: WebhookProfileName;
  /** Wall-clock ms a receiver has to answer one attempt (default 30 000). */
  webhookTimeoutMs?: number;
  takerStream?: Partial<TakerStreamSettings>;
}
