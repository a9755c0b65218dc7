import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook, WebhookVerificationError } from '../../src/clients/webhook-verifier.js';
import type { ReceiverSpec, ResponsePattern } from '../core/scenario-spec.js';
import { orderIdOf, patternCovers, rfqIdOf, type RecordedEvent, type Subscriber } from '../observe/events.js';

/** One attempt as the receiver saw it. */
export interface ReceivedDelivery {
  eventId: string;
  eventType: string;
  /** 1 for the first arrival of this event id. */
  attempt: number;
  /** X-Service-Timestamp (Unix seconds, service clock). */
  timestamp: number;
  deliveryId: string | undefined;
  /** What the receiver answered. */
  status: number;
  /** Wall time of arrival. */
  receivedAt: number;
}

/** A delivery whose signature or timestamp did not verify: a defect of the sender. */
export interface RejectedDelivery {
  code: string;
  message: string;
  receivedAt: number;
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/**
 * A webhook endpoint of a scenario on a loopback port: verifies each delivery (signature over the raw body, age by
 * the service clock), answers with the status its failure pattern says, and records every attempt.
 */
export class WebhookReceiver implements Subscriber {
  readonly channel = 'webhook' as const;
  readonly deliveries: ReceivedDelivery[] = [];
  readonly rejected: RejectedDelivery[] = [];
  private readonly _events = new Map<string, RecordedEvent & { arrival: number }>();
  private respond: ResponsePattern;
  webhookId: string | undefined;

  private constructor(
    readonly name: string,
    private readonly spec: ReceiverSpec,
    private readonly secret: string,
    private readonly server: Server,
    readonly url: string,
  ) {
    this.respond = spec.respond ?? (() => 200);
  }

  /** Starts listening; `serviceNow` gives the sender's clock (the sandbox clock runs ahead of the machine's). */
  static async start(name: string, spec: ReceiverSpec, secret: string, serviceNow: () => Promise<number>): Promise<WebhookReceiver> {
    let receiver: WebhookReceiver | undefined;
    let arrivals = 0;
    const server = createServer((request, response) => {
      // The arrival order is taken when the request comes in: verification awaits the service's clock, and a
      // slow answer must not reorder what the sender sent one after the other.
      const arrival = ++arrivals;
      const arrivedAt = Date.now();
      void (async () => {
        const body = await readBody(request);
        const status = await receiver!.receive(body, request.headers, serviceNow, arrival, arrivedAt);
        response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify({ received: status < 300 }));
      })().catch(() => response.writeHead(500).end());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    receiver = new WebhookReceiver(name, spec, secret, server, `http://127.0.0.1:${port}/hooks/${encodeURIComponent(name)}`);
    return receiver;
  }

  get lossy(): boolean {
    return this.spec.lossy === true;
  }

  events(): readonly RecordedEvent[] {
    return [...this._events.values()].sort((a, b) => a.arrival - b.arrival).map(({ arrival: _arrival, ...event }) => event);
  }

  covers(type: string): boolean {
    return this.spec.events.some((pattern) => patternCovers(pattern, type));
  }

  /** Changes how it answers from now on (a receiver that recovers). */
  respondWith(pattern: ResponsePattern): void {
    this.respond = pattern;
  }

  /** Attempts of one event, in arrival order. */
  attemptsOf(eventId: string): ReceivedDelivery[] {
    return this.deliveries.filter((d) => d.eventId === eventId);
  }

  private async receive(
    rawBody: Buffer,
    headers: IncomingMessage['headers'],
    serviceNow: () => Promise<number>,
    arrival: number,
    arrivedAt: number,
  ): Promise<number> {
    let verified: ReturnType<typeof verifyWebhook>;
    try {
      verified = verifyWebhook({ secret: this.secret, rawBody, headers, nowSeconds: Math.floor((await serviceNow()) / 1_000) });
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      this.rejected.push({ code: error.code, message: error.message, receivedAt: Date.now() });
      return error.status;
    }
    const { event } = verified;
    const attempt = this.deliveries.filter((d) => d.eventId === event.id).length + 1;
    const status = this.respond({ eventId: event.id, eventType: event.type, attempt, received: this.deliveries.length + 1 });
    this.deliveries.push({
      eventId: event.id,
      eventType: event.type,
      attempt,
      timestamp: verified.timestamp,
      deliveryId: verified.deliveryId,
      status,
      receivedAt: arrivedAt,
    });
    const known = this._events.get(event.id);
    if (known === undefined || arrival < known.arrival) {
      this._events.set(event.id, {
        arrival,
        id: event.id,
        type: event.type,
        orderId: orderIdOf(event),
        rfqId: rfqIdOf(event),
        body: event,
        receivedAt: arrivedAt,
      });
    }
    return status;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
