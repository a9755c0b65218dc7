import { randomBytes } from 'node:crypto';
import type { CheckContext } from '../core/context.js';
import { isObject, type Json } from '../checks/support/shape.js';
import type { Delivery, ReceiverEndpoint } from '../wire/receiver.js';
import { isRefusal, WsSession, type WsMessage } from '../wire/ws.js';

/**
 * Listens to everything the run's flows cause, on both channels: a taker WebSocket subscribed to every order
 * (A: `orders:*`; B: the RFQ, quote, settlement and audit channels) and a webhook endpoint on the harness's
 * receiver subscribed to the same events. Started before the first flow, closed at the end of the run.
 */
export interface EventCapture {
  ws: WsSession | undefined;
  wsProblem?: string;
  webhook?: { id: string; secret: string; endpoint: ReceiverEndpoint; created: Json };
  webhookProblem?: string;
  /** WS messages that are events (have an `evt_` id). */
  events(): WsMessage[];
  deliveries(): Delivery[];
}

export const EVENT_PATTERNS: Record<'A' | 'B', string[]> = {
  A: ['order.*', 'compliance.event'],
  B: ['rfq.*', 'quote.*', 'settlement.*', 'audit.recorded'],
};

export function eventCapture(ctx: CheckContext): Promise<EventCapture> {
  return ctx.fixture('event-capture', async () => {
    const key = ctx.target.apiKey;
    if (key === undefined) ctx.skip('event capture needs an API key');
    const capture: EventCapture = {
      ws: undefined,
      events: () =>
        (capture.ws?.messages ?? []).filter((m) => typeof m.id === 'string' && m.id.startsWith('evt_') && typeof m.type === 'string'),
      deliveries: () => capture.webhook?.endpoint.deliveries() ?? [],
    };
    const session = await WsSession.open(`${ctx.target.wsUrl}?token=${encodeURIComponent(key)}`, { label: 'event capture' });
    if (isRefusal(session)) capture.wsProblem = `the taker WebSocket refused the key: ${session.error}`;
    else {
      session.autoPong();
      const authOk = await session.nextOfType('auth.ok', 5_000);
      if (!authOk) capture.wsProblem = 'the taker WebSocket did not answer auth.ok';
      const subscribe =
        ctx.profile === 'A' ? { type: 'subscribe', topics: ['orders:*'] } : { type: 'subscribe', channels: EVENT_PATTERNS.B };
      session.send(subscribe);
      const ok = await session.nextOfType('subscribe.ok', 5_000);
      if (!ok && capture.wsProblem === undefined) capture.wsProblem = 'the taker WebSocket did not answer subscribe.ok';
      capture.ws = session;
      ctx.state.persistentSockets += 1;
      ctx.state.keepOpen(() => session.close());
    }
    const receiver = await ctx.receiver();
    const endpoint = receiver.endpoint('events');
    const secret = `whsec_conformance${randomBytes(16).toString('hex')}`;
    const created = await ctx.api('POST', '/webhooks', {
      auth: key,
      body: { url: endpoint.url, events: EVENT_PATTERNS[ctx.profile], secret },
      label: 'event capture webhook',
    });
    const body = isObject(created.json) ? created.json : {};
    const id = (body.webhookId ?? body.id) as string | undefined;
    if (created.status === 201 && typeof id === 'string') {
      capture.webhook = { id, secret: typeof body.signingKey === 'string' ? body.signingKey : secret, endpoint, created: body };
      ctx.state.onFinish(async () => {
        await ctx.state.http.request({ method: 'DELETE', path: `/api/v1/webhooks/${id}`, auth: key }).catch(() => undefined);
      });
    } else capture.webhookProblem = `POST /webhooks answered ${created.status}: ${created.text.slice(0, 200)}`;
    return capture;
  });
}

/** The events of one order (A: `order.id` or `compliance.orderId`), in arrival order. */
export function eventsOfOrder(events: readonly WsMessage[], orderId: string): WsMessage[] {
  return events.filter((e) => {
    const order = e.order;
    const compliance = e.compliance;
    return (isObject(order) && order.id === orderId) || (isObject(compliance) && compliance.orderId === orderId) || e.orderId === orderId;
  });
}

export function parseDelivery(delivery: Delivery): Json | undefined {
  try {
    const parsed: unknown = JSON.parse(delivery.rawBody.toString('utf8'));
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Waits (wall time) until `predicate` holds over the captured events, or the time is up. */
export async function waitForEvents(ctx: CheckContext, predicate: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) return false;
    await ctx.sleep(50);
  }
  return true;
}
