import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { SandboxError } from './errors.js';

const require = createRequire(import.meta.url);

const PLATFORM_PACKAGES: Record<string, Record<string, string>> = {
  darwin: { x64: 'darwin-amd64', arm64: 'darwin-arm64' },
  linux: { x64: 'linux-amd64', arm64: 'linux-arm64' },
  win32: { x64: 'win32-amd64' },
};

export interface AnvilBinary {
  path: string;
  /** Version of the npm package that shipped the binary; part of the genesis cache key. */
  version: string;
}

let resolved: AnvilBinary | undefined;

/**
 * The real anvil binary inside `@foundry-rs/anvil-<platform>`. Running it directly instead of the npm
 * launcher (`node_modules/.bin/anvil`, a node script) saves about 150 ms per chain.
 * `SANDBOX_ANVIL_BIN` overrides it (a local foundry build, for example).
 */
export function resolveAnvilBinary(): AnvilBinary {
  if (resolved) return resolved;
  const override = process.env.SANDBOX_ANVIL_BIN;
  if (override) {
    resolved = { path: override, version: `custom:${override}` };
    return resolved;
  }
  const suffix = PLATFORM_PACKAGES[process.platform]?.[process.arch];
  if (!suffix) {
    throw new SandboxError(`anvil has no npm build for ${process.platform}/${process.arch}; set SANDBOX_ANVIL_BIN.`, {
      code: 'anvil_missing',
    });
  }
  const packageName = `@foundry-rs/anvil-${suffix}`;
  let packageJson: string;
  try {
    packageJson = require.resolve(`${packageName}/package.json`);
  } catch (cause) {
    throw new SandboxError(`${packageName} is not installed; run \`npm install\`.`, { code: 'anvil_missing', cause });
  }
  const path = join(dirname(packageJson), 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
  if (!existsSync(path)) {
    throw new SandboxError(`anvil binary missing at ${path}; reinstall ${packageName}.`, { code: 'anvil_missing' });
  }
  const { version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string };
  resolved = { path, version };
  return resolved;
}
