import { existsSync, statSync } from 'node:fs';
import { type Socket, connect } from 'node:net';
import { answerOf, type JsonRpcAnswer, type JsonRpcErrorObject, type JsonRpcHttp, JsonRpcNoAnswer, jsonRpcHttp } from './json-rpc-http.js';

/**
 * The longest socket path this client uses: a Unix socket's address holds 108 bytes with its terminating zero on
 * Linux, 104 on macOS. A longer path is not used (the chain is reached over HTTP).
 */
export const MAX_IPC_PATH_BYTES = 100;

/** Whether `path` can name a Unix socket for this client. */
export function ipcPathFits(path: string): boolean {
  return Buffer.byteLength(path) <= MAX_IPC_PATH_BYTES;
}

interface Pending {
  method: string;
  resolve(answer: JsonRpcAnswer): void;
  reject(error: JsonRpcNoAnswer): void;
  timer: NodeJS.Timeout;
}

/**
 * JSON-RPC over a node's IPC socket (anvil's `--ipc`, geth's `geth.ipc`): one connection, requests written as JSON,
 * answers read as newline-separated JSON and matched by id, in any order. On a loopback TCP connection every
 * request is an HTTP exchange whose system calls run the receiver's network stack too; here a call costs a write and
 * a read on a local socket (25-40 against 80-150 CPU-µs per `eth_getBalance` to a local anvil, measured on the
 * development machine). Failures are JsonRpcNoAnswer, as over HTTP; `sent` on one says whether the request was
 * written, so a caller may take another way to the node only for a request the node never saw.
 */
export function jsonRpcIpc(path: string, options: { timeoutMs?: number } = {}): JsonRpcHttp {
  let current: Connection | undefined;
  let nextId = 1;

  /** The open connection, connecting first when there is none (after a failure or a restart of the node). */
  const connection = (): Promise<Connection> => {
    if (current === undefined || current.socket.destroyed) current = openConnection(path);
    return current.ready;
  };

  return {
    async call(method, params, callOptions = {}) {
      let open: Connection;
      try {
        open = await connection();
      } catch (error) {
        throw new NoAnswer('connection', method, (error as Error).message, false, error);
      }
      if (open.socket.destroyed) throw new NoAnswer('connection', method, 'the connection to the node closed', false);
      const id = nextId++;
      return new Promise<JsonRpcAnswer>((resolve, reject) => {
        const timer = setTimeout(
          () => {
            open.pending.delete(id);
            reject(new NoAnswer('timeout', method, 'timed out', true));
          },
          callOptions.timeoutMs ?? options.timeoutMs ?? 15_000,
        );
        open.pending.set(id, { method, resolve, reject, timer });
        open.socket.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params: params ?? [] })}\n`);
      });
    },
    close() {
      current?.socket.destroy();
      current = undefined;
    },
  };
}

/** One connection to the socket: the calls waiting for an answer on it, and what it has read of the next line. */
interface Connection {
  socket: Socket;
  pending: Map<number, Pending>;
  /** Settles once: connected, or the error that kept it from connecting (every caller waiting shares it). */
  ready: Promise<Connection>;
}

function openConnection(path: string): Connection {
  const socket = connect(path);
  const pending = new Map<number, Pending>();
  let buffered = '';
  const failAll = (detail: string) => {
    for (const [id, call] of pending) {
      pending.delete(id);
      clearTimeout(call.timer);
      call.reject(new NoAnswer('connection', call.method, detail, true));
    }
  };
  const connection: Connection = {
    socket,
    pending,
    ready: new Promise<Connection>((resolve, reject) => {
      socket.once('connect', () => resolve(connection));
      socket.once('error', reject);
    }),
  };
  // A failed connect rejects `ready`; later errors end in 'close', which fails what waits.
  connection.ready.catch(() => undefined);
  socket.setEncoding('utf8');
  socket.on('error', () => undefined);
  socket.on('close', () => failAll('the connection to the node closed'));
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      if (line.trim() === '') continue;
      let message: { id?: unknown; result?: unknown; error?: Partial<JsonRpcErrorObject> };
      try {
        message = JSON.parse(line);
      } catch {
        // Nothing after a line that is not JSON can be trusted to line up with our ids.
        socket.destroy();
        failAll('the node answered a line that is not JSON');
        return;
      }
      // Answers only: subscriptions are not made on this connection, so anything without a waiting id is dropped.
      const call = typeof message?.id === 'number' ? pending.get(message.id) : undefined;
      if (call === undefined) continue;
      pending.delete(message.id as number);
      clearTimeout(call.timer);
      call.resolve(answerOf(message));
    }
  });
  // Waiting calls keep the process alive through their timers; an idle connection does not.
  socket.unref();
  return connection;
}

/** JsonRpcNoAnswer with whether the request was written. */
export class NoAnswer extends JsonRpcNoAnswer {
  constructor(
    reason: JsonRpcNoAnswer['reason'],
    method: string,
    detail: string,
    readonly sent: boolean,
    cause?: unknown,
  ) {
    super(reason, method, detail, undefined, cause === undefined ? undefined : { cause });
  }
}

/** How long a socket that would not connect is left alone before it is tried again. */
const IPC_RETRY_MS = 1_000;

/**
 * The node's IPC socket when it answers, its HTTP URL otherwise: a sandbox's own chains run on this machine with a
 * socket beside their HTTP port, while a service in another container, or a chain restarted elsewhere, is reached
 * over HTTP. Only a request the socket never took goes over HTTP, so a transaction is never sent both ways; after a
 * socket that would not connect, HTTP is used for a second before the socket is tried again.
 */
export function jsonRpcLocal(
  ipcPath: string | undefined,
  url: string,
  options: { timeoutMs?: number; sockets?: number } = {},
): JsonRpcHttp {
  const http = jsonRpcHttp(url, options);
  if (ipcPath === undefined || !ipcPathFits(ipcPath) || !isSocket(ipcPath)) return http;
  const ipc = jsonRpcIpc(ipcPath, options);
  let ipcAfter = 0;
  return {
    async call(method, params, callOptions) {
      if (Date.now() >= ipcAfter) {
        try {
          return await ipc.call(method, params, callOptions);
        } catch (error) {
          if (!(error instanceof NoAnswer) || error.sent) throw error;
          ipcAfter = Date.now() + IPC_RETRY_MS;
        }
      }
      return http.call(method, params, callOptions);
    },
    close() {
      ipc.close();
      http.close();
    },
  };
}

function isSocket(path: string): boolean {
  try {
    return existsSync(path) && statSync(path).isSocket();
  } catch {
    return false;
  }
}
