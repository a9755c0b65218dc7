import { SandboxError } from '../devnet/errors.js';
import { assertPortFree } from '../devnet/ports.js';
import type { SandboxPartsOptions } from './run-options.js';
import type { SandboxComponent } from './sandbox.js';
import { serviceSettingsOf } from './service-config.js';

/** Reference solvers `sandbox up` connects unless `--solvers` says otherwise. */
export const DEFAULT_SOLVERS = 3;

/**
 * The parts `sandbox up` starts on top of the chains, in order: the settlement service (its `api` block lands in
 * the manifest), then the reference solvers, which connect to it over the real solver stream. Both the foreground
 * `up` and the detached supervisor start exactly this list.
 */
export async function sandboxComponents(options: SandboxPartsOptions): Promise<SandboxComponent[]> {
  // Checked before any chain starts, so a taken port costs nothing and names the flag to change.
  if (options.port !== undefined && options.port !== 0) await assertPortFree(options.port, 'settlement service', '--port');
  const role = options.role ?? 'all';
  if (role === 'chains') return [];
  if (role === 'solvers') return [solversAgainstServiceElsewhere(options)];
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
          ...serviceSettingsOf(options),
          databaseUrl: () => database.url,
          ...(options.instances === undefined ? {} : { instances: options.instances }),
          ...(options.accessFile === undefined ? {} : { accessFile: options.accessFile }),
        }),
      ),
    ),
  );
  // The service role leaves the solvers to their own containers unless asked.
  const solvers = options.solvers ?? (role === 'service' ? 0 : DEFAULT_SOLVERS);
  if (solvers > 0)
    components.push(
      loadedWhileChainsStart(
        'reference solvers',
        import('./solvers-component.js').then(({ referenceSolversComponent }) =>
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

/**
 * The solvers role: the reference solvers against a service that runs elsewhere (behind a load balancer), with the
 * API key the service replicas share through the access file.
 */
function solversAgainstServiceElsewhere(options: SandboxPartsOptions): SandboxComponent {
  return {
    name: 'reference solvers',
    async start(context) {
      if (options.serviceUrl === undefined || options.accessFile === undefined)
        throw new SandboxError('the solvers role needs --service-url and --access-file (written by the service replicas)', {
          code: 'config_invalid',
        });
      const { startWhenServiceAnswers, waitForSharedAccess } = await import('./shared-access.js');
      const access = await waitForSharedAccess(options.accessFile, 120_000);
      const serviceUrl = options.serviceUrl.replace(/\/+$/, '');
      const manifest = {
        ...context.manifest,
        api: { url: serviceUrl, wsUrl: `${serviceUrl.replace(/^http/, 'ws')}/api/v1/ws`, ...access },
      };
      const { referenceSolversComponent } = await import('./solvers-component.js');
      const component = referenceSolversComponent({
        count: options.solvers ?? DEFAULT_SOLVERS,
        ...(options.solverSeed === undefined ? {} : { seed: options.solverSeed }),
        ...(options.solverMode === undefined ? {} : { mode: options.solverMode }),
      });
      // Replicas and solvers start in any order, behind a load balancer that answers 502 until a replica is up.
      const running = await startWhenServiceAnswers(() => component.start({ ...context, manifest }), 120_000, context.onProgress);
      return { manifest: { api: manifest.api }, stop: running.stop };
    },
  };
}
