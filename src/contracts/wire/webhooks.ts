/** Wire shape of one webhook delivery attempt: the service validates and documents with it, clients derive their type. */
import { z } from 'zod';
import { IsoTimestamp } from './primitives.js';

export const DeliveryView = z.object({
  deliveryId: z.string().meta({ description: 'The X-Service-DeliveryId of this attempt.' }),
  eventId: z.string(),
  eventType: z.string(),
  attempt: z.number().int().positive(),
  sentAt: IsoTimestamp,
  durationMs: z.number().int().nonnegative(),
  statusCode: z.number().int().nullable(),
  succeeded: z.boolean(),
  error: z.string().nullable(),
  nextAttemptAt: IsoTimestamp.nullable().meta({ description: 'When the next retry is due, if the schedule continues.' }),
});

/** One delivery attempt as `GET /api/v1/webhooks/{id}/deliveries` and `POST …/test` answer it. */
export type DeliveryAttempt = z.output<typeof DeliveryView>;
