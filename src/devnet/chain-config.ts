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
