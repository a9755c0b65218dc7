/**
 * HTTP/1.1 over a bare TCP socket: the fuzz campaign writes requests byte for byte (any header, any method, broken
 * framing) from chosen loopback source addresses, and reads whatever comes back. The answer is complete when its
 * head and its Content-Length (or chunked) body are in, or when the server closes.
 */
import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Map<string, string>;
  body: Buffer;
}

export type RawOutcome =
  | { kind: 'answer'; answer: RawAnswer }
  /** `closed`: the server closed without a status line; `timeout`: it kept waiting; `refused`: nothing listens. */
  | { kind: 'no-answer'; reason: 'closed' | 'timeout' | 'refused' | 'reset'; detail: string };

export interface RawRequest {
  port: number;
  /** Source address (127.0.0.x): anonymous rate limits count per client address. */
  localAddress?: string;
  bytes: Buffer;
  timeoutMs?: number;
}

export function sendRaw(request: RawRequest): Promise<RawOutcome> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const socket = connect({
      host: '127.0.0.1',
      port: request.port,
      ...(request.localAddress ? { localAddress: request.localAddress } : {}),
    });
    const finish = (fallback: Extract<RawOutcome, { kind: 'no-answer' }>) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      const parsed = parse(Buffer.concat(chunks));
      resolve(parsed === undefined ? fallback : { kind: 'answer', answer: parsed.answer });
    };
    socket.setTimeout(request.timeoutMs ?? 10_000, () =>
      finish({ kind: 'no-answer', reason: 'timeout', detail: 'no complete answer in time' }),
    );
    // The request is written, not ended: a client that half-closes gets its pending answer dropped by node.
    socket.on('connect', () => socket.write(request.bytes));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (parse(Buffer.concat(chunks))?.complete === true) finish({ kind: 'no-answer', reason: 'closed', detail: '' });
    });
    socket.on('error', (error: NodeJS.ErrnoException) =>
      finish({ kind: 'no-answer', reason: error.code === 'ECONNREFUSED' ? 'refused' : 'reset', detail: error.message }),
    );
    socket.on('close', () => finish({ kind: 'no-answer', reason: 'closed', detail: 'closed without an answer' }));
  });
}

function parse(data: Buffer): { answer: RawAnswer; complete: boolean } | undefined {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const head = data.subarray(0, end).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? '');
  if (status === null) return undefined;
  const headers = new Map<string, string>();
  for (const line of head.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const code = Number(status[1]);
  let body = data.subarray(end + 4);
  const length = headers.get('content-length');
  let complete = code === 101 || code === 204 || code === 304;
  if (headers.get('transfer-encoding')?.toLowerCase() === 'chunked') {
    complete ||= body.includes('\r\n0\r\n\r\n') || body.subarray(0, 5).toString('latin1') === '0\r\n\r\n';
    body = dechunk(body);
  } else if (length !== undefined && /^\d+$/.test(length)) {
    complete ||= body.length >= Number(length);
    body = body.subarray(0, Number(length));
  }
  return { answer: { status: code, headers, body }, complete };
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < data.length) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = Number.parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** A request head with `Connection: close` and, when there is a body, its `Content-Length` (unless given). */
export function buildRequest(method: string, target: string, headers: ReadonlyArray<readonly [string, string]>, body?: Buffer): Buffer {
  const ownHost = headers.some(([name]) => name.toLowerCase() === 'host');
  const ownConnection = headers.some(([name]) => name.toLowerCase() === 'connection');
  const lines = [`${method} ${target} HTTP/1.1`, ...(ownHost ? [] : ['Host: 127.0.0.1']), ...(ownConnection ? [] : ['Connection: close'])];
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  const hasLength = headers.some(([name]) => /^(content-length|transfer-encoding)$/i.test(name));
  if (body !== undefined && !hasLength) lines.push(`Content-Length: ${body.length}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), body ?? Buffer.alloc(0)]);
}
