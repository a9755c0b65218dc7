import type { Address, Hex } from 'viem';
import type { z } from 'zod';
import type { ChainInfo } from '../../contracts/deployment.js';
import { priceString } from '../auction/pricing.js';
import type { QuoteBook } from '../auction/types.js';
import { ConflictError, NotFoundError } from '../errors/api-errors.js';
import { isoTime } from '../api/wire.js';
import { tokenFacts } from '../orders/order-events.js';
import type { IntakeContext, OrderIntake } from '../orders/order-intake.js';
import { inputSettlerFor } from '../../contracts/standard-order.js';
import type { AcceptRequest, AcceptResponse } from './schemas.js';
import { settlementIdOf } from './settlement-ids.js';

export interface QuoteAcceptanceDeps {
  intake(): OrderIntake;
  quoteBook(): QuoteBook;
  /** The quote of the RFQ that was accepted, if one was. */
  acceptedQuoteOf(rfqId: string): string | undefined;
  chains: readonly ChainInfo[];
}

/**
 * `POST /accept`: the taker accepts one solver's quote of an RFQ. Exactly Reference A's order intake (signature,
 * nonce, quote open and unexpired, rail compliance, the deposit relayed on the origin chain and mined) under B's
 * nouns: the answer is the settlement, pending, with its escrow deposit. The intake's refusals already carry B codes
 * (`QUOTE_EXPIRED`, `ALREADY_ACCEPTED`, `ATTESTATION_EXPIRED`, `COMPLIANCE_FAILED`).
 */
export class QuoteAcceptance {
  constructor(private readonly deps: QuoteAcceptanceDeps) {}

  async accept(body: AcceptRequest, context: IntakeContext): Promise<z.input<typeof AcceptResponse>> {
    const quote = this.deps.quoteBook().get(body.quoteId);
    if (quote === undefined || quote.rfqId !== body.rfqId) {
      throw new NotFoundError({ code: 'resource_not_found', param: 'quoteId', message: `RFQ ${body.rfqId} has no quote ${body.quoteId}.` });
    }
    // One quote per RFQ becomes a settlement. Its siblings share the taker's nonce, so A's intake would call a second
    // acceptance a nonce replay; Reference B says what happened.
    const taken = this.deps.acceptedQuoteOf(body.rfqId);
    if (taken !== undefined && taken !== body.quoteId) {
      throw new ConflictError({
        code: 'quote_already_accepted',
        codeB: 'ALREADY_ACCEPTED',
        param: 'quoteId',
        message: `RFQ ${body.rfqId} was already accepted with quote ${taken}; request a new quote.`,
      });
    }
    const order = await this.deps
      .intake()
      .create(
        { quoteId: body.quoteId, signature: body.signature as Hex, nonce: BigInt(body.nonce), user: body.user as Address | undefined },
        context,
      );
    if (order.originTxHash === null) throw new Error(`order ${order.id} has no deposit after intake`);
    const origin = this.deps.chains.find((chain) => chain.chainId === order.originChainId);
    return {
      settlementId: settlementIdOf(order.id),
      orderId: order.id,
      rfqId: order.rfqId,
      quoteId: order.quoteId,
      solverId: order.solverId,
      // The answer is the settlement as its deposit left it; later stages are for GET /settlements/{id}.
      status: 'pending',
      price: priceString({
        inputAmount: BigInt(order.inputAmount),
        inputDecimals: tokenFacts(this.deps.chains, order.originChainId, order.inputToken).decimals,
        outputAmount: BigInt(order.outputAmount),
        outputDecimals: tokenFacts(this.deps.chains, order.destinationChainId, order.outputToken).decimals,
      }),
      inputAmount: order.inputAmount,
      outputAmount: order.outputAmount,
      escrow: {
        status: 'locked',
        chainId: order.originChainId,
        settler: origin === undefined ? null : inputSettlerFor(origin, order.lockType),
        lockType: order.lockType,
        onchainOrderId: order.onchainOrderId,
        token: order.inputToken,
        amount: order.inputAmount,
        depositTxHash: order.originTxHash,
      },
      fillDeadline: order.fillDeadline,
      expires: order.expires,
      createdAt: isoTime(order.createdAt),
    };
  }
}
