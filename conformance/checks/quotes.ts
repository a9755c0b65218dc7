import { randomBytes } from 'node:crypto';
import type { CheckContext } from '../core/context.js';
import type { CorridorRecord } from '../deployment/discover.js';
import type { WireResponse } from '../wire/http.js';
import { quoteRequestFor } from '../flows/taker.js';
import { check, ONLY_A, PHASE } from './support/define.js';
import { expectError } from './support/errors.js';
import {
  CORRIDOR_ID,
  fieldProblems,
  hasPrefix,
  isAddress,
  isArray,
  isFiniteNumber,
  isHexBytes,
  isIntegerString,
  isIsoTime,
  isNonEmptyString,
  isObject,
  isUnixSeconds,
  LOCK_TYPES,
  oneOf,
  sameAddress,
  SETTLEMENT_PATHS,
  type Json,
} from './support/shape.js';

/** A corridor with live solvers (any chains): what a spec-only quote request needs. */
function quotableCorridor(ctx: CheckContext): CorridorRecord {
  const corridor = ctx.target.corridors.find((c) => c.solverCount > 0);
  if (!corridor) ctx.skip(ctx.target.missing.solvers ?? 'no corridor with live solvers');
  return corridor;
}

/** Any corridor: validation answers need no solver. */
function anyCorridor(ctx: CheckContext): CorridorRecord {
  const corridor = ctx.target.corridors[0];
  if (!corridor) ctx.skip('the target lists no corridors');
  return corridor;
}

interface BasicQuote {
  corridor: CorridorRecord;
  request: Json;
  response: WireResponse;
  body: Json;
  quotes: Json[];
}

/** One spec-only quote request (no extensions), shared by the quote response checks. */
function basicQuote(ctx: CheckContext): Promise<BasicQuote> {
  return ctx.fixture('basic-quote', async () => {
    const corridor = quotableCorridor(ctx);
    const request = quoteRequestFor(corridor, { preference: 'price' });
    const response = await ctx.api('POST', '/quotes', { body: request, label: 'a spec-only quote request without credentials' });
    if (response.status !== 200) ctx.fail(`POST /quotes answered ${response.status}: ${response.text.slice(0, 300)}`);
    const body = isObject(response.json) ? response.json : {};
    const quotes = isArray(body.quotes) ? body.quotes.filter(isObject) : [];
    return { corridor, request, response, body, quotes };
  });
}

export function quoteProblems(quote: unknown, where: string): string[] {
  return fieldProblems(
    quote,
    [
      ['quoteId', (v) => hasPrefix(v, 'qt_'), 'a `qt_` id'],
      ['solverId', (v) => hasPrefix(v, 'slv_'), 'a `slv_` id'],
      ['outputAmount', isIntegerString, 'an integer string'],
      ['feeBps', isFiniteNumber, 'a number'],
      ['expiresAt', isIsoTime, 'an ISO-8601 time'],
      ['settlementPath', oneOf(...SETTLEMENT_PATHS), 'compliant or direct'],
      ['lockType', oneOf(...LOCK_TYPES), 'a lock type'],
    ],
    where,
  ).concat(
    isObject(quote) && 'priceImpactBps' in quote && !isFiniteNumber(quote.priceImpactBps) && quote.priceImpactBps !== null
      ? [`${where}.priceImpactBps is not a number`]
      : [],
  );
}

/** The first element of an input pair: the token address, or (ResourceLock) a lock id whose low 20 bytes are it. */
function inputTokenMatches(value: unknown, token: string): boolean {
  if (isAddress(value)) return sameAddress(value, token);
  if (isHexBytes(value) && value.length === 66) return sameAddress(`0x${value.slice(-40)}`, token);
  return false;
}

export const quoteChecks = [
  check({
    id: 'quotes.create',
    title: 'POST /api/v1/quotes (no key, no attestation) answers 200 with complete quotes, uccpBps, corridor and requestId',
    requirements: ['A-QUO-001', 'A-QUO-006', 'A-QUO-008', 'A-QUO-019', 'X-ID-001', 'X-ID-002', 'X-ID-003'],
    profiles: ONLY_A,
    tags: ['quotes'],
    needs: ['solvers'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const { body, quotes, corridor } = await basicQuote(ctx);
      ctx.expect('A-QUO-001', quotes.length > 0, 'the quote response holds no quote although the corridor has solvers');
      for (const [i, quote] of quotes.entries()) {
        const problems = quoteProblems(quote, `quotes[${i}]`);
        const idProblems = problems.filter((p) => /`(qt|slv)_` id/.test(p));
        ctx.expect('A-QUO-006', problems.length === idProblems.length, problems.filter((p) => !idProblems.includes(p)).join('; '));
        ctx.expect('X-ID-001', idProblems.length === 0, idProblems.join('; '));
        ctx.expect('X-ID-002', isIsoTime(quote.expiresAt), `quotes[${i}].expiresAt ${JSON.stringify(quote.expiresAt)} is not ISO-8601`);
        ctx.expect('X-ID-003', isIntegerString(quote.outputAmount), `quotes[${i}].outputAmount is not an integer string`);
        if (isIsoTime(quote.expiresAt))
          ctx.expect(
            'A-QUO-006',
            Date.parse(quote.expiresAt) > (await ctx.clockNow()) - 1_000,
            `quotes[${i}] expired on arrival (${quote.expiresAt})`,
          );
      }
      const top = fieldProblems(
        body,
        [
          ['uccpBps', isFiniteNumber, 'a number'],
          ['corridor', (v) => typeof v === 'string' && CORRIDOR_ID.test(v), 'a canonical corridor id'],
          ['requestId', isNonEmptyString, 'a string'],
        ],
        'response',
      );
      ctx.expect('A-QUO-008', top.length === 0, top.join('; '));
      ctx.expect(
        'A-QUO-008',
        body.corridor === corridor.id,
        `the response names corridor ${JSON.stringify(body.corridor)}, the request was for ${corridor.id}`,
      );
      ctx.expect('X-ID-001', hasPrefix(body.requestId, 'req_'), `requestId ${JSON.stringify(body.requestId)} lacks the req_ prefix`);
      ctx.note(`${quotes.length} quote(s) on ${corridor.id}`);
    },
  }),

  check({
    id: 'quotes.ranked-best-first',
    title: 'Quotes come back best first (output amount, preference price)',
    requirements: ['A-QUO-007'],
    profiles: ONLY_A,
    tags: ['quotes'],
    needs: ['solvers'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const { quotes } = await basicQuote(ctx);
      const amounts = quotes.map((q) => (isIntegerString(q.outputAmount) ? BigInt(q.outputAmount) : -1n));
      ctx.note(`output amounts in order: ${amounts.join(', ')}`);
      if (amounts.length < 2) ctx.warn(`only ${amounts.length} quote(s): the ranking cannot be seen`);
      const unsorted = amounts.findIndex((a, i) => i > 0 && a > amounts[i - 1]!);
      ctx.expect(
        'A-QUO-007',
        unsorted < 0,
        `quote ${unsorted} offers ${amounts[unsorted]}, more than quote ${unsorted - 1} (${amounts[unsorted - 1]}) ranked above it`,
      );
    },
  }),

  check({
    id: 'quotes.lock-types-of-corridor',
    title: "Each quote's lock type is one the corridor lists",
    requirements: ['A-QUO-018'],
    profiles: ONLY_A,
    tags: ['quotes'],
    needs: ['solvers'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const { quotes, corridor } = await basicQuote(ctx);
      for (const [i, quote] of quotes.entries()) {
        ctx.expect(
          'A-QUO-018',
          corridor.lockTypes.includes(String(quote.lockType)),
          `quotes[${i}].lockType ${String(quote.lockType)} is not among ${corridor.lockTypes.join(', ')}`,
        );
      }
    },
  }),

  check({
    id: 'quotes.detail',
    title: 'GET /api/v1/quotes/{quoteId} is public: status open, standardOrder, and it agrees with the quote',
    requirements: ['A-QUO-009', 'A-QUO-010', 'A-QUO-011', 'A-QUO-017', 'A-AUTH-001'],
    profiles: ONLY_A,
    tags: ['quotes'],
    needs: ['solvers'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const { quotes, request } = await basicQuote(ctx);
      const quote = quotes[0];
      if (!quote || typeof quote.quoteId !== 'string') ctx.fail('no quote to read');
      const response = await ctx.api('GET', `/quotes/${quote.quoteId}`, { label: 'quote detail without credentials' });
      ctx.expect('A-AUTH-001', response.status !== 401, 'reading a quote asked for credentials');
      ctx.require('A-QUO-009', response.status === 200, `GET /quotes/${quote.quoteId} answered ${response.status}`);
      const detail = isObject(response.json) ? response.json : {};
      const problems = fieldProblems(
        detail,
        [
          ['quoteId', (v) => v === quote.quoteId, `the quote id ${quote.quoteId}`],
          ['status', isNonEmptyString, 'a status'],
          ['solverId', isNonEmptyString, 'a string'],
          ['outputAmount', isIntegerString, 'an integer string'],
          ['feeBps', isFiniteNumber, 'a number'],
          ['settlementPath', oneOf(...SETTLEMENT_PATHS), 'compliant or direct'],
          ['lockType', oneOf(...LOCK_TYPES), 'a lock type'],
          ['createdAt', isIsoTime, 'an ISO-8601 time'],
          ['expiresAt', isIsoTime, 'an ISO-8601 time'],
          ['standardOrder', isObject, 'an object'],
        ],
        'detail',
      );
      ctx.expect('A-QUO-009', problems.length === 0, problems.join('; '));
      ctx.expect('A-QUO-011', detail.status === 'open', `a fresh quote has status ${JSON.stringify(detail.status)}, not open`);
      const order = detail.standardOrder;
      const orderProblems = fieldProblems(
        order,
        [
          ['user', isAddress, 'an address'],
          ['originChainId', isFiniteNumber, 'a number'],
          ['expires', isUnixSeconds, 'Unix seconds'],
          ['fillDeadline', isUnixSeconds, 'Unix seconds'],
          [
            'inputs',
            (v) => isArray(v) && v.every((pair) => isArray(pair) && pair.length === 2 && isHexBytes(pair[0]) && isIntegerString(pair[1])),
            '[token, amount string] pairs',
          ],
          [
            'outputs',
            (v) =>
              isArray(v) &&
              v.length > 0 &&
              v.every((o) => isObject(o) && isFiniteNumber(o.chainId) && isNonEmptyString(o.token) && isIntegerString(o.amount)),
            'objects with chainId, token and amount',
          ],
        ],
        'standardOrder',
      );
      ctx.expect('A-QUO-010', orderProblems.length === 0, orderProblems.join('; '));
      for (const field of ['solverId', 'outputAmount', 'feeBps', 'lockType', 'settlementPath', 'expiresAt'] as const) {
        ctx.expect(
          'A-QUO-017',
          JSON.stringify(detail[field]) === JSON.stringify(quote[field]),
          `detail.${field} ${JSON.stringify(detail[field])} differs from the quote's ${JSON.stringify(quote[field])}`,
        );
      }
      if (isObject(order) && orderProblems.length === 0) {
        const inputs = order.inputs as unknown[][];
        const outputs = order.outputs as Json[];
        ctx.expect(
          'A-QUO-017',
          order.originChainId === request.originChainId,
          `standardOrder.originChainId ${String(order.originChainId)} is not the request's ${String(request.originChainId)}`,
        );
        ctx.expect(
          'A-QUO-017',
          inputTokenMatches(inputs[0]?.[0], String(request.inputToken)) && inputs[0]?.[1] === request.inputAmount,
          `standardOrder.inputs ${JSON.stringify(inputs)} do not carry ${String(request.inputAmount)} of ${String(request.inputToken)}`,
        );
        ctx.expect(
          'A-QUO-017',
          outputs[0]?.chainId === request.destinationChainId &&
            sameAddress(`0x${String(outputs[0]?.token).slice(-40)}`, String(request.outputToken)),
          'standardOrder.outputs[0] is not the requested destination chain and token',
        );
        ctx.expect(
          'A-QUO-017',
          outputs[0]?.amount === quote.outputAmount,
          `standardOrder.outputs[0].amount ${String(outputs[0]?.amount)} is not the quoted ${String(quote.outputAmount)}`,
        );
        ctx.expect(
          'A-QUO-010',
          Number(order.fillDeadline) <= Number(order.expires),
          `fillDeadline ${String(order.fillDeadline)} is after expires ${String(order.expires)}`,
        );
      }
    },
  }),

  check({
    id: 'quotes.unknown-id',
    title: 'An unknown quote id is a 404 not_found',
    requirements: ['A-QUO-012'],
    profiles: ONLY_A,
    tags: ['quotes', 'errors'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const response = await ctx.api('GET', `/quotes/qt_conformance${randomBytes(8).toString('hex')}`);
      expectError(ctx, response, { status: 404, type: 'not_found' }, 'A-QUO-012', 'an unknown quote');
    },
  }),

  check({
    id: 'quotes.required-fields',
    title: 'Each required quote field, when missing, is a 400 naming it',
    requirements: ['A-QUO-002', 'A-ERR-004'],
    profiles: ONLY_A,
    tags: ['quotes', 'errors'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const base = quoteRequestFor(anyCorridor(ctx));
      for (const field of ['inputToken', 'outputToken', 'inputAmount', 'originChainId', 'destinationChainId']) {
        const { [field]: _dropped, ...rest } = base;
        const response = await ctx.api('POST', '/quotes', { body: rest, label: `without ${field}` });
        expectError(ctx, response, { status: 400, type: 'invalid_request', param: field }, 'A-QUO-002', `a quote request without ${field}`);
      }
    },
  }),

  check({
    id: 'quotes.invalid-amount',
    title: 'inputAmount must be a positive integer string: anything else is a 400 naming it',
    requirements: ['A-QUO-003', 'A-ERR-004'],
    profiles: ONLY_A,
    tags: ['quotes', 'errors'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const base = quoteRequestFor(anyCorridor(ctx));
      for (const amount of ['0', '-5', '1.5', 'abc', '', '1e6', 100, null, '0x10']) {
        const response = await ctx.api('POST', '/quotes', {
          body: { ...base, inputAmount: amount },
          label: `inputAmount ${JSON.stringify(amount)}`,
        });
        expectError(
          ctx,
          response,
          { status: 400, type: 'invalid_request', param: 'inputAmount' },
          'A-QUO-003',
          `inputAmount ${JSON.stringify(amount)}`,
        );
      }
    },
  }),

  check({
    id: 'quotes.options',
    title: 'preference and swapType take only their listed values',
    requirements: ['A-QUO-004'],
    profiles: ONLY_A,
    tags: ['quotes', 'errors'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const base = quoteRequestFor(anyCorridor(ctx));
      const bad = await ctx.api('POST', '/quotes', { body: { ...base, preference: 'cheapest' }, label: 'preference cheapest' });
      expectError(ctx, bad, { status: 400, param: 'preference' }, 'A-QUO-004', 'preference "cheapest"');
      const badSwap = await ctx.api('POST', '/quotes', { body: { ...base, swapType: 'both' }, label: 'swapType both' });
      expectError(ctx, badSwap, { status: 400, param: 'swapType' }, 'A-QUO-004', 'swapType "both"');
      if (ctx.target.corridors.some((c) => c.id === anyCorridor(ctx).id && c.solverCount > 0)) {
        for (const preference of ['speed', 'reliability']) {
          const ok = await ctx.api('POST', '/quotes', { body: { ...base, preference }, label: `preference ${preference}` });
          ctx.expect('A-QUO-004', ok.status === 200, `preference ${preference} answered ${ok.status}`);
        }
      }
    },
  }),

  check({
    id: 'quotes.alternative-shape',
    title: 'The alternative request shape (pair, side, amount) is accepted',
    requirements: ['A-QUO-005'],
    profiles: ONLY_A,
    tags: ['quotes'],
    needs: ['solvers'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const corridor = quotableCorridor(ctx);
      const decimals = corridor.inputToken.decimals;
      const whole = (BigInt(corridor.minNotional) * 11n) / 10n / 10n ** BigInt(decimals);
      // The origin chain's name (from the corridor id) tells the pair apart when it runs both ways.
      const chain = corridor.id.split(':')[0];
      const body = {
        pair: `${corridor.inputToken.symbol}/${corridor.outputToken.symbol}`,
        side: 'sell',
        amount: String(whole + 1n),
        chain,
      };
      const response = await ctx.api('POST', '/quotes', { body, label: 'pair/side/amount' });
      ctx.expect('A-QUO-005', response.status === 200, `the pair shape answered ${response.status}: ${response.text.slice(0, 200)}`);
      if (response.status === 200) {
        const quotes = isObject(response.json) && isArray(response.json.quotes) ? response.json.quotes : [];
        ctx.expect('A-QUO-005', quotes.length > 0, 'the pair shape returned no quotes');
      }
    },
  }),

  check({
    id: 'quotes.amount-bounds',
    title: 'Below minNotional is amount_too_small, above maxNotional amount_too_large (422 validation_error)',
    requirements: ['A-QUO-013', 'A-QUO-014', 'A-ERR-002'],
    profiles: ONLY_A,
    tags: ['quotes', 'errors'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const corridor = anyCorridor(ctx);
      const base = quoteRequestFor(corridor);
      const small = await ctx.api('POST', '/quotes', {
        body: { ...base, inputAmount: (BigInt(corridor.minNotional) - 1n).toString() },
        label: 'minNotional - 1',
      });
      expectError(
        ctx,
        small,
        { status: 422, type: 'validation_error', code: 'amount_too_small' },
        'A-QUO-013',
        'an amount one unit below minNotional',
      );
      const large = await ctx.api('POST', '/quotes', {
        body: { ...base, inputAmount: (BigInt(corridor.maxNotional) + 1n).toString() },
        label: 'maxNotional + 1',
      });
      expectError(
        ctx,
        large,
        { status: 422, type: 'validation_error', code: 'amount_too_large' },
        'A-QUO-014',
        'an amount one unit above maxNotional',
      );
    },
  }),

  check({
    id: 'quotes.pair-not-supported',
    title: 'A token pair no corridor offers is pair_not_supported',
    requirements: ['A-QUO-015'],
    profiles: ONLY_A,
    tags: ['quotes', 'errors'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const corridor = anyCorridor(ctx);
      const stranger = `0x${randomBytes(20).toString('hex')}`;
      const response = await ctx.api('POST', '/quotes', {
        body: { ...quoteRequestFor(corridor), inputToken: stranger },
        label: 'unknown input token',
      });
      expectError(ctx, response, { status: [400, 404, 422], code: 'pair_not_supported' }, 'A-QUO-015', 'an input token no corridor offers');
    },
  }),

  check({
    id: 'quotes.corridor-unavailable',
    title: 'A corridor without solvers is corridor_unavailable',
    requirements: ['A-QUO-016'],
    profiles: ONLY_A,
    tags: ['quotes', 'errors'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const empty = ctx.target.corridors.find((c) => c.solverCount === 0);
      if (!empty) ctx.skip('every corridor has live solvers: corridor_unavailable cannot be provoked');
      const response = await ctx.api('POST', '/quotes', { body: quoteRequestFor(empty), label: `quote on ${empty.id} (no solvers)` });
      expectError(ctx, response, { status: [409, 422, 503], code: 'corridor_unavailable' }, 'A-QUO-016', `a quote on ${empty.id}`);
    },
  }),
];
