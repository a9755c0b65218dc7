/**
 * Test support only: starts OUR sandbox (devnet chains, the settlement service, reference solvers) as the
 * deployment under test. The certifier itself never imports the service; the tests need a deployment to certify,
 * and this is ours.
 */
import { rmSync } from 'node:fs';
import { TestClock } from '../../../src/clock/index.js';
import { readChainTime } from '../../../src/devnet/chain-time.js';
import { startSandbox, type Sandbox, type SandboxComponent } from '../../../src/devnet/sandbox.js';
import { createService } from '../../../src/service/app.js';
import { devnetChainTime, serviceLayout, settlementServiceComponent } from '../../../src/sandbox/service-component.js';
import { referenceSolversComponent } from '../../../src/solvers/index.js';
import type { SandboxFile } from '../../../conformance/deployment/sandbox-file.js';

export interface OwnSandbox {
  sandbox: Sandbox;
  url: string;
  apiKey: string;
  /** sandbox.json as the devnet wrote it. */
  file: SandboxFile;
  stop(): Promise<void>;
}

export interface OwnSandboxOptions {
  /** Reference solvers to start (default 3, like `sandbox up`). */
  solvers?: number;
  /** Webhook profile of the deployment: A (pause after 5 exhausted events) or B (schedule B, disable after 5 failures). */
  webhookProfile?: 'A' | 'B';
}

/**
 * The service component with Reference B's webhook profile. The devnet's component does not pass a webhook
 * profile through yet; this is the same composition with `webhookProfile: 'B'` added.
 */
function serviceWithWebhookProfileB(): SandboxComponent {
  return {
    name: 'settlement service (webhook profile B)',
    async start(context) {
      const layout = serviceLayout(context.layout.root);
      rmSync(layout.root, { recursive: true, force: true });
      const times = await readChainTime(context.chains);
      const offsetSeconds = Math.max(0, ...times.map((time) => time.offsetSeconds));
      const service = await createService({
        environment: context.manifest.environment,
        chains: context.manifest.chains,
        storePath: ':memory:',
        clock: new TestClock({ ticking: true, start: Date.now() + offsetSeconds * 1_000 }),
        chainTime: devnetChainTime(context.chains),
        logger: { level: 'silent' },
        settlement: {
          serviceRelayer: { privateKey: context.manifest.accounts.serviceRelayer[0]!.privateKey },
          oracleRelayer: { privateKey: context.manifest.accounts.oracleRelayer[0]!.privateKey },
        },
        ...(context.manifest.accounts.deployer[0] ? { faucet: { minterKey: context.manifest.accounts.deployer[0].privateKey } } : {}),
        webhookProfile: 'B',
      } as Parameters<typeof createService>[0]);
      const { workspaceId, apiKey } = service.bootstrapWorkspace('Sandbox workspace');
      return { manifest: { api: { url: service.url, wsUrl: service.wsUrl, workspaceId, apiKeys: [apiKey] } }, stop: () => service.stop() };
    },
  };
}

export async function startOwnSandbox(options: OwnSandboxOptions = {}): Promise<OwnSandbox> {
  const service = options.webhookProfile === 'B' ? serviceWithWebhookProfileB() : settlementServiceComponent({ logLevel: 'silent' });
  const sandbox = await startSandbox({ components: [service, referenceSolversComponent({ count: options.solvers ?? 3 })] });
  const api = sandbox.manifest.api;
  if (!api) {
    await sandbox.stop();
    throw new Error('the sandbox started without the service');
  }
  return {
    sandbox,
    url: api.url,
    apiKey: api.apiKeys[0]!,
    file: sandbox.manifest as unknown as SandboxFile,
    stop: () => sandbox.stop(),
  };
}
