// One service instance for the `instances` bench row: a cluster worker started by the product's own cluster primary
// (dist/src/sandbox/service-cluster.js), serving the bench's devnet chains (quotes only), on the shared port
// and the shared Postgres store. It speaks the primary's IPC messages (ready with the api block, stop).
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './lib.mjs';

const config = JSON.parse(process.env.SANDBOX_SERVICE_WORKER ?? '{}');
const { createService } = await import(pathToFileURL(join(ROOT, 'dist/src/service/app.js')).href);
const { TestClock } = await import(pathToFileURL(join(ROOT, 'dist/src/clock/index.js')).href);

try {
  const service = await createService({
    environment: 'sandbox',
    chains: config.chains,
    storePath: join(config.stateDir, 'unused.sqlite'),
    databaseUrl: config.databaseUrl,
    port: config.port,
    clock: new TestClock({ ticking: true }),
    logger: { level: 'silent' },
    // The figure is the service's; the rate limiter would cap it first.
    rateLimit: { perSecond: 1_000_000, burst: 1_000_000 },
    // An auction closes as soon as all 3 solvers answered; the longer window only keeps a balance read that a loaded
    // machine made slow (the solvers read the chain, src/solvers/inventory.ts) from ending the run with a 422.
    auction: { windowMs: 2_000 },
  });
  const access =
    config.previous ??
    (() => {
      const { workspaceId, apiKey } = service.bootstrapWorkspace('bench');
      return { workspaceId, apiKeys: [apiKey] };
    })();
  const status = () => ({ pid: process.pid, instanceId: service.instance.id, singleton: service.instance.singleton });
  service.instance.onSingleton(() => process.send?.({ type: 'status', status: status() }));
  process.send?.({ type: 'ready', api: { url: service.url, wsUrl: service.wsUrl, ...access }, status: status() });
  const stop = () => service.stop().finally(() => process.exit(0));
  process.on('message', (message) => message?.type === 'stop' && void stop());
  process.on('disconnect', () => void stop());
} catch (error) {
  process.send?.({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
}
