/**
 * The auction's wire shapes live in src/contracts/wire (clients derive their types from them); here are what only
 * the service needs: the quote request's validating transform and the route parameters.
 */
import { z } from 'zod';
import { Address } from '../../contracts/wire/primitives.js';
import { PairQuoteRequestFields, QuoteRequestFields } from '../../contracts/wire/auction.js';

export * from '../../contracts/wire/auction.js';
export { LockType, Preference, QuoteStatus, SettlementPath, SwapType } from '../../contracts/wire/vocabulary.js';

export type QuoteRequestBody = ({ shape: 'tokens' } & QuoteRequestFields) | ({ shape: 'pair' } & PairQuoteRequestFields);

/**
 * Picks the shape by its distinctive field (`pair`) and validates against that shape alone, so errors name the
 * offending field instead of "matches no variant". The OpenAPI document shows the two shapes as `anyOf`.
 */
export const QuoteRequest = z
  .unknown()
  .transform((data, ctx): QuoteRequestBody => {
    const isPair = typeof data === 'object' && data !== null && !Array.isArray(data) && 'pair' in data;
    const result = isPair ? PairQuoteRequestFields.safeParse(data) : QuoteRequestFields.safeParse(data);
    if (!result.success) {
      for (const issue of result.error.issues) ctx.addIssue(issue as Parameters<typeof ctx.addIssue>[0]);
      return z.NEVER;
    }
    if (isPair) return { shape: 'pair', ...(result.data as PairQuoteRequestFields) };
    const fields = result.data as QuoteRequestFields;
    const exactOutput = fields.swapType === 'exactOutput';
    const [required, forbidden] = exactOutput ? (['outputAmount', 'inputAmount'] as const) : (['inputAmount', 'outputAmount'] as const);
    if (fields[required] === undefined) {
      ctx.addIssue({ code: 'invalid_type', expected: 'string', input: undefined, path: [required], message: `${required} is required` });
      return z.NEVER;
    }
    if (fields[forbidden] !== undefined) {
      ctx.addIssue({
        code: 'custom',
        input: fields[forbidden],
        path: [forbidden],
        message: exactOutput
          ? 'with swapType exactOutput solvers quote the input; send outputAmount only'
          : 'only with swapType exactOutput',
      });
      return z.NEVER;
    }
    return { shape: 'tokens', ...fields };
  })
  .meta({ anyOf: [{ $ref: '#/components/schemas/QuoteRequestFields' }, { $ref: '#/components/schemas/PairQuoteRequestFields' }] } as Record<
    string,
    unknown
  >);

export const QuoteDetailQuery = z.strictObject({ user: Address.optional() });
export const QuoteIdParams = z.object({
  quoteId: z.string().regex(/^(qt|rfq)_[0-9a-z]{1,64}$/, 'must be a quote id (qt_…) or an RFQ id (rfq_…)'),
});
export const SolverIdParams = z.object({ solverId: z.string().regex(/^slv_[0-9a-z]{1,64}$/, 'must be a solver id (slv_…)') });
