/**
 * Real chains and the real service for settlement tests: a two-chain sandbox (anvil, contracts at fixed
 * addresses), the service on a SQLite file with a ticking test clock aligned to the chains and moving them when
 * advanced, relayer keys from the sandbox accounts. `restart()` stops the service and starts a new one on the same
 * file, port and chains, as a crash and restart would (minus the crash's abruptness).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RestClient } from '../../../src/clients/rest-client.js';
import { TestClock } from '../../../src/clock/index.js';
import { readChainTime } from '../../../src/devnet/chain-time.js';
import type { SandboxManifest } from '../../../src/contracts/deployment.js';
import { type Sandbox, startSandbox } from '../../../src/sandbox/sandbox.js';
import { createService, type Service } from '../../../src/service/app.js';
import type { OrdersModule } from '../../../src/service/orders/module.js';
import { devnetChainTime } from '../../../src/sandbox/service-component.js';
import type { ServiceConfig } from '../../../src/service/config.js';
import type { SettlementModule } from '../../../src/service/settlement/module.js';

export interface SettlementHarness {
  sandbox: Sandbox;
  manifest: SandboxManifest;
  service: Service;
  clock: TestClock;
  rest: RestClient;
  apiKey: string;
  workspaceId: string;
  storePath: string;
  orders(): OrdersModule;
  settlement(): SettlementModule;
  /** Stops the service and starts a new one on the same store, port and chains. */
  restart(): Promise<void>;
  /** Stops the service only (the chains keep running), e.g. to act on chain while it is down. */
  stopService(): Promise<void>;
  startService(): Promise<void>;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  service?: Partial<ServiceConfig>;
}

export async function startSettlementHarness(options: HarnessOptions = {}): Promise<SettlementHarness> {
  const sandbox = await startSandbox({});
  const folder = mkdtempSync(join(tmpdir(), 'settlement-'));
  const storePath = join(folder, 'service.sqlite');
  const manifest = sandbox.manifest;
  let port = 0;
  let service: Service | undefined;
  let clock!: TestClock;
  let credentials: { workspaceId: string; apiKey: string } | undefined;

  const start = async () => {
    // Chains run at wall time plus their offset (their latest block may be older): the clock starts where they are.
    const offset = Math.max(0, ...(await readChainTime(sandbox.chains)).map((c) => c.offsetSeconds));
    clock = new TestClock({ ticking: true, start: Date.now() + offset * 1_000 });
    service = await createService({
      environment: 'sandbox',
      chains: manifest.chains,
      storePath,
      port,
      clock,
      chainTime: devnetChainTime(sandbox.chains),
      logger: { level: process.env.SETTLEMENT_LOG ?? 'silent' },
      settlement: {
        serviceRelayer: { privateKey: manifest.accounts.serviceRelayer[0]!.privateKey },
        oracleRelayer: { privateKey: manifest.accounts.oracleRelayer[0]!.privateKey },
      },
      ...options.service,
    });
    port = new URL(service.url).port === '' ? 0 : Number(new URL(service.url).port);
    credentials ??= service.bootstrapWorkspace('Settlement tests');
  };
  await start();

  const harness: SettlementHarness = {
    sandbox,
    manifest,
    get service() {
      return service!;
    },
    get clock() {
      return clock;
    },
    get rest() {
      return new RestClient({ baseUrl: service!.url, apiKey: credentials!.apiKey });
    },
    apiKey: credentials!.apiKey,
    workspaceId: credentials!.workspaceId,
    storePath,
    orders: () => service!.module<OrdersModule>('orders'),
    settlement: () => service!.module<SettlementModule>('settlement'),
    async restart() {
      await harness.stopService();
      await harness.startService();
    },
    async stopService() {
      await service?.stop();
      service = undefined;
    },
    async startService() {
      await start();
    },
    async stop() {
      await service?.stop();
      await sandbox.stop();
      rmSync(folder, { recursive: true, force: true });
    },
  };
  return harness;
}

/**
 * One request to the harness's service with its API key, over plain fetch: the answer's status and parsed body (an
 * empty body as `{}`). For routes the REST client does not wrap (the sandbox's fault switches, relay release).
 */
export async function callApi(
  h: Pick<SettlementHarness, 'service' | 'apiKey'>,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, any> }> {
  const response = await fetch(`${h.service.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${h.apiKey}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text === '' ? {} : JSON.parse(text)) as Record<string, any> };
}
