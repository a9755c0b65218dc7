import {
  ApiRequestError,
  type LockType,
  type Preference,
  type QuoteResponse,
  type SettlementPath,
  type SwapType,
  type TokenQuoteRequest,
} from '../../src/clients/rest-client.js';
import { tokenOf } from '../actors/chain-clients.js';
import type { ScenarioContext } from '../core/context.js';
import { expectEqual, fail } from '../core/errors.js';
import { sleep } from '../core/eventually.js';
import type { Step } from '../core/scenario.js';
import { formatAmount } from '../observe/observe-order.js';

export interface QuoteOptions {
  taker: string;
  lockType?: LockType;
  path?: SettlementPath;
  /** Input token symbol (default USDC); `outputToken` defaults to the same symbol. */
  token?: string;
  outputToken?: string;
  /** Chain indexes in the manifest (default 0 → 1). */
  from?: number;
  to?: number;
  /** Smallest units: the input (exactInput) or the output (exactOutput). Default: drawn from the seed. */
  amount?: bigint | ((context: ScenarioContext) => bigint);
  preference?: Preference;
  swapType?: SwapType;
  /** Go on with the quote of this rank (default 1). */
  pick?: number;
  /** At least this many quotes (default 1). */
  minQuotes?: number;
  /** The request must be refused like this (nothing else is checked). */
  expectError?: { status: number; code: string };
}

/** Solvers reconnect for a moment after a service restart: `corridor_unavailable` is retried that long. */
const RECONNECT_GRACE_MS = 5_000;

export function solverName(context: ScenarioContext, solverId: string): string {
  return context.referenceSolvers.find((solver) => solver.solverId === solverId)?.name ?? solverId;
}

/** `POST /api/v1/quotes` for a taker: the auction's ranked quotes, each with the typed data the taker signs. */
export function quote(name: string, options: QuoteOptions): Step {
  const lockType = options.lockType ?? 'Permit2Escrow';
  const path = options.path ?? 'direct';
  const symbol = options.token ?? 'USDC';
  return {
    title: `quote ${name}: ${options.taker}, ${symbol} ${lockType} ${path}${options.preference ? `, by ${options.preference}` : ''}${options.swapType === 'exactOutput' ? ', exact output' : ''}`,
    async run(context) {
      const taker = context.taker(options.taker);
      const origin = context.chain(options.from ?? 0);
      const destination = context.chain(options.to ?? 1);
      const input = tokenOf(origin, symbol);
      const output = tokenOf(destination, options.outputToken ?? symbol);
      const swapType = options.swapType ?? 'exactInput';
      const amount =
        typeof options.amount === 'function'
          ? options.amount(context)
          : (options.amount ?? context.random.amount(swapType === 'exactInput' ? input.decimals : output.decimals));
      // Exact output: the input is not known yet; 5 % above the output covers any quote within the fee ceiling.
      await taker.ensureFunded(origin, symbol, swapType === 'exactInput' ? amount : (amount * 105n) / 100n);
      const request: TokenQuoteRequest = {
        inputToken: input.address,
        outputToken: output.address,
        originChainId: origin.chainId,
        destinationChainId: destination.chainId,
        lockType,
        settlementPath: path,
        swapType,
        user: taker.address,
        ...(swapType === 'exactInput' ? { inputAmount: amount.toString() } : { outputAmount: amount.toString() }),
        ...(options.preference === undefined ? {} : { preference: options.preference }),
      };
      let response: QuoteResponse | undefined;
      const started = Date.now();
      for (;;) {
        try {
          response = await context.rest.requestQuotes(request);
          break;
        } catch (error) {
          if (options.expectError !== undefined && error instanceof ApiRequestError) {
            expectEqual({ status: error.status, code: error.code }, options.expectError, `quote ${name} refusal`);
            context.values.set(name, error);
            return `refused ${error.status} ${error.code}`;
          }
          const reconnecting =
            error instanceof ApiRequestError && error.code === 'corridor_unavailable' && Date.now() - started < RECONNECT_GRACE_MS;
          if (!reconnecting) throw error;
          await sleep(50);
        }
      }
      if (options.expectError !== undefined)
        fail(`quote ${name}: expected ${options.expectError.status} ${options.expectError.code}, got ${response.quotes.length} quotes`);
      const minimum = options.minQuotes ?? 1;
      if (response.quotes.length < minimum) fail(`quote ${name}: ${response.quotes.length} quote(s), expected at least ${minimum}`);
      const rank = options.pick ?? 1;
      const picked = response.quotes.find((q) => q.rank === rank) ?? fail(`quote ${name}: no quote of rank ${rank}`);
      context.quotes.set(name, {
        name,
        taker,
        request: { ...request },
        response,
        quote: picked,
        origin,
        destination,
        inputSymbol: input.symbol,
        outputSymbol: output.symbol,
      });
      return (
        `${response.quotes.length} quote(s); rank ${rank}: ${formatAmount(BigInt(picked.outputAmount), output.decimals, output.symbol)} ` +
        `for ${formatAmount(BigInt(picked.inputAmount), input.decimals, input.symbol)} from ${solverName(context, picked.solverId)}`
      ).replaceAll('+', '');
    },
  };
}
