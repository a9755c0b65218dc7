/**
 * The parent's handle on a service child process (service-process.ts): start it, wait until it listens, kill it
 * with SIGKILL, start it again on the same folder and port, ask it for its heap, and tell expected deaths (ours)
 * from crashes (anything else).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ChildMessage, ParentMessage } from './service-process.js';

const ENTRY = fileURLToPath(new URL('./service-process.ts', import.meta.url));
const REGISTER = fileURLToPath(new URL('./ts-register.mjs', import.meta.url));
const READY_TIMEOUT_MS = 60_000;

export interface ServiceApi {
  url: string;
  wsUrl: string;
  workspaceId: string;
  apiKeys: string[];
}

export interface ServiceChildOptions {
  /** State folder of the running sandbox (its sandbox.json names the chains). */
  sandboxDir: string;
  /** Folder whose `service/` holds this service's SQLite store and log. */
  dir: string;
  /** 0 picks a free port on the first start; later starts reuse the port (solvers reconnect to it). */
  port?: number;
  logLevel?: string;
}

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Killed or stopped by us. */
  expected: boolean;
  stderrTail: string;
}

export class ServiceChild {
  private child: ChildProcess | undefined;
  private _api: ServiceApi | undefined;
  private port: number;
  private expectingExit = false;
  private stderr = '';
  private exited: Promise<void> = Promise.resolve();
  readonly exits: ChildExit[] = [];
  starts = 0;
  kills = 0;

  constructor(private readonly options: ServiceChildOptions) {
    this.port = options.port ?? 0;
  }

  get api(): ServiceApi {
    if (this._api === undefined) throw new Error('the service has not started');
    return this._api;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  /** Exits we did not cause: crashes. */
  get crashes(): ChildExit[] {
    return this.exits.filter((exit) => !exit.expected);
  }

  async start(): Promise<ServiceApi> {
    if (this.child !== undefined) throw new Error('the service is already running');
    const args = [
      '--expose-gc',
      '--enable-source-maps',
      '--import',
      REGISTER,
      ENTRY,
      '--sandbox',
      this.options.sandboxDir,
      '--dir',
      this.options.dir,
    ];
    args.push('--port', String(this.port), '--log-level', this.options.logLevel ?? 'info');
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    this.child = child;
    this.expectingExit = false;
    this.stderr = '';
    this.starts += 1;
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-4_000);
    });
    this.exited = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        this.exits.push({ code, signal, expected: this.expectingExit, stderrTail: this.stderr });
        if (this.child === child) this.child = undefined;
        resolve();
      });
    });
    const ready = await new Promise<Extract<ChildMessage, { type: 'ready' }>>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the service did not start within ${READY_TIMEOUT_MS} ms\n${this.stderr}`)),
        READY_TIMEOUT_MS,
      );
      const onMessage = (message: ChildMessage) => {
        if (message.type !== 'ready') return;
        clearTimeout(timer);
        child.off('message', onMessage);
        resolve(message);
      };
      child.on('message', onMessage);
      void this.exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`the service exited before it was ready\n${this.stderr}`));
      });
    });
    this._api = ready.api;
    this.port = Number(new URL(ready.api.url).port);
    return ready.api;
  }

  /** SIGKILL: no stop hooks, no flush, as a power cut or the OOM killer would do it. */
  async kill(): Promise<void> {
    const child = this.child;
    if (child === undefined) return;
    this.expectingExit = true;
    this.kills += 1;
    child.kill('SIGKILL');
    await this.exited;
  }

  async restart(): Promise<ServiceApi> {
    await this.kill();
    return this.start();
  }

  /** Clean stop (modules stop, store closes); SIGKILL after `timeoutMs`. */
  async stop(timeoutMs = 15_000): Promise<void> {
    const child = this.child;
    if (child === undefined) return;
    this.expectingExit = true;
    child.send({ type: 'stop' } satisfies ParentMessage);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** Heap and RSS of the service after a full garbage collection. */
  async memory(): Promise<{ heapUsed: number; rss: number }> {
    const child = this.child;
    if (child === undefined) throw new Error('the service is not running');
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no memory answer')), 10_000);
      const onMessage = (message: ChildMessage) => {
        if (message.type !== 'memory') return;
        clearTimeout(timer);
        child.off('message', onMessage);
        resolve({ heapUsed: message.heapUsed, rss: message.rss });
      };
      child.on('message', onMessage);
      child.send({ type: 'memory' } satisfies ParentMessage);
    });
  }
}
