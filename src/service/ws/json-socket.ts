/**
 * Small helpers shared by the service's WebSocket endpoints: JSON framing, close-with-reason that really
 * closes, and the `?token=` of the handshake URL.
 */
import type { IncomingMessage } from 'node:http';
import WebSocket from 'ws';

/** Largest client message accepted (bytes); larger frames close the socket with 1009. */
export const MAX_CLIENT_MESSAGE_BYTES = 64 * 1024;

/** How long a closing peer gets to answer the close frame before the socket is destroyed (wall time: I/O, not business). */
const CLOSE_GRACE_MS = 1_000;

export type JsonObject = Record<string, unknown>;

/** Sends `message` as JSON when the socket is open; false when it could not be sent. */
export function sendJson(ws: WebSocket, message: unknown): boolean {
  if (ws.readyState !== WebSocket.OPEN) return false;
  ws.send(JSON.stringify(message));
  return true;
}

/** A JSON object with a string `type`, or a description of what is wrong with the frame. */
export function parseClientMessage(
  data: WebSocket.RawData,
  isBinary: boolean,
): { message: JsonObject & { type: string } } | { error: string } {
  if (isBinary) return { error: 'send text frames containing JSON' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(data.toString());
  } catch {
    return { error: 'the message is not valid JSON' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { error: 'the message must be a JSON object' };
  const type = (parsed as JsonObject).type;
  if (typeof type !== 'string') return { error: 'the message needs a string `type`' };
  return { message: parsed as JsonObject & { type: string } };
}

/** Trims a close reason to the 123 bytes a close frame can carry. */
export function closeReason(reason: string): string {
  let text = reason;
  while (Buffer.byteLength(text) > 123) text = text.slice(0, -1);
  return text;
}

/** Sends a close frame with `code` and `reason`, and destroys the socket if the peer does not finish the handshake. */
export function closeSocket(ws: WebSocket, code: number, reason: string): void {
  if (ws.readyState === WebSocket.CLOSED) return;
  if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) {
    try {
      ws.close(code, closeReason(reason));
    } catch {
      ws.terminate();
      return;
    }
  }
  const timer = setTimeout(() => ws.terminate(), CLOSE_GRACE_MS);
  timer.unref();
  ws.once('close', () => clearTimeout(timer));
}

/** The `token` query parameter of the handshake (for clients that cannot send headers). */
export function tokenFromUrl(req: IncomingMessage): string | undefined {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const token = url.searchParams.get('token');
  return token === null || token === '' ? undefined : token;
}

/** A query parameter of the handshake URL. */
export function queryParam(req: IncomingMessage, name: string): string | undefined {
  const value = new URL(req.url ?? '/', 'http://localhost').searchParams.get(name);
  return value === null || value === '' ? undefined : value;
}
