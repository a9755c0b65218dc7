import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

/**
 * One HTTP server carries REST and every WebSocket endpoint: modules register a path here (typically
 * with a `ws` WebSocketServer in `noServer` mode) and unknown upgrade paths get a 404.
 */
export class UpgradeRouter {
  readonly #routes = new Map<string, UpgradeHandler>();
  readonly #sockets = new Set<Duplex>();

  add(path: string, handler: UpgradeHandler): void {
    if (this.#routes.has(path)) throw new Error(`upgrade path ${path} registered twice`);
    this.#routes.set(path, handler);
  }

  paths(): string[] {
    return [...this.#routes.keys()];
  }

  attach(server: Server): void {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
      const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
      const handler = this.#routes.get(pathname);
      if (handler === undefined) {
        const body = JSON.stringify({
          error: { type: 'not_found', code: 'route_not_found', message: `No WebSocket endpoint at ${pathname}.` },
        });
        socket.end(
          `HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        );
        return;
      }
      handler(req, socket, head);
    });
  }

  /** Destroys upgraded sockets that are still open (the server's close() does not cover them). */
  closeAll(): void {
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
  }
}
