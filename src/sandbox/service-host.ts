import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import { type Clock, TestClock } from '../clock/index.js';
import { readChainTime } from '../devnet/chain-time.js';
import type { Sandbox } from '../devnet/sandbox.js';
import { createService, type Service } from '../service/app.js';
import type { ComplianceSettings } from '../service/compliance/settings.js';
import { devnetChainTime } from './service-component.js';

export type { ComplianceSettings } from '../service/compliance/settings.js';

export interface ServiceHostOptions {
  environment?: 'sandbox' | 'production';
  compliance?: ComplianceSettings;
}

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

  constructor(
    private readonly sandbox: Sandbox,
    private readonly options: ServiceHostOptions,
  ) {}

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
    return join(this.sandbox.stateDir, 'service', 'service.sqlite');
  }

  async start(): Promise<void> {
    if (this._service !== undefined) return;
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
      // Never earlier than where the previous start's clock stood: the chains' offset is whole seconds, and a
      // clock stepping back across a restart would date new work before work already done.
      const start = Math.max(Date.now() + offset * 1_000, this.clock?.now() ?? 0);
      this.clock = new TestClock({ ticking: true, start });
      timing = {
        clock: this.clock,
        chainTime: devnetChainTime(this.sandbox.chains),
      };
    }
    const service = await createService({
      environment,
      chains: manifest.chains,
      storePath: this.storePath,
      port: this.port,
      ...timing,
      logger: this.logger(),
      settlement: { serviceRelayer: { privateKey: serviceRelayer.privateKey }, oracleRelayer: { privateKey: oracleRelayer.privateKey } },
      ...(environment === 'sandbox' && deployer !== undefined ? { faucet: { minterKey: deployer.privateKey } } : {}),
      ...(environment === 'sandbox' ? { devnet: { restartChain: this.sandbox.restartChain } } : {}),
      ...(this.options.compliance === undefined ? {} : { compliance: this.options.compliance }),
    });
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
      pino.destination({ dest: join(this.sandbox.stateDir, 'service', 'service.log'), sync: true, mkdir: true }),
    );
    return this.log;
  }

  async stop(): Promise<void> {
    const service = this._service;
    this._service = undefined;
    await service?.stop();
  }
}
