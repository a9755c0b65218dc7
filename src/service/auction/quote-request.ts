import { checksummed } from '../api/wire.js';
/**
 * Turns either quote request shape into one resolved request: the corridor, the fixed amount and its side, and
 * the options. Every business-rule failure is a 422 naming the parameter at fault.
 */
import type { Address } from 'viem';
import type { LockType } from '../../contracts/order.js';
import type { ChainInfo, TokenInfo } from '../../contracts/deployment.js';
import type { CorridorCatalogue } from '../corridors/catalogue.js';
import type { Corridor } from '../corridors/schemas.js';
import { InvalidRequestError, ValidationError } from '../errors/api-errors.js';
import { convertUnits, parseDecimalString } from './pricing.js';
import type { Preference, SwapType } from './ranking.js';
import type { QuoteRequestBody } from './schemas.js';
import type { SettlementPath } from './types.js';

export interface ResolvedQuoteRequest {
  corridor: Corridor;
  originChain: ChainInfo;
  destinationChain: ChainInfo;
  inputToken: TokenInfo;
  outputToken: TokenInfo;
  swapType: SwapType;
  /** Fixed side in its token's smallest unit: input for exactInput, output for exactOutput. */
  amount: bigint;
  /** Request field that carried the amount (named in amount errors). */
  amountParam: string;
  /** Request field blamed when the corridor has no solver. */
  corridorParam: string;
  preference: Preference;
  lockType: LockType;
  settlementPath: SettlementPath;
  user: Address | null;
  pair: string;
  side: 'buy' | 'sell';
}

function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

export class QuoteRequestResolver {
  constructor(
    private readonly chains: readonly ChainInfo[],
    private readonly corridors: CorridorCatalogue,
  ) {}

  /** A corridor by id (the catalogue is fixed for the life of the service). */
  corridor(id: string): Corridor {
    const corridor = this.corridors.get(id);
    if (corridor === undefined) throw new Error(`corridor ${id} is no longer configured`);
    return corridor;
  }

  resolve(body: QuoteRequestBody): ResolvedQuoteRequest {
    const base = body.shape === 'pair' ? this.fromPair(body) : this.fromTokens(body);
    const lockType = body.lockType ?? 'Permit2Escrow';
    if (!base.corridor.lockTypes.includes(lockType)) {
      throw new ValidationError({
        code: 'lock_type_not_supported',
        param: 'lockType',
        message: `${base.inputToken.symbol} on ${base.originChain.name} supports ${base.corridor.lockTypes.join(', ')}; not ${lockType}.`,
      });
    }
    const notional =
      base.swapType === 'exactInput' ? base.amount : convertUnits(base.amount, base.outputToken.decimals, base.inputToken.decimals);
    if (notional < BigInt(base.corridor.minNotional)) {
      throw new ValidationError({
        code: 'amount_too_small',
        param: base.amountParam,
        message: `The minimum trade size on ${base.corridor.id} is ${base.corridor.minNotional} (10,000 USD equivalent, smallest unit of ${base.inputToken.symbol}).`,
      });
    }
    if (notional > BigInt(base.corridor.maxNotional)) {
      throw new ValidationError({
        code: 'amount_too_large',
        param: base.amountParam,
        message: `The maximum trade size on ${base.corridor.id} is ${base.corridor.maxNotional} (smallest unit of ${base.inputToken.symbol}).`,
      });
    }
    return {
      ...base,
      preference: body.preference ?? 'price',
      lockType,
      settlementPath: body.settlementPath ?? 'direct',
      user: body.user === undefined ? null : checksummed(body.user),
    };
  }

  private chainById(chainId: number, param: string): ChainInfo {
    const chain = this.chains.find((candidate) => candidate.chainId === chainId);
    if (chain === undefined) {
      throw new ValidationError({ code: 'chain_not_supported', param, message: `Chain ${chainId} is not supported here.` });
    }
    return chain;
  }

  private chainByName(name: string, param: string): ChainInfo {
    const chain = this.chains.find((candidate) => candidate.name === name.toLowerCase());
    if (chain === undefined) {
      throw new ValidationError({
        code: 'chain_not_supported',
        param,
        message: `No chain named \`${name}\`; chains: ${this.chains.map((c) => c.name).join(', ') || 'none'}.`,
      });
    }
    return chain;
  }

  private fromTokens(body: Extract<QuoteRequestBody, { shape: 'tokens' }>) {
    const originChain = this.chainById(body.originChainId, 'originChainId');
    const destinationChain = this.chainById(body.destinationChainId, 'destinationChainId');
    if (originChain.chainId === destinationChain.chainId) {
      throw new ValidationError({
        code: 'pair_not_supported',
        param: 'destinationChainId',
        message: 'Origin and destination chains must differ.',
      });
    }
    const inputToken = originChain.tokens.find((token) => sameAddress(token.address, body.inputToken));
    if (inputToken === undefined) {
      throw new ValidationError({
        code: 'pair_not_supported',
        param: 'inputToken',
        message: `${body.inputToken} is not a supported token on ${originChain.name}.`,
      });
    }
    const outputToken = destinationChain.tokens.find((token) => sameAddress(token.address, body.outputToken));
    if (outputToken === undefined) {
      throw new ValidationError({
        code: 'pair_not_supported',
        param: 'outputToken',
        message: `${body.outputToken} is not a supported token on ${destinationChain.name}.`,
      });
    }
    const corridor = this.corridors.find(originChain.chainId, inputToken.address, destinationChain.chainId, outputToken.address);
    if (corridor === undefined) {
      throw new ValidationError({
        code: 'pair_not_supported',
        param: 'outputToken',
        message: `No corridor moves ${inputToken.symbol} on ${originChain.name} to ${outputToken.symbol} on ${destinationChain.name}.`,
      });
    }
    const swapType = body.swapType ?? 'exactInput';
    const amount = BigInt(swapType === 'exactInput' ? body.inputAmount! : body.outputAmount!);
    return {
      corridor,
      originChain,
      destinationChain,
      inputToken,
      outputToken,
      swapType,
      amount,
      amountParam: swapType === 'exactInput' ? 'inputAmount' : 'outputAmount',
      corridorParam: 'destinationChainId',
      pair: `${inputToken.symbol}/${outputToken.symbol}`,
      side: swapType === 'exactInput' ? ('sell' as const) : ('buy' as const),
    };
  }

  private fromPair(body: Extract<QuoteRequestBody, { shape: 'pair' }>) {
    const [inputSymbol, outputSymbol] = body.pair.toUpperCase().split('/') as [string, string];
    const origin = body.chain === undefined ? undefined : this.chainByName(body.chain, 'chain');
    const destination = body.destinationChain === undefined ? undefined : this.chainByName(body.destinationChain, 'destinationChain');
    const candidates = this.corridors
      .list()
      .filter(
        (c) =>
          c.inputToken.symbol.toUpperCase() === inputSymbol &&
          c.outputToken.symbol.toUpperCase() === outputSymbol &&
          (origin === undefined || c.originChainId === origin.chainId) &&
          (destination === undefined || c.destinationChainId === destination.chainId),
      );
    if (candidates.length === 0) {
      throw new ValidationError({
        code: 'pair_not_supported',
        param: 'pair',
        message: `No corridor carries ${body.pair}${origin ? ` from ${origin.name}` : ''}${destination ? ` to ${destination.name}` : ''}.`,
      });
    }
    if (candidates.length > 1) {
      const param = origin === undefined ? 'chain' : 'destinationChain';
      throw new InvalidRequestError({
        code: 'parameter_missing',
        param,
        message: `Several corridors carry ${body.pair} (${candidates.map((c) => c.id).join(', ')}); name the ${param === 'chain' ? 'origin chain in `chain`' : 'destination in `destinationChain`'}.`,
      });
    }
    const corridor = candidates[0]!;
    const originChain = this.chains.find((c) => c.chainId === corridor.originChainId)!;
    const destinationChain = this.chains.find((c) => c.chainId === corridor.destinationChainId)!;
    const inputToken = originChain.tokens.find((t) => sameAddress(t.address, corridor.inputToken.address))!;
    const outputToken = destinationChain.tokens.find((t) => sameAddress(t.address, corridor.outputToken.address))!;
    const swapType: SwapType = body.side === 'sell' ? 'exactInput' : 'exactOutput';
    const decimals = swapType === 'exactInput' ? inputToken.decimals : outputToken.decimals;
    const amount = parseDecimalString(body.amount, decimals);
    if (amount === undefined || amount === 0n) {
      throw new InvalidRequestError({
        code: 'parameter_invalid',
        param: 'amount',
        message: amount === 0n ? 'amount must be positive.' : `amount has more than ${decimals} decimal places.`,
      });
    }
    return {
      corridor,
      originChain,
      destinationChain,
      inputToken,
      outputToken,
      swapType,
      amount,
      amountParam: 'amount',
      corridorParam: 'pair',
      pair: `${inputToken.symbol}/${outputToken.symbol}`,
      side: body.side,
    };
  }
}
