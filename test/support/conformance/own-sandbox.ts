/**
 * Test support only: starts OUR sandbox (devnet chains, the settlement service, reference solvers) as the
 * deployment under test. The certifier itself never imports the service; the tests need a deployment to certify,
 * and this is ours.
 */
import { startSandbox, type Sandbox } from '../../../src/sandbox/sandbox.js';
import { settlementServiceComponent } from '../../../src/sandbox/service-component.js';
import { referenceSolversComponent } from '../../../src/sandbox/solvers-component.js';
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

export async function startOwnSandbox(options: OwnSandboxOptions = {}): Promise<OwnSandbox> {
  // The same service component as `sandbox up` (`--webhook-profile B` passes the profile through).
  const service = settlementServiceComponent({
    logLevel: 'silent',
    ...(options.webhookProfile === 'B' ? { webhookProfile: 'B' as const } : {}),
  });
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
