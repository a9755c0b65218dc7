import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { UpgradeHandler, UpgradePaths } from '../module.js';
import { rawErrorResponse, socketDocBase } from './error-handler.js';

export type { UpgradeHandler };

/** RFC 6455 §4.2.1: what `ws` checks before it accepts a handshake, answered here in Format A instead of plain text. */
function handshakeProblem(req: IncomingMessage): { param: string; message: string } | undefined {
  if (req.method !== 'GET') return { param: 'method', message: 'A WebSocket handshake is a GET request.' };
  if (req.headers.upgrade?.toLowerCase() !== 'websocket') return { param: 'Upgrade', message: 'The Upgrade header must be `websocket`.' };
  const key = req.headers['sec-websocket-key'];
  if (typeof key !== 'string' || !/^[+/0-9A-Za-z]{22}==$/.test(key.trim())) {
    return { param: 'Sec-WebSocket-Key', message: 'Sec-WebSocket-Key must be 16 random bytes in base64.' };
  }
  const version = req.headers['sec-websocket-version'];
  if (version !== '13' && version !== '8') return { param: 'Sec-WebSocket-Version', message: 'Sec-WebSocket-Version must be 13.' };
  const protocols = req.headers['sec-websocket-protocol'];
  if (protocols !== undefined && !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+(\s*,\s*[!#$%&'*+\-.^_`|~0-9A-Za-z]+)*$/.test(protocols.trim())) {
    return { param: 'Sec-WebSocket-Protocol', message: 'Sec-WebSocket-Protocol must be a comma-separated list of tokens.' };
  }
  return undefined;
}

/**
 * One HTTP server carries REST and every WebSocket endpoint: modules register a path here (typically
 * with a `ws` WebSocketServer in `noServer` mode). Refusals — unknown paths (404), targets that are not URLs and
 * broken handshakes (400), CONNECT — are typed JSON errors, and nothing a client sends can throw out of here.
 */
export class UpgradeRouter implements UpgradePaths {
  private readonly routes = new Map<string, UpgradeHandler>();
  private readonly sockets = new Set<Duplex>();

  add(path: string, handler: UpgradeHandler): void {
    if (this.routes.has(path)) throw new Error(`upgrade path ${path} registered twice`);
    this.routes.set(path, handler);
  }

  paths(): string[] {
    return [...this.routes.keys()];
  }

  attach(server: Server): void {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      socket.on('error', () => socket.destroy());
      const refuse = (status: number, statusText: string, error: { type: string; code: string; message: string; param?: string }) =>
        socket.end(rawErrorResponse(status, statusText, error, socketDocBase(socket)));
      let pathname: string;
      try {
        // An event listener that throws takes the process down: `GET //[` with an Upgrade header did (fuzz campaign).
        pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
      } catch {
        refuse(400, 'Bad Request', {
          type: 'invalid_request',
          code: 'parameter_invalid',
          param: 'path',
          message: 'The request target is not a valid URL path.',
        });
        return;
      }
      const handler = this.routes.get(pathname);
      if (handler === undefined) {
        refuse(404, 'Not Found', { type: 'not_found', code: 'route_not_found', message: `No WebSocket endpoint at ${pathname}.` });
        return;
      }
      const problem = handshakeProblem(req);
      if (problem !== undefined) {
        refuse(400, 'Bad Request', { type: 'invalid_request', code: 'websocket_handshake_invalid', ...problem });
        return;
      }
      try {
        handler(req, socket, head);
      } catch {
        socket.destroy();
      }
    });
    // Without a listener node drops CONNECT requests silently; answer them like any unknown route.
    server.on('connect', (req: IncomingMessage, socket: Duplex) => {
      socket.on('error', () => socket.destroy());
      socket.end(
        rawErrorResponse(
          404,
          'Not Found',
          { type: 'not_found', code: 'route_not_found', message: `No endpoint CONNECT ${req.url ?? ''}.` },
          socketDocBase(socket),
        ),
      );
    });
  }

  /** Destroys upgraded sockets that are still open (the server's close() does not cover them). */
  closeAll(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }
}
