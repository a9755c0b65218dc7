import { z } from 'zod';
import type { AuthContext } from '../api/auth-context.js';
import type { RouteTable } from '../api/route.js';
import type { OpenApiRegistry } from '../api/openapi.js';
import { pageEnvelope, PageQuery, pageQueryShape, pageSchema, toPageRequest } from '../api/pagination.js';
import { isoTime } from '../api/wire.js';
import type { WebhookEndpoints } from './endpoints.js';
import type { Mailbox, MailboxMessage } from './mailbox.js';
import type { WebhookDelivery, WebhookEndpoint } from './repository.js';
import * as S from './schemas.js';

const Params = z.object({ webhookId: S.WebhookId });

export function webhookView(endpoint: WebhookEndpoint, pendingMessages: number): z.output<typeof S.WebhookView> {
  return {
    webhookId: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    active: endpoint.status === 'active',
    status: endpoint.status === 'deleted' ? 'disabled' : endpoint.status,
    createdAt: isoTime(endpoint.createdAt),
    stoppedAt: endpoint.stoppedAt === null ? null : isoTime(endpoint.stoppedAt),
    failureStreak: endpoint.failureStreak,
    pendingMessages,
  };
}

export function deliveryView(delivery: WebhookDelivery): z.output<typeof S.DeliveryView> {
  return {
    deliveryId: delivery.id,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    attempt: delivery.attempt,
    sentAt: isoTime(delivery.sentAt),
    durationMs: delivery.durationMs,
    statusCode: delivery.statusCode,
    succeeded: delivery.succeeded,
    error: delivery.error,
    nextAttemptAt: delivery.nextAttemptAt === null ? null : isoTime(delivery.nextAttemptAt),
  };
}

function mailView(mail: MailboxMessage): z.output<typeof S.MailView> {
  return {
    id: mail.id,
    to: mail.recipient,
    subject: mail.subject,
    body: mail.body,
    kind: mail.kind,
    webhookId: mail.webhookId,
    createdAt: isoTime(mail.createdAt),
  };
}

function workspaceOf(auth: AuthContext | undefined): string {
  // The router's `required` guard ran before every handler here.
  return auth!.workspaceId;
}

/** `/api/v1/webhooks…` and the legacy `/v1/webhooks/{id}/enable`. */
export function mountWebhookRoutes(api: RouteTable, legacy: RouteTable, openapi: OpenApiRegistry, webhooks: WebhookEndpoints): void {
  openapi.schema('CreateWebhookRequest', S.CreateWebhookRequest);
  openapi.schema('Webhook', S.WebhookView);
  openapi.schema('CreatedWebhook', S.CreatedWebhook);
  openapi.schema('WebhookDelivery', S.DeliveryView);
  openapi.schema('WebhookReplayRequest', S.ReplayRequest);
  openapi.schema('WebhookReplayResponse', S.ReplayResponse);
  const WebhookPage = openapi.schema('WebhookPage', pageSchema(S.WebhookView));
  const DeliveryPage = openapi.schema('WebhookDeliveryPage', pageSchema(S.DeliveryView));
  const view = (endpoint: WebhookEndpoint) => webhookView(endpoint, webhooks.pendingCount(endpoint.id));
  const tags = ['Webhooks'];

  api.route({
    method: 'post',
    path: '/webhooks',
    operationId: 'createWebhook',
    summary: 'Register a webhook endpoint for event types or globs; answers with its signing key.',
    tags,
    auth: 'required',
    body: S.CreateWebhookRequest,
    responses: {
      201: {
        description: 'Registered and active.',
        schema: S.CreatedWebhook,
        links: {
          Webhook: { operationId: 'getWebhook', parameters: { webhookId: '$response.body#/webhookId' } },
          TestWebhook: { operationId: 'testWebhook', parameters: { webhookId: '$response.body#/webhookId' } },
          Deliveries: { operationId: 'listWebhookDeliveries', parameters: { webhookId: '$response.body#/webhookId' } },
          DeleteWebhook: { operationId: 'deleteWebhook', parameters: { webhookId: '$response.body#/webhookId' } },
        },
      },
      422: {
        description:
          'A well-formed URL whose destination the policy refuses (`url_not_allowed`): not https (the sandbox takes http ' +
          'for loopback), a private or reserved address, a host that does not resolve or that is no valid domain name (an `xn--` ' +
          'label that is not punycode); or the workspace is at its webhook limit.',
      },
    },
    handler: async ({ body, auth }) => {
      const endpoint = await webhooks.create(workspaceOf(auth), body);
      return { status: 201, body: { ...view(endpoint), signingKey: endpoint.secret } };
    },
  });

  api.route({
    method: 'get',
    path: '/webhooks',
    operationId: 'listWebhooks',
    summary: "The workspace's webhook endpoints, newest first.",
    tags,
    auth: 'required',
    query: PageQuery,
    responses: { 200: { description: 'A page of endpoints.', schema: WebhookPage } },
    handler: ({ query, auth }) => ({ status: 200, body: pageEnvelope(webhooks.list(workspaceOf(auth), toPageRequest(query)), view) }),
  });

  api.route({
    method: 'get',
    path: '/webhooks/:webhookId',
    operationId: 'getWebhook',
    summary: 'One webhook endpoint.',
    tags,
    auth: 'required',
    params: Params,
    responses: { 200: { description: 'The endpoint.', schema: S.WebhookView } },
    handler: ({ params, auth }) => ({ status: 200, body: view(webhooks.get(workspaceOf(auth), params.webhookId)) }),
  });

  api.route({
    method: 'delete',
    path: '/webhooks/:webhookId',
    operationId: 'deleteWebhook',
    summary: 'Delete a webhook endpoint; its pending retries are cancelled.',
    tags,
    auth: 'required',
    params: Params,
    responses: { 200: { description: 'Deleted.', schema: S.DeletedWebhook } },
    handler: ({ params, auth }) => {
      const endpoint = webhooks.delete(workspaceOf(auth), params.webhookId);
      return { status: 200, body: { webhookId: endpoint.id, deleted: true as const } };
    },
  });

  api.route({
    method: 'post',
    path: '/webhooks/:webhookId/test',
    operationId: 'testWebhook',
    summary: 'Send a signed `webhook.test` event now (once, no retries) and report the attempt.',
    tags,
    auth: 'required',
    idempotent: false,
    params: Params,
    responses: { 200: { description: 'The attempt, successful or not.', schema: S.TestDeliveryResponse } },
    handler: async ({ params, auth }) => {
      const result = await webhooks.test(workspaceOf(auth), params.webhookId);
      return { status: 200, body: { webhookId: params.webhookId, eventId: result.eventId, delivery: deliveryView(result.delivery) } };
    },
  });

  for (const [router, operationId] of [
    [api, 'enableWebhook'],
    [legacy, 'enableWebhookV1'],
  ] as const) {
    router.route({
      method: 'post',
      path: '/webhooks/:webhookId/enable',
      operationId,
      summary: 'Re-activate a paused or disabled endpoint; held retries resume.',
      tags,
      auth: 'required',
      idempotent: false,
      params: Params,
      responses: { 200: { description: 'The endpoint, active.', schema: S.WebhookView } },
      handler: ({ params, auth }) => ({ status: 200, body: view(webhooks.enable(workspaceOf(auth), params.webhookId)) }),
    });
  }

  api.route({
    method: 'post',
    path: '/webhooks/:webhookId/replay',
    operationId: 'replayWebhookEvents',
    summary: 'Send stored events (kept 7 days) again: those of a window that never reached the endpoint, or named ones.',
    description:
      'With `since`/`until`: every event of the window the endpoint subscribes to and has not acknowledged (add ' +
      '`includeDelivered: true` to resend all). With `eventIds`: those events. Replayed events keep their `evt_` ids ' +
      'and bodies and get a fresh retry schedule.',
    tags,
    auth: 'required',
    params: Params,
    body: S.ReplayRequest,
    responses: {
      202: { description: 'Queued for delivery.', schema: S.ReplayResponse },
      422: {
        description:
          'The window is outside what can be replayed by the service clock (`replay_window_exceeded`): `since` older than 7 days, or `since`/`until` in the future.',
      },
    },
    handler: ({ params, body, auth }) => {
      const result = webhooks.replay(workspaceOf(auth), params.webhookId, {
        since: body.since === undefined ? undefined : Date.parse(body.since),
        until: body.until === undefined ? undefined : Date.parse(body.until),
        eventIds: body.eventIds,
        includeDelivered: body.includeDelivered,
      });
      return {
        status: 202,
        body: {
          webhookId: result.webhookId,
          replayed: result.replayed,
          skipped: result.skipped,
          eventIds: result.eventIds,
          since: result.since === undefined ? null : isoTime(result.since),
          until: result.until === undefined ? null : isoTime(result.until),
          truncated: result.truncated,
          nextSince: result.nextSince === undefined ? null : isoTime(result.nextSince),
        },
      };
    },
  });

  api.route({
    method: 'get',
    path: '/webhooks/:webhookId/deliveries',
    operationId: 'listWebhookDeliveries',
    summary: 'Delivery attempts of an endpoint, newest first (kept 7 days).',
    tags,
    auth: 'required',
    params: Params,
    query: z.object({ ...pageQueryShape, ...S.DeliveriesQuery.shape }),
    responses: { 200: { description: 'A page of attempts.', schema: DeliveryPage } },
    handler: ({ params, query, auth }) => ({
      status: 200,
      body: pageEnvelope(webhooks.deliveries(workspaceOf(auth), params.webhookId, toPageRequest(query), query.eventId), deliveryView),
    }),
  });
}

/** `GET /api/v1/sandbox/mailbox`: the notifications the sandbox would have emailed. */
export function mountMailboxRoutes(api: RouteTable, openapi: OpenApiRegistry, mailbox: Mailbox): void {
  openapi.schema('MailboxMessage', S.MailView);
  const MailPage = openapi.schema('MailboxPage', pageSchema(S.MailView));
  api.route({
    method: 'get',
    path: '/sandbox/mailbox',
    operationId: 'listSandboxMailbox',
    summary: 'Notifications the sandbox would have emailed to the workspace (endpoint paused or disabled), newest first.',
    tags: ['Sandbox'],
    auth: 'required',
    query: PageQuery,
    responses: { 200: { description: 'A page of messages.', schema: MailPage } },
    handler: ({ query, auth }) => ({ status: 200, body: pageEnvelope(mailbox.page(workspaceOf(auth), toPageRequest(query)), mailView) }),
  });
}
