import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { RestClient } from '../../src/clients/rest-client.js';
import type { SandboxManifest } from '../../src/contracts/deployment.js';
import { ClockRoute } from './clock-route.js';
import { DeployerMint, fundThroughFaucet } from './funding.js';
import type { ScenarioTarget, ServedManifest } from './target.js';
import { advanceChainsOf, restartThroughFault } from './remote-service.js';
import { signInWorkspace } from './workspace.js';
import { BaseError } from '../../src/contracts/errors/base-error.js';

export class TargetError extends BaseError {
  override readonly name = 'TargetError';
  override readonly code = 'target_unusable';
}

/** Reads `sandbox.json` (or the one inside a state folder) and insists on a running service. */
export function readTargetManifest(path: string): ServedManifest {
  let file = resolve(path);
  if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'sandbox.json');
  if (!existsSync(file)) throw new TargetError(`no sandbox manifest at ${file}`);
  let manifest: SandboxManifest;
  try {
    manifest = JSON.parse(readFileSync(file, 'utf8')) as SandboxManifest;
  } catch (error) {
    throw new TargetError(`${file} is not JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(manifest.chains) || manifest.chains.length < 2) throw new TargetError(`${file} lists fewer than two chains`);
  if (manifest.api === undefined || manifest.api.apiKeys.length === 0) {
    throw new TargetError(`${file} has no \`api\` block: is the settlement service running (sandbox up)?`);
  }
  return manifest as ServedManifest;
}

/**
 * A sandbox someone else runs (`sandbox up`), reached only through what its sandbox.json lists. Its reference
 * solvers are scripted through its solver fault switches; its service is stopped and started through its
 * `service.restart` switch, and its chains moved over their JSON-RPC while the service is down.
 */
export async function openRemoteTarget(path: string): Promise<ScenarioTarget> {
  const manifest = readTargetManifest(path);
  const adminKey = manifest.api.apiKeys[0]!;
  const rest = new RestClient({ baseUrl: manifest.api.url, apiKey: adminKey, timeoutMs: 5_000 });
  try {
    await rest.health();
  } catch (error) {
    // 503 still proves the service answers; only an unreachable one is unusable.
    if (!(error instanceof Error && 'status' in error))
      throw new TargetError(`the service at ${manifest.api.url} does not answer: ${(error as Error).message}`);
  }
  const clock = new ClockRoute(manifest.api.url, adminKey);
  const testClock = manifest.environment === 'sandbox' && (await clock.available());
  const faultSwitches =
    manifest.environment === 'sandbox' &&
    (await rest.request('GET', '/api/v1/sandbox/faults').then(
      () => true,
      () => false,
    ));
  const store = manifest.stateDir === undefined ? undefined : join(manifest.stateDir, 'service', 'service.sqlite');
  const mint = new DeployerMint(manifest);
  return {
    kind: 'remote',
    description: `running ${manifest.environment} at ${manifest.api.url}`,
    manifest,
    environment: manifest.environment,
    adminKey,
    solvers: undefined,
    service: faultSwitches ? restartThroughFault(manifest, adminKey) : undefined,
    advanceChains: advanceChainsOf(manifest),
    storePath: store !== undefined && existsSync(store) ? store : undefined,
    testClock,
    faultSwitches,
    serviceNow: async () => (testClock ? clock.now() : Date.now()),
    advanceClock: (ms) => clock.advance(ms),
    createWorkspace: () => signInWorkspace(manifest.api.url, manifest.chains[0]!.chainId, manifest.environment),
    fund: (address, chainId, token, amount) =>
      manifest.environment === 'sandbox'
        ? fundThroughFaucet(manifest, adminKey, address, chainId, token, amount)
        : mint.fund(address, chainId, token, amount),
    stop: async () => undefined,
  };
}
