/**
 * One service instance of `sandbox up --instances N`: a cluster worker forked by service-cluster.ts. It runs the
 * same service as a lone `sandbox up` would, on the port the primary shares between its workers, and reports to
 * the primary over IPC. It exits when the primary goes away, and when it loses the singleton lease (another
 * instance may hold the work by then; the primary starts a fresh worker in its place).
 */
import { TestClock } from '../clock/index.js';
import { readChainTime } from '../devnet/chain-time.js';
import { createRpcClient } from '../devnet/rpc.js';
import { devnetChainTime, startSandboxService } from './service-component.js';
import type { WorkerConfig, WorkerMessage } from './service-cluster.js';

function send(message: WorkerMessage): void {
  process.send?.(message);
}

async function main(): Promise<void> {
  const config = JSON.parse(process.env.SANDBOX_SERVICE_WORKER ?? '{}') as WorkerConfig;
  const chains = config.chains.map((chain) => ({ name: chain.name, rpc: createRpcClient(chain.rpcUrl) }));
  const offsetSeconds = Math.max(0, ...(await readChainTime(chains)).map((time) => time.offsetSeconds));
  const { service, api } = await startSandboxService({
    stateDir: config.stateDir,
    environment: config.environment,
    chains: config.chains,
    chainTime: devnetChainTime(chains),
    clock: new TestClock({ ticking: true, start: Date.now() + offsetSeconds * 1_000 }),
    port: config.port,
    logger: { file: config.logFile, level: config.logLevel },
    databaseUrl: config.databaseUrl,
    ...(config.previous === undefined ? {} : { previous: config.previous }),
    ...(config.settlement === undefined ? {} : { settlement: config.settlement }),
    ...(config.faucet === undefined ? {} : { faucet: config.faucet }),
    ...(config.webhookProfile === undefined ? {} : { webhookProfile: config.webhookProfile }),
    ...(config.rateLimit === undefined ? {} : { rateLimit: config.rateLimit }),
    onSingletonLost: () => process.exit(1),
  });
  const status = () => ({ pid: process.pid, instanceId: service.instance.id, singleton: service.instance.singleton });
  service.instance.onSingleton(() => send({ type: 'status', status: status() }));
  send({ type: 'ready', api, status: status() });
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await service.stop().catch(() => undefined);
    process.exit(code);
  };
  process.on('message', (message: { type?: string }) => {
    if (message?.type === 'stop') void stop(0);
  });
  // The primary died (or cut us off): nothing would ever stop this worker otherwise.
  process.on('disconnect', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
}

main().catch((error: unknown) => {
  send({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
