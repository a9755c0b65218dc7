import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { GenericContainer, type StartedNetwork, type StartedTestContainer, Wait } from 'testcontainers';
import { parse } from 'yaml';

/**
 * deploy/compose.yaml brought up with testcontainers' generic containers, service by service: the engine here has no
 * compose plugin, and reading the file itself keeps the test on the composition users run (images, commands,
 * environment, volumes, health checks, start order), not on a copy of it. Named volumes become folders under `stateDir`
 * (bind mounts), so the test can read what the parts write (the shared access file) and restart a part on its state.
 */

interface ComposeHealth {
  test: string[];
  interval?: string;
  timeout?: string;
  retries?: number;
}

interface ComposeService {
  image: string;
  entrypoint?: string[];
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: ComposeHealth;
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
}

export function readCompose(path: string): ComposeFile {
  return parse(readFileSync(path, 'utf8'), { merge: true }) as ComposeFile;
}

/** `${NAME:-default}` as compose interpolates it. */
function interpolate(value: string, env: Record<string, string | undefined>): string {
  return value.replace(/\$\{([A-Z0-9_]+)(?::-([^}]*))?\}/g, (_, name: string, fallback: string | undefined) => env[name] ?? fallback ?? '');
}

function milliseconds(duration: string | undefined): number | undefined {
  if (duration === undefined) return undefined;
  const match = /^(\d+)(ms|s)$/.exec(duration);
  if (!match) throw new Error(`compose duration ${duration} not understood`);
  return Number(match[1]) * (match[2] === 's' ? 1_000 : 1);
}

/** Services in an order where each comes after what it depends on. */
export function startOrder(file: ComposeFile): string[] {
  const order: string[] = [];
  const visit = (name: string, path: string[]) => {
    if (order.includes(name)) return;
    if (path.includes(name)) throw new Error(`compose: a dependency circle through ${name}`);
    for (const dependency of Object.keys(file.services[name]?.depends_on ?? {})) visit(dependency, [...path, name]);
    order.push(name);
  };
  for (const name of Object.keys(file.services)) visit(name, []);
  return order;
}

export interface Composition {
  containers: Map<string, StartedTestContainer>;
  /** Milliseconds from the first start to each service healthy. */
  healthyAfterMs: Map<string, number>;
}

/** The container of one compose service, as compose would create it on `network` (its name is its alias there). */
export function containerFor(
  name: string,
  service: ComposeService,
  options: { network: StartedNetwork; composeDir: string; stateDir: string; env: Record<string, string | undefined> },
): GenericContainer {
  const { env } = options;
  let container = new GenericContainer(interpolate(service.image, env))
    .withNetwork(options.network)
    .withNetworkAliases(name)
    .withName(`sandbox-compose-${name}-${process.pid}`)
    .withStartupTimeout(120_000);
  if (service.entrypoint) container = container.withEntrypoint(service.entrypoint.map((part) => interpolate(part, env)));
  if (service.command) container = container.withCommand(service.command.map((part) => interpolate(String(part), env)));
  if (service.environment)
    container = container.withEnvironment(
      Object.fromEntries(Object.entries(service.environment).map(([key, value]) => [key, interpolate(String(value), env)])),
    );
  const mounts = (service.volumes ?? []).map((volume) => {
    const [source, target, mode] = volume.split(':') as [string, string, string | undefined];
    const host = source.startsWith('.') ? resolve(options.composeDir, source) : join(options.stateDir, source);
    if (!source.startsWith('.')) mkdirSync(host, { recursive: true });
    return { source: host, target, mode: mode === 'ro' ? ('ro' as const) : ('rw' as const) };
  });
  if (mounts.length > 0) container = container.withBindMounts(mounts);
  // Published ports become exposed ones on free host ports: the test reaches the parts the way an outside user would.
  const exposed = (service.ports ?? []).map((port) => Number(port.split(':').at(-1)));
  if (exposed.length > 0) container = container.withExposedPorts(...exposed);
  const health = service.healthcheck;
  if (health) {
    container = container
      .withHealthCheck({
        test: health.test as ['CMD', ...string[]],
        ...(health.interval ? { interval: milliseconds(health.interval) } : {}),
        ...(health.timeout ? { timeout: milliseconds(health.timeout) } : {}),
        ...(health.retries ? { retries: health.retries } : {}),
      })
      .withWaitStrategy(Wait.forHealthCheck());
  }
  return container;
}

/** Starts every service in dependency order, each once its dependencies are healthy (as `depends_on` says). */
export async function startComposition(
  file: ComposeFile,
  options: {
    network: StartedNetwork;
    composeFile: string;
    stateDir: string;
    env: Record<string, string | undefined>;
    extraPorts?: Record<string, number[]>;
  },
): Promise<Composition> {
  const containers = new Map<string, StartedTestContainer>();
  const healthyAfterMs = new Map<string, number>();
  const started = Date.now();
  const pending = new Map<string, Promise<StartedTestContainer>>();
  const start = (name: string): Promise<StartedTestContainer> => {
    let running = pending.get(name);
    if (running === undefined) {
      running = (async () => {
        const service = file.services[name]!;
        await Promise.all(Object.keys(service.depends_on ?? {}).map(start));
        let container = containerFor(name, service, { ...options, composeDir: dirname(options.composeFile) });
        const extra = options.extraPorts?.[name];
        if (extra) container = container.withExposedPorts(...extra, ...(service.ports ?? []).map((port) => Number(port.split(':').at(-1))));
        const up = await container.start();
        containers.set(name, up);
        healthyAfterMs.set(name, Date.now() - started);
        return up;
      })();
      pending.set(name, running);
    }
    return running;
  };
  const results = await Promise.allSettled(startOrder(file).map(start));
  const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) {
    await stopComposition({ containers, healthyAfterMs });
    throw failed.reason;
  }
  return { containers, healthyAfterMs };
}

export async function stopComposition(composition: Composition): Promise<void> {
  await Promise.all([...composition.containers.values()].map((container) => container.stop({ timeout: 2_000 }).catch(() => undefined)));
}
