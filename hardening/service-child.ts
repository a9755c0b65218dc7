/**
 * The parent's handle on a service child process (service-process.ts): start it, wait until it listens, kill it
 * with SIGKILL, start it again on the same folder and port, ask it for its heap, and tell expected deaths (ours)
 * from crashes (anything else).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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
  /** The store in this Postgres database instead of the SQLite file. */
  databaseUrl?: string;
  /** Service processes behind the port (needs `databaseUrl`): this child is then their cluster primary. */
  instances?: number;
}

/** One worker of a cluster child, as `<dir>/service/instances.json` lists it. */
export interface InstanceEntry {
  pid: number;
  instanceId: string;
  singleton: boolean;
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
    if (this.options.databaseUrl !== undefined) args.push('--database-url', this.options.databaseUrl);
    if (this.options.instances !== undefined) args.push('--instances', String(this.options.instances));
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

  /** The cluster's workers as the primary last wrote them. */
  instances(): InstanceEntry[] {
    try {
      return JSON.parse(readFileSync(join(this.options.dir, 'service', 'instances.json'), 'utf8')) as InstanceEntry[];
    } catch {
      return [];
    }
  }

  /**
   * A cluster child: SIGKILLs the worker holding the singleton work, and waits until another worker holds it and the
   * primary has replaced the dead one. Resolves with how long the take-over took (ms from the kill).
   */
  async killSingletonHolder(timeoutMs = 15_000): Promise<number> {
    const holder = this.instances().find((instance) => instance.singleton);
    if (holder === undefined) throw new Error('no instance holds the singleton work');
    const count = this.options.instances ?? 1;
    this.kills += 1;
    const killedAt = Date.now();
    process.kill(holder.pid, 'SIGKILL');
    let tookOverAt: number | undefined;
    while (Date.now() - killedAt < timeoutMs) {
      const now = this.instances();
      if (tookOverAt === undefined && now.some((instance) => instance.singleton && instance.pid !== holder.pid)) tookOverAt = Date.now();
      if (tookOverAt !== undefined && now.length === count && !now.some((instance) => instance.pid === holder.pid))
        return tookOverAt - killedAt;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`no take-over within ${timeoutMs} ms of killing instance ${holder.pid}: ${JSON.stringify(this.instances())}`);
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
