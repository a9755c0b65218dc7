import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import { TestClock } from '../../src/clock/index.js';
import { readChainTime } from '../../src/devnet/chain-time.js';
import { type Sandbox, startSandbox } from '../../src/devnet/sandbox.js';
import { createService, type Service } from '../../src/service/app.js';
import type { ComplianceSettings } from '../../src/service/compliance/settings.js';
import { devnetChainTime } from '../../src/sandbox/service-component.js';
import { type ReferenceSolvers, startReferenceSolvers } from '../../src/solvers/index.js';
import { ClockRoute } from './clock-route.js';
import { DeployerMint, fundThroughFaucet } from './funding.js';
import type { ScenarioTarget, ServedManifest, ServiceControl, Workspace } from './target.js';
import { signInWorkspace } from './workspace.js';

export interface InProcessTargetOptions {
  environment?: 'sandbox' | 'production';
  compliance?: ComplianceSettings;
  /** Reference solvers (default 3). */
  solvers?: number;
  /** Seed of the solvers' pricing strategies. */
  seed?: number;
  onProgress?: (message: string) => void;
}

/**
 * The settlement service on top of the sandbox's chains, as `sandbox up` runs it (store and log in the state folder,
 * relayer keys and faucet from sandbox.json, a test clock aligned with the chains in the sandbox), but stoppable and
 * restartable on the same store and port, as a crash and a restart would leave it.
 */
class ServiceHost implements ServiceControl {
  #service: Service | undefined;
  #port = 0;
  #admin: Workspace | undefined;
  #log: Logger | undefined;

  constructor(
    private readonly sandbox: Sandbox,
    private readonly options: InProcessTargetOptions,
  ) {}

  get running(): boolean {
    return this.#service !== undefined;
  }

  get service(): Service {
    if (this.#service === undefined) throw new Error('the settlement service is stopped');
    return this.#service;
  }

  get admin(): Workspace {
    if (this.#admin === undefined) throw new Error('the settlement service has not started yet');
    return this.#admin;
  }

  get storePath(): string {
    return join(this.sandbox.stateDir, 'service', 'service.sqlite');
  }

  async start(): Promise<void> {
    if (this.#service !== undefined) return;
    const manifest = this.sandbox.manifest;
    const environment = this.options.environment ?? 'sandbox';
    mkdirSync(join(this.sandbox.stateDir, 'service'), { recursive: true });
    const deployer = manifest.accounts.deployer[0];
    const serviceRelayer = manifest.accounts.serviceRelayer[0];
    const oracleRelayer = manifest.accounts.oracleRelayer[0];
    if (serviceRelayer === undefined || oracleRelayer === undefined) throw new Error('the sandbox has no relayer accounts');
    let timing = {};
    if (environment === 'sandbox') {
      // The chains may run ahead of the wall clock (earlier advances): the service clock starts where they are.
      const offset = Math.max(0, ...(await readChainTime(this.sandbox.chains)).map((c) => c.offsetSeconds));
      timing = {
        clock: new TestClock({ ticking: true, start: Date.now() + offset * 1_000 }),
        chainTime: devnetChainTime(this.sandbox.chains),
      };
    }
    const service = await createService({
      environment,
      chains: manifest.chains,
      storePath: this.storePath,
      port: this.#port,
      ...timing,
      logger: this.#logger(),
      settlement: { serviceRelayer: { privateKey: serviceRelayer.privateKey }, oracleRelayer: { privateKey: oracleRelayer.privateKey } },
      ...(environment === 'sandbox' && deployer !== undefined ? { faucet: { minterKey: deployer.privateKey } } : {}),
      ...(this.options.compliance === undefined ? {} : { compliance: this.options.compliance }),
    });
    this.#service = service;
    this.#port = Number(new URL(service.url).port);
    this.#admin ??= service.bootstrapWorkspace('Scenario runner');
  }

  /**
   * One logger for every start, owned here: a service closes only a log it opened itself, and work of a stopped
   * service that still logs must not write into a closed stream.
   */
  #logger(): Logger {
    this.#log ??= pino(
      { level: process.env.SCENARIO_SERVICE_LOG ?? 'warn', base: { service: 'settlement' } },
      pino.destination({ dest: join(this.sandbox.stateDir, 'service', 'service.log'), sync: true, mkdir: true }),
    );
    return this.#log;
  }

  async stop(): Promise<void> {
    const service = this.#service;
    this.#service = undefined;
    await service?.stop();
  }
}

export async function startInProcessTarget(options: InProcessTargetOptions = {}): Promise<ScenarioTarget> {
  const environment = options.environment ?? 'sandbox';
  const onProgress = options.onProgress ?? (() => undefined);
  const sandbox = await startSandbox({ environment, onProgress });
  const host = new ServiceHost(sandbox, options);
  let solvers: ReferenceSolvers | undefined;
  try {
    await host.start();
    const first = host.service;
    const manifest: ServedManifest = {
      ...sandbox.manifest,
      api: { url: first.url, wsUrl: first.wsUrl, workspaceId: host.admin.workspaceId, apiKeys: [host.admin.apiKey] },
    };
    const count = options.solvers ?? 3;
    if (count > 0)
      solvers = await startReferenceSolvers({ manifest, count, ...(options.seed === undefined ? {} : { seed: options.seed }) });
    const clock = new ClockRoute(manifest.api.url, host.admin.apiKey);
    const mint = new DeployerMint(manifest);
    const target: ScenarioTarget = {
      kind: 'in-process',
      description: `in-process ${environment} (${sandbox.chains.length} chains, ${count} reference solver${count === 1 ? '' : 's'})`,
      manifest,
      environment,
      adminKey: host.admin.apiKey,
      solvers: solvers?.solvers ?? [],
      service: host,
      storePath: host.storePath,
      testClock: environment === 'sandbox',
      serviceNow: async () => host.service.clock.now(),
      advanceClock: (ms) => clock.advance(ms),
      advanceChains: async (seconds) => {
        await sandbox.advanceTime(seconds);
      },
      createWorkspace: async (label) =>
        environment === 'sandbox'
          ? signInWorkspace(manifest.api.url, manifest.chains[0]!.chainId, 'sandbox')
          : host.service.bootstrapWorkspace(label),
      fund: (address, chainId, token, amount) =>
        environment === 'sandbox'
          ? fundThroughFaucet(manifest, host.admin.apiKey, address, chainId, token, amount)
          : mint.fund(address, chainId, token, amount),
      stop: async () => {
        await solvers?.stop();
        await host.stop();
        await sandbox.stop();
      },
    };
    return target;
  } catch (error) {
    await solvers?.stop();
    await host.stop();
    await sandbox.stop();
    throw error;
  }
}
