/**
 * The settlement service as its own process, started exactly as `sandbox up` starts it (the devnet's service
 * component) but against chains that another process owns, so that a SIGKILL takes the service down and leaves
 * the chains, the solvers and the webhook receiver running. The crash, fuzz and load campaigns drive it.
 *
 *   node --import ./hardening/ts-register.mjs hardening/service-process.ts \
 *     --sandbox <state folder with sandbox.json> --dir <folder for service/service.sqlite> [--port n] [--log-level l]
 *     [--database-url postgres://… [--instances n]]
 *
 * With `--instances n` this process is the cluster primary of `sandbox up --instances n`, and its workers run the
 * sources through the same TypeScript loader.
 *
 * Talks to its parent over the IPC channel: `{type: 'ready', api, pid}` once listening; answers `{type: 'memory'}`
 * with the heap after a full GC (started with --expose-gc); `{type: 'stop'}` stops cleanly. It exits when the
 * parent goes away, so a dead campaign leaves no service behind.
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readManifest } from '../src/devnet/manifest-file.js';
import { createRpcClient } from '../src/devnet/rpc.js';
import type { SandboxChain } from '../src/sandbox/sandbox.js';
import { stateLayout } from '../src/devnet/state-dir.js';
import { settlementServiceComponent } from '../src/sandbox/service-component.js';

export type ParentMessage = { type: 'memory' } | { type: 'stop' };
export type ChildMessage =
  | { type: 'ready'; pid: number; api: { url: string; wsUrl: string; workspaceId: string; apiKeys: string[] } }
  | { type: 'memory'; heapUsed: number; rss: number; external: number; arrayBuffers: number }
  | { type: 'stopped' };

const { values } = parseArgs({
  options: {
    sandbox: { type: 'string' },
    dir: { type: 'string' },
    port: { type: 'string', default: '0' },
    'log-level': { type: 'string', default: 'info' },
    'database-url': { type: 'string' },
    instances: { type: 'string', default: '1' },
  },
});
if (values.sandbox === undefined || values.dir === undefined) {
  process.stderr.write('usage: service-process.ts --sandbox <state folder> --dir <service folder> [--port n]\n');
  process.exit(64);
}
if (process.send === undefined) {
  process.stderr.write('service-process.ts runs as a child with an IPC channel (fork or spawn with "ipc")\n');
  process.exit(64);
}
const send = (message: ChildMessage) => process.send?.(message);

const manifest = readManifest(values.sandbox);
const chains: SandboxChain[] = manifest.chains.map((info) => ({
  name: info.name,
  chainId: info.chainId,
  rpcUrl: info.rpcUrl,
  wsUrl: info.wsUrl,
  port: Number(new URL(info.rpcUrl).port),
  pid: undefined,
  info,
  rpc: createRpcClient(info.rpcUrl),
}));

const databaseUrl = values['database-url'];
const component = settlementServiceComponent({
  port: Number(values.port),
  logLevel: values['log-level'],
  ...(databaseUrl === undefined ? {} : { databaseUrl: () => databaseUrl }),
  instances: Number(values.instances),
  workerEntry: {
    path: fileURLToPath(new URL('../src/sandbox/service-worker.ts', import.meta.url)),
    execArgv: ['--enable-source-maps', '--import', fileURLToPath(new URL('./ts-register.mjs', import.meta.url))],
  },
});
const running = await component.start({
  manifest,
  chains,
  layout: stateLayout(values.dir),
  fresh: false,
  onProgress: () => undefined,
});
const api = running.manifest?.api;
if (api === undefined) throw new Error('the service component reported no api block');

let stopping = false;
const stop = async (code: number) => {
  if (stopping) return;
  stopping = true;
  await running.stop();
  for (const chain of chains) chain.rpc.close();
  send({ type: 'stopped' });
  process.exit(code);
};

process.on('message', (message: ParentMessage) => {
  if (message.type === 'stop') void stop(0);
  if (message.type === 'memory') {
    (globalThis as { gc?: () => void }).gc?.();
    const usage = process.memoryUsage();
    send({ type: 'memory', heapUsed: usage.heapUsed, rss: usage.rss, external: usage.external, arrayBuffers: usage.arrayBuffers });
  }
});
process.on('disconnect', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
send({ type: 'ready', pid: process.pid, api });
