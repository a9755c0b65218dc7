/**
 * Platform answers judged by value and over time: health between two reads, corridor bounds, quote ids and the
 * quote detail against the quote, page envelopes against the limit asked for, rate-limit counters against their limit.
 */
import type { CheckContext } from '../../core/context.js';
import { quoteRequestFor, usableCorridors } from '../../flows/taker.js';
import { BOTH, check, ONLY_A, PHASE } from '../support/define.js';
import { isArray, isObject, sameAddress, type Json } from '../support/shape.js';
import { sameTime, timeMs } from './agreement.js';

/** The settlements list (the spec's paginated list); the sessions list on a platform without orders yet. */
const LISTS = ['/settlements', '/auth/sessions'];

export const platformValueChecks = [
  check({
    id: 'health.values-over-time',
    title: 'Between two health reads a second apart uptimeSeconds grows and version stays',
    requirements: ['X-VAL-008'],
    profiles: BOTH,
    tags: ['platform', 'health', 'values'],
    phase: PHASE.platform,
    severity: 'warn',
    async run(ctx: CheckContext) {
      const first = await ctx.api('GET', '/health', { label: 'health, first read' });
      await ctx.sleep(1_100);
      const second = await ctx.api('GET', '/health', { label: 'health, a second later' });
      const a = isObject(first.json) ? first.json : {};
      const b = isObject(second.json) ? second.json : {};
      const grew = Number(b.uptimeSeconds) - Number(a.uptimeSeconds);
      ctx.expect(
        'X-VAL-008',
        grew > 0 && grew < 60,
        `uptimeSeconds went from ${String(a.uptimeSeconds)} to ${String(b.uptimeSeconds)} in 1.1 s`,
      );
      ctx.expect('X-VAL-008', a.version === b.version, `version changed from ${String(a.version)} to ${String(b.version)}`);
    },
  }),

  check({
    id: 'corridors.values',
    title: 'Corridors are listed once each, with minNotional ≤ maxNotional and at least one lock type',
    requirements: ['A-COR-002', 'A-COR-004'],
    profiles: ONLY_A,
    tags: ['platform', 'corridors', 'values'],
    phase: PHASE.platform,
    async run(ctx: CheckContext) {
      const response = await ctx.api('GET', '/corridors');
      const corridors = isObject(response.json) && isArray(response.json.corridors) ? response.json.corridors.filter(isObject) : [];
      const ids = corridors.map((c) => String(c.id));
      ctx.expect('A-COR-002', new Set(ids).size === ids.length, `corridors listed more than once: ${ids.join(', ')}`);
      for (const c of corridors) {
        const min = /^\d+$/.test(String(c.minNotional)) ? BigInt(String(c.minNotional)) : undefined;
        const max = /^\d+$/.test(String(c.maxNotional)) ? BigInt(String(c.maxNotional)) : undefined;
        ctx.expect(
          'A-COR-004',
          min === undefined || max === undefined || min <= max,
          `${String(c.id)}: minNotional ${String(c.minNotional)} exceeds maxNotional ${String(c.maxNotional)}`,
        );
        ctx.expect('A-COR-002', isArray(c.lockTypes) && c.lockTypes.length > 0, `${String(c.id)} offers no lock type`);
      }
    },
  }),

  check({
    id: 'quotes.values-agree',
    title: 'Two quote requests get their own requestId and quote ids; each detail repeats its quote and the request',
    requirements: ['X-VAL-005', 'X-VAL-001'],
    profiles: ONLY_A,
    tags: ['quotes', 'values'],
    needs: ['solvers'],
    phase: PHASE.routes,
    async run(ctx: CheckContext) {
      const corridor = usableCorridors(ctx)[0] ?? ctx.target.corridors.find((c) => c.solverCount > 0);
      if (!corridor) ctx.skip('no corridor with live solvers');
      const request = quoteRequestFor(corridor);
      const answers: Json[] = [];
      for (const n of [1, 2]) {
        const response = await ctx.api('POST', '/quotes', { body: request, label: `quote request ${n}` });
        // Whether quotes are answered at all is quotes.create's to judge; this check compares two answers.
        if (response.status !== 200) ctx.skip(`POST /quotes answered ${response.status}: no two quote responses to compare`);
        answers.push(isObject(response.json) ? response.json : {});
      }
      const [one, two] = answers as [Json, Json];
      ctx.expect('X-VAL-005', one.requestId !== two.requestId, `two requests share requestId ${String(one.requestId)}`);
      const quoteIds = answers.flatMap((a) => (isArray(a.quotes) ? a.quotes.filter(isObject).map((q) => String(q.quoteId)) : []));
      ctx.expect('X-VAL-005', new Set(quoteIds).size === quoteIds.length, `quote ids repeat: ${quoteIds.join(', ')}`);
      ctx.expect(
        'X-VAL-005',
        one.corridor === corridor.id,
        `the quote response names corridor ${String(one.corridor)}, asked ${corridor.id}`,
      );
      const now = await ctx.clockNow();
      const quotes = isArray(one.quotes) ? one.quotes.filter(isObject) : [];
      for (const quote of quotes)
        ctx.expect(
          'X-VAL-005',
          timeMs(quote.expiresAt) > now,
          `quote ${String(quote.quoteId)} expired at ${String(quote.expiresAt)} before it was handed out`,
        );
      const quote = quotes[0];
      if (!quote) return;
      const detail = await ctx.api('GET', `/quotes/${String(quote.quoteId)}`, { label: 'the first quote in detail' });
      const d = isObject(detail.json) ? detail.json : {};
      const differ = ['solverId', 'outputAmount', 'feeBps', 'settlementPath', 'lockType'].filter(
        (f) => JSON.stringify(d[f]) !== JSON.stringify(quote[f]),
      );
      if (!sameTime(d.expiresAt, quote.expiresAt)) differ.push('expiresAt');
      ctx.expect(
        'X-VAL-005',
        differ.length === 0,
        `the detail of ${String(quote.quoteId)} differs from the quote in ${differ.map((f) => `${f} (${JSON.stringify(quote[f])} → ${JSON.stringify(d[f])})`).join(', ')}`,
      );
      const so = isObject(d.standardOrder) ? d.standardOrder : {};
      const input = isArray(so.inputs) && isArray(so.inputs[0]) ? (so.inputs[0] as unknown[]) : [];
      const output = isArray(so.outputs) && isObject(so.outputs[0]) ? so.outputs[0] : {};
      const problems: string[] = [];
      if (so.originChainId !== corridor.originChainId) problems.push(`originChainId ${String(so.originChainId)}`);
      if (input.length > 0) {
        const token = BigInt(String(input[0])) & ((1n << 160n) - 1n);
        if (token !== BigInt(corridor.inputToken.address)) problems.push(`input token ${String(input[0])}`);
        if (String(input[1]) !== request.inputAmount) problems.push(`input amount ${String(input[1])}`);
      }
      if (output.chainId !== undefined && output.chainId !== corridor.destinationChainId)
        problems.push(`output chainId ${String(output.chainId)}`);
      if (typeof output.token === 'string' && !sameAddress(`0x${output.token.slice(-40)}`, corridor.outputToken.address))
        problems.push(`output token ${output.token}`);
      if (output.amount !== undefined && String(output.amount) !== String(quote.outputAmount))
        problems.push(`output amount ${String(output.amount)}`);
      ctx.expect(
        'X-VAL-005',
        problems.length === 0,
        `the standardOrder of ${String(quote.quoteId)} does not name the request: ${problems.join(', ')} (asked ${corridor.id}, ${String(request.inputAmount)} for ${String(quote.outputAmount)})`,
      );
    },
  }),

  check({
    id: 'pagination.values',
    title: 'A page honours the limit asked for; total_count, has_more and next_cursor agree with it',
    requirements: ['X-VAL-006', 'X-PAG-002'],
    profiles: BOTH,
    tags: ['platform', 'pagination', 'values'],
    needs: ['apiKey'],
    phase: PHASE.afterFlows,
    async run(ctx: CheckContext) {
      let judged = 0;
      for (const path of LISTS) {
        const whole = await ctx.api('GET', path, { auth: ctx.key, query: { limit: 100 }, label: `${path}?limit=100` });
        if (whole.status !== 200 || !isObject(whole.json) || !isArray(whole.json.data)) continue;
        for (const limit of [1, 2]) {
          const response = await ctx.api('GET', path, { auth: ctx.key, query: { limit }, label: `${path}?limit=${limit}` });
          const page = isObject(response.json) ? response.json : {};
          if (!isArray(page.data)) continue;
          judged += 1;
          const total = typeof page.total_count === 'number' ? page.total_count : undefined;
          const n = page.data.length;
          const problems: string[] = [];
          if (n > limit) problems.push(`${n} items for limit=${limit}`);
          if (total !== undefined && total < n) problems.push(`total_count ${total} below the ${n} items on the page`);
          if (total !== undefined && n < Math.min(limit, total)) problems.push(`${n} items although total_count is ${total}`);
          if (total !== undefined && page.has_more !== total > n)
            problems.push(`has_more ${String(page.has_more)} with ${n} of ${total} items`);
          if ((page.has_more === true) !== (typeof page.next_cursor === 'string' && page.next_cursor.length > 0))
            problems.push(`next_cursor ${JSON.stringify(page.next_cursor)} with has_more ${String(page.has_more)}`);
          ctx.expect('X-VAL-006', problems.length === 0, `GET ${path}?limit=${limit}: ${problems.join('; ')}`);
        }
        if (isArray(whole.json.data) && typeof whole.json.total_count === 'number' && whole.json.total_count <= 100)
          ctx.expect(
            'X-VAL-006',
            whole.json.data.length === whole.json.total_count,
            `GET ${path}?limit=100 holds ${whole.json.data.length} items, total_count says ${whole.json.total_count}`,
          );
      }
      if (judged === 0) ctx.skip(`none of ${LISTS.join(', ')} answers a page envelope`);
    },
  }),

  check({
    id: 'ratelimit.observed-values',
    title: 'On every response of the run X-RateLimit-Remaining lies within [0, Limit] and Reset is an epoch in seconds',
    requirements: ['X-VAL-007', 'X-LIM-001'],
    profiles: BOTH,
    tags: ['platform', 'rate-limit', 'values'],
    phase: PHASE.observers,
    async run(ctx: CheckContext) {
      const problems = new Set<string>();
      let judged = 0;
      const judge = (responses: typeof ctx.state.observed) => {
        for (const r of responses) {
          const limit = r.headers['x-ratelimit-limit'];
          const remaining = r.headers['x-ratelimit-remaining'];
          const reset = r.headers['x-ratelimit-reset'];
          if (limit === undefined || remaining === undefined) continue;
          judged += 1;
          const where = `${r.method} ${r.path}`;
          if (!(Number(remaining) >= 0 && Number(remaining) <= Number(limit)))
            problems.add(`${where}: remaining ${remaining} outside [0, ${limit}]`);
          if (reset !== undefined && !(Number(reset) > 1e9 && Number(reset) < 1e11))
            problems.add(`${where}: reset ${reset} is not epoch seconds`);
        }
      };
      judge(ctx.state.observed);
      if (judged === 0) {
        // Selected on its own, the run has sent next to nothing: a few reads of its own to judge.
        const seen = ctx.state.observed.length;
        for (const path of ['/corridors', '/webhooks', '/settlements'])
          await ctx.api('GET', path, {
            ...(ctx.target.apiKey === undefined ? {} : { auth: ctx.target.apiKey }),
            label: `rate-limit headers of GET ${path}`,
          });
        judge(ctx.state.observed.slice(seen));
      }
      if (judged === 0) ctx.skip('no response of the run carried rate-limit headers');
      ctx.expect('X-VAL-007', problems.size === 0, [...problems].slice(0, 5).join('; '));
    },
  }),
];
