import { ConfigError } from '../contracts/errors/config-error.js';

/** One chain of a sandbox: its short name is used in corridor ids (`alpha:USDC-beta:USDC`). */
export interface ChainSpec {
  name: string;
  chainId: number;
  /** 0 picks a free port. */
  port: number;
}

/** Short, pronounceable, sorted: chain N of a sandbox is always the same name. */
export const CHAIN_NAMES = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'] as const;
/** anvil's own default, then counting up: local ids that no public network uses. */
export const FIRST_CHAIN_ID = 31337;
export const FIRST_CHAIN_PORT = 8545;
export const DEFAULT_CHAIN_COUNT = 2;
export const MAX_CHAINS = CHAIN_NAMES.length;

/**
 * Ids of public networks (mainnets and their testnets). A devnet signature must never be valid on a real chain,
 * so these are refused unless the configuration says `allowPublicChainIds`.
 */
const PUBLIC_CHAIN_IDS = new Set([
  1, 5, 10, 25, 56, 97, 100, 130, 137, 146, 250, 252, 324, 480, 1101, 1284, 1329, 2741, 5000, 7777777, 8453, 17000, 34443, 42161, 42170,
  42220, 43113, 43114, 57073, 59141, 59144, 80002, 80094, 81457, 84532, 421614, 534351, 534352, 560048, 11155111, 11155420,
]);

export function isPublicChainId(chainId: number): boolean {
  return PUBLIC_CHAIN_IDS.has(chainId);
}

/** `count` chains named alpha, beta, … with ids 31337, 31338, … on the given ports (default 8545, 8546, …). */
export function defaultChains(count: number = DEFAULT_CHAIN_COUNT, ports?: readonly number[] | 'any'): ChainSpec[] {
  if (!Number.isInteger(count) || count < 1 || count > MAX_CHAINS) {
    throw new ConfigError(`--chains must be between 1 and ${MAX_CHAINS}, got ${count}.`);
  }
  if (Array.isArray(ports) && ports.length !== count) {
    throw new ConfigError(`--chain-ports lists ${ports.length} port(s) for ${count} chain(s).`);
  }
  return Array.from({ length: count }, (_, i) => ({
    name: CHAIN_NAMES[i] as string,
    chainId: FIRST_CHAIN_ID + i,
    port: ports === 'any' ? 0 : ports !== undefined ? (ports[i] as number) : FIRST_CHAIN_PORT + i,
  }));
}

/** Parses `--chain-ports 8545,8546`. */
export function parsePortList(value: string): number[] {
  const ports = value.split(',').map((part) => part.trim());
  return ports.map((part) => {
    const port = Number(part);
    if (!/^\d+$/.test(part) || port > 65535) throw new ConfigError(`--chain-ports: "${part}" is not a port number.`);
    return port;
  });
}

export function validateChains(chains: readonly ChainSpec[], options: { allowPublicChainIds?: boolean } = {}): void {
  if (chains.length < 1 || chains.length > MAX_CHAINS) {
    throw new ConfigError(`A sandbox runs 1 to ${MAX_CHAINS} chains, got ${chains.length}.`);
  }
  const names = new Set<string>();
  const ids = new Set<number>();
  const ports = new Set<number>();
  for (const chain of chains) {
    if (!/^[a-z][a-z0-9]{0,15}$/.test(chain.name)) {
      throw new ConfigError(`Chain name "${chain.name}": use 1-16 lowercase letters and digits, starting with a letter.`);
    }
    if (!Number.isSafeInteger(chain.chainId) || chain.chainId < 1) {
      throw new ConfigError(`Chain ${chain.name}: chain id ${chain.chainId} is not a positive integer.`);
    }
    if (isPublicChainId(chain.chainId) && !options.allowPublicChainIds) {
      throw new ConfigError(
        `Chain ${chain.name}: chain id ${chain.chainId} belongs to a public network, where devnet signatures ` +
          `could be replayed. Use a local id (e.g. ${FIRST_CHAIN_ID}) or set allowPublicChainIds in the config.`,
      );
    }
    if (!Number.isInteger(chain.port) || chain.port < 0 || chain.port > 65535) {
      throw new ConfigError(`Chain ${chain.name}: port ${chain.port} is out of range.`);
    }
    if (names.has(chain.name)) throw new ConfigError(`Chain name "${chain.name}" is used twice.`);
    if (ids.has(chain.chainId)) throw new ConfigError(`Chain id ${chain.chainId} is used twice.`);
    if (chain.port !== 0 && ports.has(chain.port)) throw new ConfigError(`Port ${chain.port} is used twice.`);
    names.add(chain.name);
    ids.add(chain.chainId);
    ports.add(chain.port);
  }
}

/** A chain the sandbox did not start and attaches to (`--chain alpha=http://anvil-alpha:8545`, or a config file). */
export interface AttachedChainSpec {
  name: string;
  /** The id the chain must answer with: a wrong URL must not get contracts and funds. */
  chainId: number;
  rpcUrl: string;
  /** Default: the RPC URL with ws:// (anvil serves both on one port). */
  wsUrl?: string;
}

/** The chain id a chain of this name gets by default: alpha 31337, beta 31338, … */
export function defaultChainId(name: string): number | undefined {
  const index = (CHAIN_NAMES as readonly string[]).indexOf(name);
  return index < 0 ? undefined : FIRST_CHAIN_ID + index;
}

/**
 * Parses `--chain alpha=http://host:8545` or `--chain alpha:31400=http://host:8545` (the id is needed when the name
 * is not one of the default names).
 */
export function parseChainFlag(value: string): AttachedChainSpec {
  const match = /^([a-z][a-z0-9]{0,15})(?::(\d+))?=(.+)$/.exec(value.trim());
  if (!match)
    throw new ConfigError(`--chain: "${value}" is not NAME=RPC_URL or NAME:CHAIN_ID=RPC_URL (e.g. alpha=http://anvil-alpha:8545).`);
  const [, name, id, url] = match as unknown as [string, string, string | undefined, string];
  const chainId = id === undefined ? defaultChainId(name) : Number(id);
  if (chainId === undefined)
    throw new ConfigError(`--chain ${name}: give its chain id (${name}:CHAIN_ID=URL); only ${CHAIN_NAMES.join(', ')} have default ids.`);
  return { name, chainId, rpcUrl: attachUrl(name, url) };
}

/** An http(s) URL of a chain to attach to, without a trailing slash. */
export function attachUrl(name: string, url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`Chain ${name}: "${url}" is not a URL.`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new ConfigError(`Chain ${name}: "${url}" is not an http:// or https:// URL.`);
  return url.replace(/\/+$/, '');
}

/** The WebSocket URL of an attached chain: given, or the RPC URL's (anvil answers both on one port). */
export function attachedWsUrl(chain: AttachedChainSpec): string {
  return chain.wsUrl ?? chain.rpcUrl.replace(/^http/, 'ws');
}

export function validateAttachedChains(chains: readonly AttachedChainSpec[], options: { allowPublicChainIds?: boolean } = {}): void {
  validateChains(
    chains.map((chain) => ({ name: chain.name, chainId: chain.chainId, port: 0 })),
    options,
  );
}
