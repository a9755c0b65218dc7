import { z } from 'zod';
import { isWellFormedPattern, matchesSomeKnownType } from '../events/event-pattern.js';
import { knownEventTypes } from '../events/event-types.js';
import { IsoTimestamp } from '../api/wire.js';
import { DeliveryView } from '../../contracts/wire/webhooks.js';
import { WEB_URL_PATTERN } from '../../contracts/wire/urls.js';

/** Every event type, every `<prefix>.*` and `*`. */
function documentedPatterns(): string[] {
  const types = knownEventTypes();
  return ['*', ...new Set(types.map((t) => `${t.split('.')[0]}.*`)), ...types];
}

// Defined with the wire vocabulary (clients derive their delivery type from it).
export { DeliveryView };

export const WebhookId = z.string().regex(/^wh_[0-9a-z]{1,64}$/, 'must be a webhook id (wh_…)');

const EventPattern = z
  .string()
  .min(1)
  .max(100)
  // The form in the document too: lowercase dotted words, `*` as a wildcard.
  .regex(/^(\*|[a-z0-9_*]+(\.[a-z0-9_*]+)*)$/, 'must be an event type such as order.created or a glob such as order.*')
  .refine(isWellFormedPattern, 'must be an event type such as order.created or a glob such as order.*')
  .refine(matchesSomeKnownType, 'matches no event type the service sends')
  .meta({
    description:
      'An event type (`order.settled`) or a glob (`order.*`, `settlement.*`, `*`). The service also takes any other glob that ' +
      'matches an event type it sends (`*.settled`); the list states the usual ones.',
    // The document lists what is accepted for certain, so a client generating from it never sends a pattern the
    // service refuses as matching nothing.
    enum: documentedPatterns(),
  });

export const CreateWebhookRequest = z
  .strictObject({
    url: z
      .string()
      .min(1)
      .max(2048)
      // Any absolute http(s) URL WHATWG's parser takes (urls.ts); which hosts may be called is the endpoint policy's
      // question, answered with url_not_allowed.
      .regex(WEB_URL_PATTERN, 'url must be an absolute URL.')
      .meta({ description: 'HTTPS URL (the sandbox also accepts http://localhost and http://127.0.0.1).' }),
    events: z.array(EventPattern).min(1).max(50),
    secret: z
      .string()
      .regex(/^whsec_[A-Za-z0-9_+/=-]{16,200}$/, 'must start with whsec_ followed by at least 16 characters (letters, digits, _ + / = -)')
      .optional()
      .meta({ description: 'Signing secret; generated (`whsec_test_…` / `whsec_live_…`) when omitted.' }),
  })
  .meta({ description: 'A webhook endpoint to register.' });

export const WebhookView = z.object({
  webhookId: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  active: z.boolean(),
  status: z
    .enum(['active', 'paused', 'disabled'])
    .meta({ description: '`paused` (Reference A) or `disabled` (Reference B) after repeated failures.' }),
  createdAt: IsoTimestamp,
  stoppedAt: IsoTimestamp.nullable().meta({ description: 'When the endpoint was paused or disabled.' }),
  failureStreak: z.number().int().nonnegative().meta({ description: 'Consecutive exhausted events (A) or failed attempts (B).' }),
  pendingMessages: z.number().int().nonnegative().meta({ description: 'Events still on their retry schedule (held while paused).' }),
});

export const CreatedWebhook = WebhookView.extend({
  signingKey: z.string().meta({ description: 'The secret that signs deliveries; shown only here.' }),
});

export const DeletedWebhook = z.object({ webhookId: z.string(), deleted: z.literal(true) });

export const TestDeliveryResponse = z.object({ webhookId: z.string(), eventId: z.string(), delivery: DeliveryView });

export const ReplayRequest = z
  .strictObject({
    since: IsoTimestamp.optional().meta({ description: 'Start of the window (at most 7 days ago).' }),
    until: IsoTimestamp.optional().meta({ description: 'End of the window; default now.' }),
    eventIds: z
      .array(z.string().regex(/^evt_[0-9a-z]{1,64}$/, 'must be an event id (evt_…)'))
      .min(1)
      .max(100)
      .optional(),
    includeDelivered: z.boolean().optional().meta({ description: 'Also resend events the endpoint already acknowledged.' }),
  })
  .meta({
    description: 'Either a window (`since`, optional `until`) or `eventIds`.',
    // The rule the handler applies, stated in the document: since or eventIds, and eventIds never with a window.
    anyOf: [{ required: ['since'] }, { required: ['eventIds'] }],
    not: { anyOf: [{ required: ['eventIds', 'since'] }, { required: ['eventIds', 'until'] }] },
  });

export const ReplayResponse = z.object({
  webhookId: z.string(),
  replayed: z.number().int().nonnegative(),
  skipped: z.number().int().nonnegative().meta({ description: 'Events already delivered or on their way.' }),
  eventIds: z.array(z.string()),
  since: IsoTimestamp.nullable(),
  until: IsoTimestamp.nullable(),
  truncated: z.boolean(),
  nextSince: IsoTimestamp.nullable().meta({ description: 'When truncated: call again with this `since`.' }),
});

export const DeliveriesQuery = z.object({
  eventId: z
    .string()
    .regex(/^evt_[0-9a-z]{1,64}$/)
    .optional(),
});

export const MailView = z.object({
  id: z.string(),
  to: z.string(),
  subject: z.string(),
  body: z.string(),
  kind: z.string(),
  webhookId: z.string().nullable(),
  createdAt: IsoTimestamp,
});
