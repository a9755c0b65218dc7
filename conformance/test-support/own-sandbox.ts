/**
 * Test support only: starts OUR sandbox (devnet chains + the settlement service) as the deployment under test.
 * The certifier itself never imports the service; the tests need a deployment to certify, and this is ours.
 */
import { startSandbox, type Sandbox } from '../../src/devnet/sandbox.js';
import { settlementServiceComponent, type ServiceComponentOptions } from '../../src/service/sandbox-component.js';
import { referenceSolversComponent } from '../../src/solvers/index.js';
import type { SandboxFile } from '../target/sandbox-file.js';

export interface OwnSandbox {
  sandbox: Sandbox;
  url: string;
  apiKey: string;
  /** sandbox.json as the devnet wrote it. */
  file: SandboxFile;
  stop(): Promise<void>;
}

export async function startOwnSandbox(options: { service?: ServiceComponentOptions; solvers?: number } = {}): Promise<OwnSandbox> {
  const sandbox = await startSandbox({
    components: [
      settlementServiceComponent({ logLevel: 'silent', ...options.service }),
      referenceSolversComponent({ count: options.solvers ?? 3 }),
    ],
  });
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
