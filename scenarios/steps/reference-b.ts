import { ApiRequestError, type OrderCreated, type Quote, type QuoteResponse } from '../../src/clients/rest-client.js';
import { tokenOf } from '../actors/chain-clients.js';
import { expectEqual, fail } from '../core/errors.js';
import { sleep } from '../core/eventually.js';
import type { Step } from '../core/scenario.js';
import { formatAmount, orderBalances } from '../observe/observe-order.js';
import { solverName } from './quote.js';
import { track } from './order.js';

export interface RfqOptions {
  taker: string;
  /** `<INPUT>/<OUTPUT>` symbols (default USDC/USDC). */
  pair?: string;
  side?: 'sell' | 'buy';
  /** Chain indexes (default 0 → 1). */
  from?: number;
  to?: number;
  minQuotes?: number;
}

/** Reference B's answer to `POST /api/v1/rfq`: A's quote response plus the RFQ object. */
type RfqAnswer = QuoteResponse & { rfq: { id: string; corridor: string } };

/**
 * `POST /api/v1/rfq` in Reference B's pair shape (`pair`, `side`, `amount` in whole tokens, `chain` by name), naming the
 * taker so that every quote carries the payload it signs. Later steps use it like an A quote (`accept`, timelines).
 */
export function rfq(name: string, options: RfqOptions): Step {
  const pair = options.pair ?? 'USDC/USDC';
  return {
    title: `rfq ${name}: ${options.taker}, ${pair} ${options.side ?? 'sell'} (Reference B)`,
    async run(context) {
      const taker = context.taker(options.taker);
      const origin = context.chain(options.from ?? 0);
      const destination = context.chain(options.to ?? 1);
      const [inputSymbol, outputSymbol] = pair.split('/') as [string, string];
      const input = tokenOf(origin, inputSymbol);
      const output = tokenOf(destination, outputSymbol);
      const amount = context.random.amount(input.decimals);
      await taker.ensureFunded(origin, inputSymbol, (amount * 105n) / 100n);
      const whole = (amount / 10n ** BigInt(input.decimals - 2)).toString();
      const request = {
        pair,
        side: options.side ?? 'sell',
        amount: `${whole.slice(0, -2)}.${whole.slice(-2)}`,
        chain: origin.name,
        destinationChain: destination.name,
        user: taker.address,
      };
      let answer: RfqAnswer | undefined;
      const started = Date.now();
      for (;;) {
        try {
          answer = await context.rest.request<RfqAnswer>('POST', '/api/v1/rfq', request);
          break;
        } catch (error) {
          // Format B names "no solver quoted" VALIDATION_ERROR; solvers may still be reconnecting after a restart.
          if (!(error instanceof ApiRequestError && error.status === 422 && Date.now() - started < 5_000)) throw error;
          await sleep(50);
        }
      }
      if (answer.quotes.length < (options.minQuotes ?? 1)) fail(`rfq ${name}: ${answer.quotes.length} quote(s)`);
      const best = answer.quotes.find((q: Quote) => q.rank === 1) ?? fail(`rfq ${name}: no quote of rank 1`);
      context.quotes.set(name, { name, taker, request, response: answer, quote: best, origin, destination, inputSymbol, outputSymbol });
      return `${answer.rfqId} (${answer.rfq.corridor}): ${answer.quotes.length} quote(s); best ${formatAmount(BigInt(best.outputAmount), output.decimals, output.symbol).replace('+', '')} from ${solverName(context, best.solverId)}`;
    },
  };
}

/** The answer of `POST /api/v1/accept`. */
export interface AcceptAnswer {
  settlementId: string;
  orderId: string;
  rfqId: string;
  quoteId: string;
  status: string;
  escrow: { status: string; onchainOrderId: string; depositTxHash: string; lockType: string };
  fillDeadline: number;
  createdAt: string;
}

/**
 * `POST /api/v1/accept`: the taker signs the RFQ's best quote and accepts it; the deposit is relayed and the trade is
 * followed as an order (its `ord_` id), with the answer kept under `name`.
 */
export function accept(name: string, options: { rfq: string; expectError?: { status: number; code: string } }): Step {
  return {
    title: `accept ${name}: the best quote of rfq ${options.rfq}${options.expectError ? ` → refused ${options.expectError.code}` : ''}`,
    async run(context) {
      const quoted = context.quote(options.rfq);
      const signature = await quoted.taker.sign(quoted.quote.typedData ?? fail(`rfq ${options.rfq} carries no typed data`));
      const body = {
        rfqId: quoted.response.rfqId,
        quoteId: quoted.quote.quoteId,
        signature,
        nonce: quoted.quote.nonce ?? fail('no nonce'),
        user: quoted.taker.address,
      };
      if (options.expectError !== undefined) {
        try {
          await context.rest.request('POST', '/api/v1/accept', body);
          fail(`accept ${name}: expected ${options.expectError.status} ${options.expectError.code}, but it was accepted`);
        } catch (error) {
          if (!(error instanceof ApiRequestError)) throw error;
          expectEqual({ status: error.status, code: error.code }, options.expectError, `accept ${name} refusal (Format B)`);
          return `refused ${error.status} ${error.code}`;
        }
      }
      const before = await orderBalances({ quote: quoted });
      const answer = await context.rest.request<AcceptAnswer>('POST', '/api/v1/accept', body);
      context.values.set(name, answer);
      const created: OrderCreated = {
        orderId: answer.orderId,
        quoteId: answer.quoteId,
        status: 'Deposited',
        settlementPath: quoted.quote.settlementPath,
        lockType: quoted.quote.lockType,
        onchainOrderId: answer.escrow.onchainOrderId,
        originTxHash: answer.escrow.depositTxHash,
        destinationTxHash: null,
        createdAt: answer.createdAt,
        fillDeadline: new Date(answer.fillDeadline * 1_000).toISOString(),
      };
      track(context, name, options.rfq, created, { quoteId: body.quoteId, signature, nonce: body.nonce, user: body.user }, before, 'B');
      return `${answer.settlementId} ${answer.status}, escrow ${answer.escrow.status} (${answer.escrow.depositTxHash.slice(0, 10)}…)`;
    },
  };
}
