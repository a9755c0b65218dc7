import { existsSync, statSync } from 'node:fs';
import { type Socket, connect } from 'node:net';
import { type JsonRpcAnswer, type JsonRpcErrorObject, type JsonRpcHttp, JsonRpcNoAnswer, jsonRpcHttp } from './json-rpc-http.js';

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
  let socket: Socket | undefined;
  let buffered = '';
  let nextId = 1;
  const pending = new Map<number, Pending>();

  const failAll = (detail: string, cause?: unknown) => {
    for (const [id, call] of pending) {
      pending.delete(id);
      clearTimeout(call.timer);
      call.reject(new NoAnswer('connection', call.method, detail, true, cause));
    }
  };

  const onData = (chunk: string) => {
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
        socket?.destroy();
        failAll('the node answered a line that is not JSON');
        return;
      }
      // Answers only: subscriptions are not made on this connection, so anything without a waiting id is dropped.
      const call = typeof message?.id === 'number' ? pending.get(message.id) : undefined;
      if (call === undefined) continue;
      pending.delete(message.id as number);
      clearTimeout(call.timer);
      if (message.error) {
        call.resolve({
          error: {
            code: typeof message.error.code === 'number' ? message.error.code : -32603,
            message: message.error.message ?? 'error',
            ...(message.error.data === undefined ? {} : { data: message.error.data }),
          },
        });
      } else call.resolve({ result: message.result ?? null });
    }
  };

  /** The open connection, connecting first when there is none (after a failure or a restart of the node). */
  const connection = (): Promise<Socket> => {
    if (socket !== undefined && !socket.destroyed) {
      return socket.connecting ? new Promise((resolve, reject) => wait(socket!, resolve, reject)) : Promise.resolve(socket);
    }
    const opened = connect(path);
    opened.setEncoding('utf8');
    opened.on('data', onData);
    opened.on('error', () => undefined);
    opened.on('close', () => {
      if (socket === opened) socket = undefined;
      buffered = '';
      failAll('the connection to the node closed');
    });
    // Waiting calls keep the process alive through their timers; an idle connection does not.
    opened.unref();
    socket = opened;
    return new Promise((resolve, reject) => wait(opened, resolve, reject));
  };
  const wait = (s: Socket, resolve: (s: Socket) => void, reject: (error: Error) => void) => {
    const onConnect = () => {
      s.off('error', onError);
      resolve(s);
    };
    const onError = (error: Error) => {
      s.off('connect', onConnect);
      reject(error);
    };
    s.once('connect', onConnect);
    s.once('error', onError);
  };

  return {
    async call(method, params, callOptions = {}) {
      let open: Socket;
      try {
        open = await connection();
      } catch (error) {
        throw new NoAnswer('connection', method, (error as Error).message, false, error);
      }
      if (open.destroyed) throw new NoAnswer('connection', method, 'the connection to the node closed', false);
      const id = nextId++;
      return new Promise<JsonRpcAnswer>((resolve, reject) => {
        const timer = setTimeout(
          () => {
            pending.delete(id);
            reject(new NoAnswer('timeout', method, 'timed out', true));
          },
          callOptions.timeoutMs ?? options.timeoutMs ?? 15_000,
        );
        pending.set(id, { method, resolve, reject, timer });
        open.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params: params ?? [] })}\n`);
      });
    },
    close() {
      socket?.destroy();
      socket = undefined;
    },
  };
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
