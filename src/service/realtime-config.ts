import type { WebhookProfileName } from './webhooks/schedule.js';
import type { TakerStreamSettings } from './ws/taker-stream-session.js';

/**
 * Deployment settings of real-time delivery, part of ServiceConfig: the webhook profile (A: pause after 5 exhausted events; B: disable after 5 failed attempts), the
 * receiver timeout, and the taker stream's limits.
 */
export interface RealtimeConfig {
  webhookProfile?: WebhookProfileName;
  /** Wall-clock ms a receiver has to answer one attempt (default 30 000). */
  webhookTimeoutMs?: number;
  takerStream?: Partial<TakerStreamSettings>;
}

declare module './config.js' {
  // Real-time settings are ServiceConfig fields (declared here, beside their module).
  interface ServiceConfig extends RealtimeConfig {}
}
