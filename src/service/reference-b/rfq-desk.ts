import { priceString } from '../auction/pricing.js';
import type { QuoteRequestContext, QuoteService } from '../auction/quote-service.js';
import type { PairQuoteRequestFields } from '../auction/schemas.js';
import type { CorridorCatalogue } from '../corridors/catalogue.js';

export interface RfqDeskDeps {
  quotes(): QuoteService;
  fillRate(solverId: string): number | null;
  corridors: CorridorCatalogue;
  /** Quote lifetime (ms), reported as each quote's `ttl` in seconds like `quote.received`. */
  quoteTtlMs: number;
}

/**
 * Reference B's face of the auction: `POST /rfq` runs the very auction `POST /quotes` runs (same RFQ, broadcast,
 * window, ranking, evidence and events) and answers its quotes with B's `price` and `ttl` beside A's fields;
 * `GET /quotes/{rfq_…}` lists every invited solver's response.
 */
export class RfqDesk {
  constructor(private readonly deps: RfqDeskDeps) {}

  /** The auction's answer plus B's fields; the route checks it against `RfqResponse`. */
  async open(body: PairQuoteRequestFields, context: QuoteRequestContext) {
    const answer = await this.deps.quotes().requestQuotes({ shape: 'pair', ...body }, context);
    const corridor = this.deps.corridors.get(answer.corridor);
    if (corridor === undefined) throw new Error(`corridor ${answer.corridor} of ${answer.rfqId} is not configured`);
    const view = this.view(answer.rfqId);
    const ttl = Math.round(this.deps.quoteTtlMs / 1000);
    return {
      ...answer,
      rfq: { id: view.rfqId, pair: view.pair, side: view.side, amount: view.amount, corridor: view.corridor, deadline: view.deadline },
      quotes: answer.quotes.map((quote) => ({
        ...quote,
        price: priceString({
          inputAmount: BigInt(quote.inputAmount),
          inputDecimals: corridor.inputToken.decimals,
          outputAmount: BigInt(quote.outputAmount),
          outputDecimals: corridor.outputToken.decimals,
        }),
        ttl,
      })),
    };
  }

  view(rfqId: string) {
    return this.deps.quotes().rfqView(rfqId, (solverId) => this.deps.fillRate(solverId));
  }
}
