import type { Address, ChainInfo, TokenInfo } from '../../contracts/deployment.js';
import { ConfigError } from '../../contracts/errors/config-error.js';
import type { Corridor, LockType } from './schemas.js';

export interface CorridorOptions {
  minNotionalUsd: number;
  maxNotionalUsd: number;
  oracleContract: string;
  solverCount: (corridorId: string) => number;
}

/** A corridor without its live solver count. */
export type CorridorDefinition = Omit<Corridor, 'solverCount'>;

export function corridorId(origin: string, inputSymbol: string, destination: string, outputSymbol: string): string {
  return `${origin}:${inputSymbol}-${destination}:${outputSymbol}`;
}

/** Stable tokens: 1 token = 1 USD, so a USD bound is that many whole tokens in the smallest unit. */
function usdInUnits(usd: number, decimals: number): string {
  return (BigInt(usd) * 10n ** BigInt(decimals)).toString();
}

function oracleOf(chain: ChainInfo, name: string): Address {
  const contracts = chain.contracts;
  const exact = contracts[name];
  if (exact !== undefined) return exact;
  const lower = name.toLowerCase();
  const candidates = Object.entries(contracts).filter(([key]) => key.toLowerCase() === lower);
  const fallback = candidates.length === 1 ? candidates : Object.entries(contracts).filter(([key]) => /inputoracle/i.test(key));
  if (fallback.length === 1) return fallback[0]![1];
  throw new ConfigError(
    `chain ${chain.name}: no ${name} contract (has: ${Object.keys(contracts).join(', ') || 'none'}); set corridors.oracleContract`,
  );
}

function lockTypesFor(token: TokenInfo): LockType[] {
  const types: LockType[] = ['Permit2Escrow', 'ResourceLock'];
  if (token.eip3009) types.push('EIP3009Escrow');
  return types;
}

/**
 * Every ordered pair of distinct chains, for every token symbol both chains carry, is a corridor. The
 * notional bounds are in the input token's smallest unit.
 */
export function buildCorridors(chains: readonly ChainInfo[], options: Omit<CorridorOptions, 'solverCount'>): CorridorDefinition[] {
  const corridors: CorridorDefinition[] = [];
  for (const origin of chains) {
    for (const destination of chains) {
      if (origin.chainId === destination.chainId) continue;
      for (const input of origin.tokens) {
        const output = destination.tokens.find((token) => token.symbol === input.symbol);
        if (output === undefined) continue;
        corridors.push({
          id: corridorId(origin.name, input.symbol, destination.name, output.symbol),
          originChainId: origin.chainId,
          destinationChainId: destination.chainId,
          inputToken: { address: input.address, symbol: input.symbol, decimals: input.decimals },
          outputToken: { address: output.address, symbol: output.symbol, decimals: output.decimals },
          minNotional: usdInUnits(options.minNotionalUsd, input.decimals),
          maxNotional: usdInUnits(options.maxNotionalUsd, input.decimals),
          oracle: oracleOf(origin, options.oracleContract),
          lockTypes: lockTypesFor(input),
        });
      }
    }
  }
  return corridors;
}

/** The corridors of this deployment, with live solver counts. Quotes and orders look corridors up here. */
export class CorridorCatalogue {
  private readonly corridors: CorridorDefinition[];
  private readonly byId: Map<string, CorridorDefinition>;
  private solverCount: (corridorId: string) => number;

  constructor(chains: readonly ChainInfo[], options: CorridorOptions) {
    this.corridors = buildCorridors(chains, options);
    this.byId = new Map(this.corridors.map((corridor) => [corridor.id, corridor]));
    this.solverCount = options.solverCount;
  }

  /** The auction registers its live count once it exists. */
  setSolverCount(provider: (corridorId: string) => number): void {
    this.solverCount = provider;
  }

  list(): Corridor[] {
    return this.corridors.map((corridor) => this.withCount(corridor));
  }

  get(id: string): Corridor | undefined {
    const corridor = this.byId.get(id);
    return corridor && this.withCount(corridor);
  }

  /** The corridor moving `inputToken` on `originChainId` to `outputToken` on `destinationChainId`. */
  find(originChainId: number, inputToken: string, destinationChainId: number, outputToken: string): Corridor | undefined {
    const corridor = this.corridors.find(
      (c) =>
        c.originChainId === originChainId &&
        c.destinationChainId === destinationChainId &&
        c.inputToken.address.toLowerCase() === inputToken.toLowerCase() &&
        c.outputToken.address.toLowerCase() === outputToken.toLowerCase(),
    );
    return corridor && this.withCount(corridor);
  }

  private withCount(corridor: CorridorDefinition): Corridor {
    return { ...corridor, solverCount: this.solverCount(corridor.id) };
  }
}
