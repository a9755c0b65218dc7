/**
 * A small fault-injecting HTTP proxy for the suite's own tests: it sits in front of a deployment, forwards every
 * request and lets a test break exactly one thing — drop a header, change a status, reorder quotes, rewrite a
 * WebSocket message, re-sign a webhook delivery — to show the matching checks fail. WebSocket upgrades are piped
 * through untouched unless the fault rewrites messages; webhook deliveries pass through the proxy only when the
 * fault rewrites them (registrations then point at the proxy's relay).
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import WebSocket, { WebSocketServer, type RawData } from 'ws';

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

/** What a WebSocket message hook returns: the message to pass on, several, or none (dropped). */
export type WsRewrite = Record<string, unknown> | Record<string, unknown>[] | undefined;

/** A webhook delivery on its way from the deployment to the receiver, with the secret it was registered with. */
export interface RelayedDelivery extends ProxiedRequest {
  /** The secret the harness registered the webhook with (undefined when the proxy did not see the registration). */
  secret: string | undefined;
}

/** Rewrites a request on its way in and/or the response on its way out. */
export interface Fault {
  name: string;
  request?(req: ProxiedRequest, proxy: FaultProxy): void;
  response?(req: ProxiedRequest, res: ProxiedResponse): void;
  /**
   * Rewrites each server → client WebSocket message (JSON objects only; other frames pass untouched); `connection`
   * is state the fault keeps per connection.
   */
  wsFromServer?(message: Record<string, unknown>, path: string, connection: Record<string, unknown>): WsRewrite;
  /** Rewrites each client → server WebSocket message. */
  wsFromClient?(message: Record<string, unknown>, path: string, connection: Record<string, unknown>): WsRewrite;
  /**
   * Rewrites each webhook delivery; registrations are pointed at the proxy's relay so deliveries pass here. `memory`
   * is state the fault keeps for as long as it is this proxy's fault.
   */
  delivery?(delivery: RelayedDelivery, memory: Map<string, unknown>): void;
}

export class FaultProxy {
  private readonly server: Server;
  private readonly target: URL;
  private readonly sockets = new Set<Socket>();
  private readonly wsServer = new WebSocketServer({ noServer: true });
  /** Secrets of webhooks registered through the proxy, by the receiver URL they name. */
  private readonly secrets = new Map<string, string>();
  private current: Fault | undefined;
  /** What the current fault remembers (per proxy, so proxies of parallel lanes never share it). */
  private readonly memory = new Map<string, unknown>();
  url = '';

  get fault(): Fault | undefined {
    return this.current;
  }

  /** A new fault starts with nothing remembered. */
  set fault(fault: Fault | undefined) {
    this.current = fault;
    this.memory.clear();
  }

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
      const forwarded: RelayedDelivery = { ...incoming, path: to, secret: this.secrets.get(to) };
      this.fault?.request?.(forwarded, this);
      this.fault?.delivery?.(forwarded, this.memory);
      forwarded.headers['content-length'] = String(forwarded.body.length);
      let answer: ProxiedResponse;
      try {
        answer = await send(new URL(to), forwarded);
      } catch (error) {
        res.writeHead(502, { 'Content-Type': 'text/plain' });
        res.end(`proxy relay: ${(error as Error).message}`);
        return;
      }
      delete answer.headers['transfer-encoding'];
      answer.headers['content-length'] = String(answer.body.length);
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
      return;
    }
    if (this.fault?.delivery) this.relayRegistration(incoming);
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
    if (this.fault?.delivery) this.unrelay(answer);
    this.fault?.response?.(incoming, answer);
    delete answer.headers['content-length'];
    delete answer.headers['transfer-encoding'];
    answer.headers['content-length'] = String(answer.body.length);
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body);
  }

  /** Points a webhook registration (POST /webhooks) at the relay and remembers its secret. */
  private relayRegistration(req: ProxiedRequest): void {
    if (req.method !== 'POST' || !/^\/api\/v1\/webhooks\/?(\?|$)/.test(req.path) || req.body.length === 0) return;
    let body: { url?: unknown; secret?: unknown };
    try {
      body = JSON.parse(req.body.toString('utf8'));
    } catch {
      return;
    }
    if (typeof body.url !== 'string') return;
    if (typeof body.secret === 'string') this.secrets.set(body.url, body.secret);
    body.url = this.relayUrl(body.url);
    req.body = Buffer.from(JSON.stringify(body));
  }

  /** Shows the deployment's answers with the receiver URLs the client registered, not the relay's. */
  private unrelay(res: ProxiedResponse): void {
    const prefix = `${this.url}/__relay?to=`;
    const text = res.body.toString('utf8');
    if (!text.includes(prefix)) return;
    const pattern = new RegExp(`${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^"\\s]+)`, 'g');
    res.body = Buffer.from(text.replace(pattern, (_m, to: string) => decodeURIComponent(to)));
  }

  private upgrade(req: IncomingMessage, socket: Socket, head: Buffer): void {
    if (this.fault?.wsFromServer || this.fault?.wsFromClient) {
      this.upgradeRewriting(req, socket, head, this.fault);
      return;
    }
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

  /** Terminates the client's WebSocket here and opens one upstream, passing each message through the fault. */
  private upgradeRewriting(req: IncomingMessage, socket: Socket, head: Buffer, fault: Fault): void {
    const path = req.url ?? '/';
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === 'string' && !/^(host|connection|upgrade|sec-websocket-(key|version|extensions|accept))$/i.test(name))
        headers[name] = value;
    const upstream = new WebSocket(new URL(path, this.target.href.replace(/^http/, 'ws')), { headers });
    const pending: RawData[] = [];
    const connection: Record<string, unknown> = {};
    let client: WebSocket | undefined;
    const forward = (to: WebSocket | undefined, data: RawData, rewrite: Fault['wsFromServer']) => {
      if (to === undefined || to.readyState !== WebSocket.OPEN) return;
      const text = data.toString();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        to.send(text);
        return;
      }
      if (rewrite === undefined || typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        to.send(text);
        return;
      }
      const out = rewrite(parsed as Record<string, unknown>, path, connection);
      for (const message of out === undefined ? [] : Array.isArray(out) ? out : [out]) to.send(JSON.stringify(message));
    };
    upstream.on('unexpected-response', (_r, response) => {
      socket.end(`HTTP/1.1 ${response.statusCode} ${response.statusMessage}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    });
    upstream.on('error', () => socket.destroy());
    upstream.on('message', (data) => {
      if (client === undefined) pending.push(data);
      else forward(client, data, fault.wsFromServer);
    });
    upstream.on('close', (code, reason) => client?.close(code === 1005 || code === 1006 ? 1000 : code, reason));
    upstream.on('open', () => {
      this.wsServer.handleUpgrade(req, socket, head, (ws) => {
        client = ws;
        for (const data of pending.splice(0)) forward(client, data, fault.wsFromServer);
        ws.on('message', (data) => forward(upstream, data, fault.wsFromClient));
        ws.on('close', () => upstream.close());
        ws.on('error', () => upstream.terminate());
      });
    });
  }

  /** URL that relays a webhook delivery to `to` through the proxy (where a fault may corrupt it). */
  relayUrl(to: string): string {
    return `${this.url}/__relay?to=${encodeURIComponent(to)}`;
  }

  async stop(): Promise<void> {
    for (const client of this.wsServer.clients) client.terminate();
    this.wsServer.close();
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
  /** Flips one hex digit of X-Service-Signature on every webhook delivery. */
  badWebhookSignature(): Fault {
    return {
      name: 'bad webhook signature',
      delivery: (d) => {
        const signature = d.headers['x-service-signature'];
        if (typeof signature === 'string')
          d.headers['x-service-signature'] = `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`;
      },
    };
  },
} as const;
