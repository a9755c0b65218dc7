/**
 * A small fault-injecting HTTP proxy for the suite's own tests: it sits in front of a deployment, forwards every
 * request (WebSocket upgrades are piped through untouched) and lets a test break exactly one thing — drop a
 * header, change a status, reorder quotes, corrupt webhook signatures — to show the matching checks fail.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface ProxiedResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

export interface ProxiedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** Rewrites a request on its way in and/or the response on its way out. */
export interface Fault {
  name: string;
  request?(req: ProxiedRequest, proxy: FaultProxy): void;
  response?(req: ProxiedRequest, res: ProxiedResponse): void;
}

export class FaultProxy {
  private readonly server: Server;
  private readonly target: URL;
  private readonly sockets = new Set<Socket>();
  fault: Fault | undefined;
  url = '';

  private constructor(server: Server, target: string) {
    this.server = server;
    this.target = new URL(target);
  }

  static async start(target: string, fault?: Fault): Promise<FaultProxy> {
    const server = createServer();
    const proxy = new FaultProxy(server, target);
    proxy.fault = fault;
    server.on('connection', (socket) => {
      proxy.sockets.add(socket);
      socket.on('close', () => proxy.sockets.delete(socket));
    });
    server.on('request', (req, res) => void proxy.handle(req, res));
    server.on('upgrade', (req, socket, head) => proxy.upgrade(req, socket as Socket, head));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return proxy;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const incoming: ProxiedRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: { ...req.headers },
      body: Buffer.concat(chunks),
    };
    // Webhook deliveries relayed through the proxy (see relayWebhooks) go to their real receiver.
    if (incoming.path.startsWith('/__relay?')) {
      const to = new URL(incoming.path, 'http://x').searchParams.get('to')!;
      const forwarded = { ...incoming, path: to };
      this.fault?.request?.(forwarded, this);
      const answer = await send(new URL(to), forwarded);
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
      return;
    }
    this.fault?.request?.(incoming, this);
    incoming.headers.host = this.target.host;
    if (incoming.body.length > 0 || incoming.headers['content-length'] !== undefined)
      incoming.headers['content-length'] = String(incoming.body.length);
    let answer: ProxiedResponse;
    try {
      answer = await send(new URL(incoming.path, this.target), incoming);
    } catch (error) {
      res.writeHead(502, { 'Content-Type': 'text/plain' });
      res.end(`proxy: ${(error as Error).message}`);
      return;
    }
    this.fault?.response?.(incoming, answer);
    delete answer.headers['content-length'];
    delete answer.headers['transfer-encoding'];
    answer.headers['content-length'] = String(answer.body.length);
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body);
  }

  private upgrade(req: IncomingMessage, socket: Socket, head: Buffer): void {
    const upstream = connect(Number(this.target.port), this.target.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        const name = req.rawHeaders[i]!;
        lines.push(`${name}: ${name.toLowerCase() === 'host' ? this.target.host : req.rawHeaders[i + 1]}`);
      }
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length > 0) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    this.sockets.add(upstream);
    upstream.on('close', () => this.sockets.delete(upstream));
    const end = () => {
      socket.destroy();
      upstream.destroy();
    };
    upstream.on('error', end);
    socket.on('error', end);
    socket.on('close', end);
  }

  /** URL that relays a webhook delivery to `to` through the proxy (where a fault may corrupt it). */
  relayUrl(to: string): string {
    return `${this.url}/__relay?to=${encodeURIComponent(to)}`;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function send(url: URL, req: ProxiedRequest): Promise<ProxiedResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && name !== 'connection') headers[name] = value;
    headers.host = url.host;
    const outgoing = httpRequest(url, { method: req.method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const out: Record<string, string | string[]> = {};
        for (const [name, value] of Object.entries(response.headers)) if (value !== undefined && name !== 'connection') out[name] = value;
        resolve({ status: response.statusCode ?? 502, headers: out, body: Buffer.concat(chunks) });
      });
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(req.body);
  });
}

/** JSON helpers for faults. */
export function rewriteJson(res: ProxiedResponse, edit: (body: any) => void): void {
  let body: unknown;
  try {
    body = JSON.parse(res.body.toString('utf8'));
  } catch {
    return;
  }
  edit(body);
  res.body = Buffer.from(JSON.stringify(body));
}

export const FAULTS = {
  /** Drops one header from every response. */
  dropHeader(header: string): Fault {
    return { name: `drop ${header}`, response: (_req, res) => void delete res.headers[header.toLowerCase()] };
  },
  /** Answers `to` where the deployment answered `from` (on paths matching `path`). */
  status(from: number, to: number, path: RegExp = /.*/): Fault {
    return {
      name: `${from} → ${to}`,
      response: (req, res) => {
        if (res.status === from && path.test(req.path)) res.status = to;
      },
    };
  },
  /** Reverses the ranked quotes of POST /quotes: worst first. */
  unsortQuotes(): Fault {
    return {
      name: 'unsorted quotes',
      response: (req, res) => {
        if (req.method === 'POST' && /\/api\/v1\/quotes(\?|$)/.test(req.path)) {
          rewriteJson(res, (body) => {
            if (Array.isArray(body?.quotes))
              body.quotes.sort((a: any, b: any) => (BigInt(a.outputAmount) < BigInt(b.outputAmount) ? -1 : 1));
          });
        }
      },
    };
  },
  /** Removes a field from every Format A error body. */
  dropErrorField(field: string): Fault {
    return {
      name: `error without ${field}`,
      response: (_req, res) => {
        if (res.status >= 400) rewriteJson(res, (body) => void (body?.error && delete body.error[field]));
      },
    };
  },
  /**
   * Routes webhook registrations through the proxy's relay and flips one hex digit of X-Service-Signature on every
   * relayed delivery.
   */
  badWebhookSignature(): Fault {
    return {
      name: 'bad webhook signature',
      request: (req, proxy) => {
        if (req.path.startsWith('/__relay') || req.path.startsWith('http')) {
          const signature = req.headers['x-service-signature'];
          if (typeof signature === 'string')
            req.headers['x-service-signature'] = `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`;
          return;
        }
        if (req.method === 'POST' && /^\/api\/v1\/webhooks\/?(\?|$)/.test(req.path) && req.body.length > 0) {
          const body = JSON.parse(req.body.toString('utf8')) as { url?: string };
          if (typeof body.url === 'string') body.url = proxy.relayUrl(body.url);
          req.body = Buffer.from(JSON.stringify(body));
        }
      },
    };
  },
} as const;
