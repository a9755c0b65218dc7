import { readFileSync } from 'node:fs';
import { type AttachedChainSpec, attachUrl, type ChainSpec } from './chain-config.js';
import { ConfigError } from '../contracts/errors/config-error.js';
import type { Environment } from '../contracts/deployment.js';

/**
 * A sandbox config file (`sandbox up --config sandbox.config.json`), for what flags do not cover:
 *
 *   { "environment": "sandbox", "mnemonic": "...", "allowPublicChainIds": false,
 *     "chains": [{ "name": "alpha", "chainId": 31337, "port": 8545 }, { "name": "beta", "chainId": 31338 }] }
 *
 * Every field is optional; a chain without `port` gets 8545 + its position. Chains started elsewhere are attached to
 * when every chain names its `rpcUrl` (and optionally `wsUrl`) instead of a port:
 *
 *   { "chains": [{ "name": "alpha", "chainId": 31337, "rpcUrl": "http://anvil-alpha:8545" }, …] }
 *
 * `rateLimit` raises the service's per-credential request limits (default 100 per second, bursts of 1,000), e.g.
 * `{ "rateLimit": { "perSecond": 100000, "burst": 100000 } }` for a fuzzer or a CI suite that must never meet a 429.
 */
export interface SandboxConfig {
  environment?: Environment;
  mnemonic?: string;
  allowPublicChainIds?: boolean;
  chains?: ChainSpec[];
  /** Chains to attach to (every chain of the file has an `rpcUrl`). */
  attach?: AttachedChainSpec[];
  rateLimit?: SandboxRateLimit;
}

/** Requests per second per credential (and per client address for anonymous requests), and the burst on top. */
export interface SandboxRateLimit {
  perSecond: number;
  burst: number;
}

export function loadSandboxConfig(path: string): SandboxConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`Config ${path}: ${(error as Error).message}`);
  }
  return parseSandboxConfig(raw, path);
}

export function parseSandboxConfig(raw: unknown, source = 'config'): SandboxConfig {
  const fail = (message: string): never => {
    throw new ConfigError(`${source}: ${message}`);
  };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return fail('must be a JSON object');
  const known = new Set(['environment', 'mnemonic', 'allowPublicChainIds', 'chains', 'rateLimit']);
  const input = raw as Record<string, unknown>;
  for (const key of Object.keys(input)) if (!known.has(key)) fail(`unknown field "${key}" (known: ${[...known].join(', ')})`);

  const config: SandboxConfig = {};
  if (input.environment !== undefined) {
    if (input.environment !== 'sandbox' && input.environment !== 'production') fail('environment must be "sandbox" or "production"');
    config.environment = input.environment as Environment;
  }
  if (input.mnemonic !== undefined) {
    if (typeof input.mnemonic !== 'string' || input.mnemonic.trim().split(/\s+/).length < 12) fail('mnemonic must be 12 or more words');
    config.mnemonic = (input.mnemonic as string).trim();
  }
  if (input.allowPublicChainIds !== undefined) {
    if (typeof input.allowPublicChainIds !== 'boolean') fail('allowPublicChainIds must be true or false');
    config.allowPublicChainIds = input.allowPublicChainIds as boolean;
  }
  if (input.rateLimit !== undefined) {
    const { perSecond, burst, ...rest } = (
      typeof input.rateLimit === 'object' && input.rateLimit !== null ? input.rateLimit : {}
    ) as Record<string, unknown>;
    if (Object.keys(rest).length > 0) fail(`rateLimit: unknown field "${Object.keys(rest)[0]}" (known: perSecond, burst)`);
    const whole = (value: unknown) => typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 1_000_000_000;
    if (!whole(perSecond)) fail('rateLimit.perSecond must be a whole number from 1 to 1000000000');
    const burstValue = burst === undefined ? perSecond : burst;
    if (!whole(burstValue) || (burstValue as number) < (perSecond as number))
      fail('rateLimit.burst must be a whole number >= rateLimit.perSecond');
    config.rateLimit = { perSecond: perSecond as number, burst: burstValue as number };
  }
  if (input.chains !== undefined) {
    if (!Array.isArray(input.chains) || input.chains.length === 0) fail('chains must be a non-empty array');
    const entries = input.chains as unknown[];
    const attached = entries.filter((entry) => typeof entry === 'object' && entry !== null && 'rpcUrl' in entry).length;
    if (attached > 0) {
      if (attached !== entries.length) fail('chains: either every chain has an rpcUrl (attach) or none has');
      config.attach = entries.map((entry, i) => {
        const { name, chainId, rpcUrl, wsUrl, ...rest } = entry as Record<string, unknown>;
        if (Object.keys(rest).length > 0)
          fail(`chains[${i}]: unknown field "${Object.keys(rest)[0]}" (an attached chain has name, chainId, rpcUrl, wsUrl)`);
        if (typeof name !== 'string') fail(`chains[${i}].name must be a string`);
        if (typeof chainId !== 'number') fail(`chains[${i}].chainId must be a number`);
        if (typeof rpcUrl !== 'string') fail(`chains[${i}].rpcUrl must be a string`);
        if (wsUrl !== undefined && typeof wsUrl !== 'string') fail(`chains[${i}].wsUrl must be a string`);
        return {
          name: name as string,
          chainId: chainId as number,
          rpcUrl: attachUrl(name as string, rpcUrl as string),
          ...(wsUrl === undefined ? {} : { wsUrl: wsUrl as string }),
        };
      });
      return config;
    }
    config.chains = entries.map((entry, i) => {
      if (typeof entry !== 'object' || entry === null) return fail(`chains[${i}] must be an object`);
      const { name, chainId, port, ...rest } = entry as Record<string, unknown>;
      if (Object.keys(rest).length > 0) fail(`chains[${i}]: unknown field "${Object.keys(rest)[0]}"`);
      if (typeof name !== 'string') fail(`chains[${i}].name must be a string`);
      if (typeof chainId !== 'number') fail(`chains[${i}].chainId must be a number`);
      if (port !== undefined && typeof port !== 'number') fail(`chains[${i}].port must be a number`);
      return { name: name as string, chainId: chainId as number, port: (port as number | undefined) ?? 8545 + i };
    });
  }
  return config;
}
