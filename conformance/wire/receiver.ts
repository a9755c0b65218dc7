import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DeliveryEvidence } from '../core/types.js';
import { clip } from './http.js';

export interface Delivery {
  /** Wall time the request arrived, ms. */
  receivedAt: number;
  /** Path under the receiver, one per registered endpoint. */
  path: string;
  method: string;
  headers: Record<string, string>;
  /** The exact bytes received: signatures are over these, never over re-serialised JSON. */
  rawBody: Buffer;
  /** The status the receiver answered. */
  answered: number;
}

/**
 * What an endpoint answers: a fixed status, or a list consumed one delivery at a time (then the last repeats).
 * A negative entry holds the request that many ms before answering 200 (a receiver too slow to count).
 */
export type EndpointBehaviour = { statuses: number[] } | { status: number };

export interface ReceiverEndpoint {
  path: string;
  url: string;
  deliveries(): Delivery[];
  /** Waits until `count` deliveries arrived at this endpoint (wall time). */
  waitFor(count: number, timeoutMs: number): Promise<Delivery[]>;
  behave(behaviour: EndpointBehaviour): void;
  evidence(label?: string): DeliveryEvidence;
}

/**
 * The harness's webhook receiver: an HTTP server on loopback that records every delivery byte for byte and
 * answers as each endpoint is told to (2xx, or failures to drive the retry schedule).
 */
export class WebhookReceiver {
  private readonly server: Server;
  private readonly deliveries: Delivery[] = [];
  private readonly behaviours = new Map<string, { statuses: number[]; index: number }>();
  private readonly listeners = new Set<() => void>();
  private _url = '';

  private constructor(server: Server) {
    this.server = server;
  }

  static async start(host = '127.0.0.1'): Promise<WebhookReceiver> {
    const server = createServer();
    const receiver = new WebhookReceiver(server);
    server.on('request', (req, res) => {
      void readBody(req).then((rawBody) => {
        const path = (req.url ?? '/').split('?')[0] ?? '/';
        const status = receiver.statusFor(path);
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(req.headers)) {
          if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
        }
        receiver.deliveries.push({ receivedAt: Date.now(), path, method: req.method ?? 'GET', headers, rawBody, answered: status });
        for (const listener of [...receiver.listeners]) listener();
        const answer = () => {
          if (res.destroyed) return;
          const code = status < 0 ? 200 : status;
          res.writeHead(code, { 'Content-Type': 'application/json', ...(code >= 300 && code < 400 ? { Location: '/elsewhere' } : {}) });
          res.end(JSON.stringify({ received: code < 300 }));
        };
        if (status < 0) setTimeout(answer, -status).unref();
        else answer();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    receiver._url = `http://${host}:${port}`;
    return receiver;
  }

  get url(): string {
    return this._url;
  }

  all(): Delivery[] {
    return [...this.deliveries];
  }

  /** A fresh endpoint path whose deliveries are told apart from every other endpoint's. */
  endpoint(name: string, behaviour: EndpointBehaviour = { status: 200 }): ReceiverEndpoint {
    const path = `/hooks/${name}-${randomBytes(4).toString('hex')}`;
    this.behaviours.set(path, { statuses: 'statuses' in behaviour ? [...behaviour.statuses] : [behaviour.status], index: 0 });
    const deliveries = () => this.deliveries.filter((d) => d.path === path);
    return {
      path,
      url: `${this._url}${path}`,
      deliveries,
      waitFor: (count, timeoutMs) => this.waitFor(deliveries, count, timeoutMs),
      behave: (next) => this.behaviours.set(path, { statuses: 'statuses' in next ? [...next.statuses] : [next.status], index: 0 }),
      evidence: (label) => deliveryEvidence(deliveries(), label),
    };
  }

  private async waitFor(deliveries: () => Delivery[], count: number, timeoutMs: number): Promise<Delivery[]> {
    if (deliveries().length >= count) return deliveries();
    return new Promise((resolve) => {
      const listener = () => {
        if (deliveries().length >= count) done();
      };
      const done = () => {
        clearTimeout(timer);
        this.listeners.delete(listener);
        resolve(deliveries());
      };
      const timer = setTimeout(done, timeoutMs);
      this.listeners.add(listener);
    });
  }

  private statusFor(path: string): number {
    const behaviour = this.behaviours.get(path);
    if (!behaviour) return 404;
    const status = behaviour.statuses[Math.min(behaviour.index, behaviour.statuses.length - 1)] ?? 200;
    behaviour.index += 1;
    return status;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export function deliveryEvidence(deliveries: readonly Delivery[], label?: string): DeliveryEvidence {
  return {
    kind: 'deliveries',
    ...(label === undefined ? {} : { label }),
    deliveries: deliveries.map((d) => ({
      at: new Date(d.receivedAt).toISOString(),
      path: d.path,
      headers: d.headers,
      body: clip(d.rawBody.toString('utf8'), 2_048),
      answered: d.answered,
    })),
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', () => resolve(Buffer.concat(chunks)));
  });
}
