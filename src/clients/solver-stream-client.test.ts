/**
 * The solver stream client's reconnect through a load balancer whose replica went away: the balancer cuts the spliced
 * socket, the client comes back through it, and a process that holds nothing but the stream stays alive meanwhile.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AuctionTestService, startAuctionService } from '../../test/support/auction.js';
import { ensureBuilt, ROOT } from '../../test/support/devnet/dist.js';

/** A TCP relay in front of the service, as the composition's load balancer splices a WebSocket to a replica. */
class Relay {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  accepted = 0;

  constructor(target: { host: string; port: number }) {
    this.server = createServer((client) => {
      this.accepted += 1;
      const upstream = tcpConnect(target.port, target.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as AddressInfo).port;
  }

  /** What the balancer does once the replica behind these sockets is gone: cut them, with no close frame. */
  cut(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const running: Array<{ stop(): Promise<void> | void }> = [];
afterEach(async () => {
  for (const part of running.splice(0).reverse()) await part.stop();
});

async function relayedService(): Promise<{ t: AuctionTestService; relay: Relay; url: string }> {
  const t = await startAuctionService();
  running.push(t);
  const target = new URL(t.url);
  const relay = new Relay({ host: target.hostname, port: Number(target.port) });
  running.push({ stop: () => relay.close() });
  const port = await relay.listen();
  return { t, relay, url: `ws://127.0.0.1:${port}/ws/v1/solver/stream` };
}

/** Polls until `condition` holds (real sockets: the reconnect takes a backoff and a handshake). */
async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('SolverStreamClient reconnect through a relay', () => {
  beforeAll(async () => {
    // The child below runs the compiled client, as `sandbox solvers` does.
    await ensureBuilt();
  }, 300_000);

  it('re-authenticates and re-subscribes after the relay cuts its socket', async () => {
    const { t, relay, url } = await relayedService();
    const { wsToken } = await t.registerSolver('relayed');
    const client = await t.connect(wsToken, { url, reconnect: { initialDelayMs: 50, maxDelayMs: 200 } });
    const subscribed: number[] = [];
    client.onMessage((message) => {
      if (message.type === 'subscribe.ok') subscribed.push(Date.now());
    });
    relay.cut();
    await until(() => subscribed.length === 1 && client.connected, 'the client to subscribe again');
    expect(relay.accepted).toBe(2);
  }, 30_000);

  it('keeps a process that holds nothing but the stream alive until it has reconnected', async () => {
    const { t, relay, url } = await relayedService();
    const { wsToken } = await t.registerSolver('alone');
    // A process like `sandbox solvers`: the stream is its only handle, and its top level waits for ever.
    const script = `
      import { SolverStreamClient } from ${JSON.stringify(join(ROOT, 'dist/src/clients/solver-stream-client.js'))};
      const client = await SolverStreamClient.connect({ url: ${JSON.stringify(url)}, token: ${JSON.stringify(wsToken)}, reconnect: { initialDelayMs: 300 } });
      client.onMessage((message) => { if (message.type === 'subscribe.ok') console.log('subscribed'); });
      console.log('connected');
      await new Promise(() => undefined);
    `;
    const child: ChildProcess = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    running.push({ stop: () => void child.kill('SIGKILL') });
    let out = '';
    let exitCode: number | null | undefined;
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once('exit', (code) => {
      exitCode = code;
    });
    await until(() => out.includes('connected') || exitCode !== undefined, 'the child to connect');
    expect(out).toContain('connected');
    relay.cut();
    // Before the fix the reconnect timer was unref'd and the process left with exit code 13 (a top-level await that
    // never settles) the moment its only socket closed.
    await until(() => out.includes('subscribed') || exitCode !== undefined, 'the child to reconnect');
    expect(exitCode, out).toBeUndefined();
    expect(out).toContain('subscribed');
    expect(relay.accepted).toBe(2);
  }, 60_000);
});
