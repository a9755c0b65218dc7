import { assertPortFree } from '../devnet/ports.js';
import type { SandboxComponent } from '../devnet/sandbox.js';
import type { SandboxRunOptions } from './run-options.js';

/** Reference solvers `sandbox up` connects unless `--solvers` says otherwise. */
export const DEFAULT_SOLVERS = 3;

/**
 * The parts `sandbox up` starts on top of the chains, in order: the settlement service (its `api` block lands in
 * the manifest), then the reference solvers, which connect to it over the real solver stream. Both the foreground
 * `up` and the detached supervisor start exactly this list.
 */
export async function sandboxComponents(options: SandboxRunOptions): Promise<SandboxComponent[]> {
  // Checked before any chain starts, so a taken port costs nothing and names the flag to change.
  if (options.port !== undefined && options.port !== 0) await assertPortFree(options.port, 'settlement service', '--port');
  const components: SandboxComponent[] = [];
  // The service's store: a Postgres URL given, a Postgres of the sandbox's own, or (default) SQLite.
  const database: { url?: string } = options.databaseUrl === undefined ? {} : { url: options.databaseUrl };
  if (options.database === 'postgres' && options.databaseUrl === undefined) {
    components.push(
      loadedWhileChainsStart(
        'postgres',
        import('./postgres-component.js').then(({ localPostgresComponent }) => localPostgresComponent(database)),
      ),
    );
  }
  components.push(
    loadedWhileChainsStart(
      'settlement service',
      import('./service-component.js').then(({ settlementServiceComponent }) =>
        settlementServiceComponent({
          ...(options.port === undefined ? {} : { port: options.port }),
          ...(options.webhookProfile === undefined ? {} : { webhookProfile: options.webhookProfile }),
          ...(options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit }),
          databaseUrl: () => database.url,
          ...(options.instances === undefined ? {} : { instances: options.instances }),
        }),
      ),
    ),
  );
  const solvers = options.solvers ?? DEFAULT_SOLVERS;
  if (solvers > 0)
    components.push(
      loadedWhileChainsStart(
        'reference solvers',
        import('../solvers/index.js').then(({ referenceSolversComponent }) =>
          referenceSolversComponent({
            count: solvers,
            ...(options.solverSeed === undefined ? {} : { seed: options.solverSeed }),
            ...(options.solverMode === undefined ? {} : { mode: options.solverMode }),
          }),
        ),
      ),
    );
  return components;
}

/**
 * A component whose code is still loading. The service and the solvers are most of what `sandbox up` loads (about
 * half a second of module compilation on a small machine); importing them here, without waiting, lets that
 * overlap with the anvil processes loading their state, instead of coming before it.
 */
function loadedWhileChainsStart(name: string, loading: Promise<SandboxComponent>): SandboxComponent {
  // A failed import surfaces when the component starts; until then it must not count as an unhandled rejection.
  loading.catch(() => undefined);
  return { name, start: async (context) => (await loading).start(context) };
}
