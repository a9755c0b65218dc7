import { mkdirSync } from 'node:fs';
import pino, { type Logger } from 'pino';
import type { Clock } from '../clock/index.js';
import { createService, type Service } from '../service/app.js';
import type { SandboxComponent, SandboxComponentContext } from './sandbox.js';
import { chainAlignedClock, devnetChainTime, type ServiceSettings, serviceConfigFor, serviceKeysOf } from './service-config.js';
import { serviceLayout } from './service-layout.js';

export type { ComplianceSettings } from '../service/compliance/settings.js';

/** The user's service settings (compliance, webhook profile…); the host keeps its own port across restarts. */
export type ServiceHostOptions = Omit<ServiceSettings, 'port'>;

/** The sandbox a host's service runs on: its chains and manifest, and its state folder. */
type HostedOn = Pick<SandboxComponentContext, 'manifest' | 'chains' | 'restartChain'> & { stateDir: string };

/** The workspace a host bootstraps for its operator (the scenario runner, a test). */
export interface HostWorkspace {
  workspaceId: string;
  apiKey: string;
}

/**
 * The settlement service on top of the sandbox's chains, as `sandbox up` runs it (store and log in the state folder,
 * relayer keys and faucet from sandbox.json, a test clock aligned with the chains in the sandbox), but stoppable and
 * restartable on the same store and port, as a crash and a restart would leave it.
 */
export class ServiceHost {
  private _service: Service | undefined;
  private port = 0;
  private _admin: HostWorkspace | undefined;
  private log: Logger | undefined;
  /** The clock of the latest start: it exists before the service answers and outlives a stop. */
  private clock: Clock | undefined;
  private sandbox: HostedOn | undefined;

  constructor(private readonly options: ServiceHostOptions = {}) {}

  /** The host as a part of the sandbox: started on its chains, stopped before them. */
  component(): SandboxComponent {
    return {
      name: 'settlement service',
      start: async (context) => {
        this.sandbox = {
          manifest: context.manifest,
          chains: context.chains,
          restartChain: context.restartChain,
          stateDir: context.layout.root,
        };
        await this.start();
        const service = this.service;
        return {
          manifest: { api: { url: service.url, wsUrl: service.wsUrl, workspaceId: this.admin.workspaceId, apiKeys: [this.admin.apiKey] } },
          stop: () => this.stop(),
        };
      },
    };
  }

  private get hostedOn(): HostedOn {
    if (this.sandbox === undefined) throw new Error('the service host is not part of a started sandbox');
    return this.sandbox;
  }

  get running(): boolean {
    return this._service !== undefined;
  }

  get service(): Service {
    if (this._service === undefined) throw new Error('the settlement service is stopped');
    return this._service;
  }

  get admin(): HostWorkspace {
    if (this._admin === undefined) throw new Error('the settlement service has not started yet');
    return this._admin;
  }

  /**
   * The service's time, also while it is stopped or still starting: a restarted service sends (webhooks, relays)
   * before `start()` returns, and whoever checks those against its clock must not fail in that window.
   */
  now(): number {
    return this.clock?.now() ?? Date.now();
  }

  get storePath(): string {
    return serviceLayout(this.hostedOn.stateDir).store;
  }

  async start(): Promise<void> {
    if (this._service !== undefined) return;
    const sandbox = this.hostedOn;
    const environment = sandbox.manifest.environment;
    mkdirSync(serviceLayout(sandbox.stateDir).root, { recursive: true });
    const keys = serviceKeysOf(sandbox.manifest);
    if (keys.settlement === undefined) throw new Error('the sandbox has no relayer accounts');
    // In the sandbox the service's clock is a test clock where the chains are, never earlier than where the
    // previous start's clock stood (the chains' offset is whole seconds); in production the service keeps its own.
    if (environment === 'sandbox') this.clock = await chainAlignedClock(sandbox.chains, this.clock?.now() ?? 0);
    const service = await createService(
      serviceConfigFor({
        stateDir: sandbox.stateDir,
        environment,
        chains: sandbox.manifest.chains,
        keys,
        settings: { ...this.options, port: this.port },
        logger: this.logger(),
        ...(environment === 'sandbox' ? { clock: this.clock, chainTime: devnetChainTime(sandbox.chains) } : {}),
        restartChain: sandbox.restartChain,
      }),
    );
    this._service = service;
    this.clock = service.clock;
    this.port = Number(new URL(service.url).port);
    this._admin ??= service.bootstrapWorkspace('Scenario runner');
  }

  /**
   * One logger for every start, owned here: a service closes only a log it opened itself, and work of a stopped
   * service that still logs must not write into a closed stream.
   */
  private logger(): Logger {
    this.log ??= pino(
      { level: process.env.SCENARIO_SERVICE_LOG ?? 'warn', base: { service: 'settlement' } },
      pino.destination({ dest: serviceLayout(this.hostedOn.stateDir).log, sync: true, mkdir: true }),
    );
    return this.log;
  }

  async stop(): Promise<void> {
    const service = this._service;
    this._service = undefined;
    await service?.stop();
  }
}
