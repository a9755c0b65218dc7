import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiInfo, SandboxManifest } from '../contracts/deployment.js';
import { type SandboxOptions, up } from './sandbox-handle.js';

/** What the global setup hands the test files: `inject('settlementSandbox')`. */
export interface ProvidedSandbox {
  stateDir: string;
  manifest: SandboxManifest & { api: ApiInfo };
}

/** The part of vitest's TestProject this helper uses (typed here so the package needs no vitest of its own). */
interface GlobalSetupContext {
  provide?(key: 'settlementSandbox', value: ProvidedSandbox): void;
}

/** Name of the environment variable that carries the state folder to the test workers. */
export const STATE_DIR_ENV = 'SANDBOX_STATE_DIR';

/**
 * A vitest `globalSetup` that starts one sandbox per test run and stops it after the last file: chains on free
 * ports and its own state folder (a temp one unless `stateDir` is given), so it never meets a sandbox started
 * by hand. Test files reach it with `attach(process.env.SANDBOX_STATE_DIR)` or `inject('settlementSandbox')`.
 *
 *   // vitest.config.ts:  test: { globalSetup: ['./sandbox.global-setup.ts'] }
 *   // sandbox.global-setup.ts:
 *   export default sandboxGlobalSetup({ solvers: 2 });
 */
export function sandboxGlobalSetup(options: SandboxOptions = {}): (context?: GlobalSetupContext) => Promise<() => Promise<void>> {
  return async (context) => {
    const ownFolder = options.stateDir === undefined ? mkdtempSync(join(tmpdir(), 'settlement-sandbox-')) : undefined;
    const sandbox = await up({ chainPorts: 'any', fresh: true, ...options, stateDir: options.stateDir ?? ownFolder });
    process.env[STATE_DIR_ENV] = sandbox.stateDir;
    context?.provide?.('settlementSandbox', { stateDir: sandbox.stateDir, manifest: sandbox.manifest });
    return async () => {
      await sandbox.stop();
      if (ownFolder) rmSync(ownFolder, { recursive: true, force: true });
    };
  };
}

/** The default: `globalSetup: ['settlement-sandbox/vitest']` gives every run a sandbox with `sandbox up`'s defaults. */
export default sandboxGlobalSetup();
